package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestMemoryAddWithModelJudge: `memory add --judge openai` asks the chat server
// given by --judge-url (a real one on loopback, answering every question with
// "contradicts") and opens a conflict the built-in judge would not (a narrower
// subject), with the model's reason; the flags are checked before anything runs.
func TestMemoryAddWithModelJudge(t *testing.T) {
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	t.Setenv("SPELUNK_JUDGE_API_KEY", "k")
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "wrong request", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]string{
			"content": `{"contradicts": true, "reason": "fixed policy"}`}}}})
	}))
	defer srv.Close()
	base := []string{"--db", pgtest.URL(t), "--repo", t.TempDir(), "--judge", "openai", "--judge-url", srv.URL, "--judge-model", "m"}
	add := func(text string) string {
		t.Helper()
		code, out, errOut := spelunk(t, append(append([]string{}, base...), "memory", "add", "--json", "--kind", "fact", "--author", "a", text)...)
		if code != 0 {
			t.Fatalf("memory add: exit %d: %s", code, errOut)
		}
		return out
	}
	add("Logs are kept for 30 days.")
	out := add("Audit logs are kept for one year.")
	var got struct {
		ConflictID *string `json:"conflict_id"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.ConflictID == nil || asked.Load() != 1 {
		t.Fatalf("memory add --json = %q (asked %d): want a conflict from one question", out, asked.Load())
	}
	code, show, errOut := spelunk(t, append(append([]string{}, base...), "conflicts", "show", *got.ConflictID)...)
	if code != 0 || !strings.Contains(show, "model judge m: fixed policy") {
		t.Fatalf("conflicts show: exit %d %q %q: want the model's reason", code, show, errOut)
	}

	for _, bad := range [][]string{
		{"--judge", "oracle", "memory", "list"},
		{"--judge", "openai", "memory", "list"},
		{"--judge-url", srv.URL, "memory", "list"},
		{"--judge", "openai", "--judge-url", "ftp://x", "--judge-model", "m", "memory", "list"},
	} {
		if code, _, errOut := spelunk(t, bad...); code != 2 || !strings.Contains(errOut, "judge") {
			t.Errorf("spelunk %v: exit %d %q, want a usage error about the judge", bad, code, errOut)
		}
	}
}
