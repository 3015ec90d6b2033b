package memory_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// judgeServer is a real chat-completions server on loopback with a fixed policy,
// chosen by a word in memory B: "broken" answers HTTP 500, "slow" answers after
// two seconds, "prose" answers in words, "fenced" wraps its JSON in a code fence,
// "extra" adds a field; anything else gets the strict JSON answer that the two
// memories contradict (whatever the built-in judge would say).
type judgeServer struct {
	*httptest.Server
	asked atomic.Int64
}

const judgeKey = "test-judge-key"

func newJudgeServer(t *testing.T) *judgeServer {
	t.Helper()
	js := &judgeServer{}
	js.Server = httptest.NewServer(http.HandlerFunc(js.answer))
	t.Cleanup(js.Close)
	return js
}

func (js *judgeServer) answer(w http.ResponseWriter, r *http.Request) {
	js.asked.Add(1)
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role, Content string
		} `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+judgeKey ||
		json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "judge-1" || len(req.Messages) != 2 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	user := req.Messages[1].Content
	_, b, _ := strings.Cut(user, "Memory B")
	content := `{"contradicts": true, "reason": "the server's policy says so"}`
	switch {
	case strings.Contains(b, "broken"):
		http.Error(w, `{"error":{"message":"model overloaded"}}`, http.StatusInternalServerError)
		return
	case strings.Contains(b, "slow"):
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
			return
		}
	case strings.Contains(b, "prose"):
		content = "Yes, these two memories contradict each other."
	case strings.Contains(b, "fenced"):
		content = "```json\n" + content + "\n```"
	case strings.Contains(b, "extra"):
		content = `{"contradicts": true, "reason": "x", "confidence": 0.9}`
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": content}}},
	})
}

func newTestJudge(t *testing.T, url string) *memory.OpenAIJudge {
	t.Helper()
	t.Setenv("SPELUNK_JUDGE_API_KEY", judgeKey)
	j, err := memory.NewOpenAIJudge(memory.OpenAIJudgeConfig{URL: url, Model: "judge-1", Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestOpenAIJudgeFallsBack: the model's strict answer is used; a 500, an answer
// past the timeout, prose, fenced JSON, an extra field and an unreachable server
// each fall back to the built-in judge, which says so in the reason.
func TestOpenAIJudgeFallsBack(t *testing.T) {
	js := newJudgeServer(t)
	// The built-in judge reads a narrower subject here: no contradiction.
	a := memory.Claim{Kind: memory.KindFact, Text: "Logs are kept for 30 days."}
	tests := []struct {
		name, b     string
		contradicts bool
		reason      string
	}{
		{"model answer used", "Audit logs are kept for one year.", true, "model judge judge-1: the server's policy says so"},
		{"HTTP 500", "Audit logs are kept for one year (broken).", false, "HTTP 500: model overloaded"},
		{"past the timeout", "Audit logs are kept for one year (slow).", false, "no answer within 200ms"},
		{"prose", "Audit logs are kept for one year (prose).", false, "not the JSON object asked for"},
		{"fenced JSON", "Audit logs are kept for one year (fenced).", false, "not the JSON object asked for"},
		{"extra field", "Audit logs are kept for one year (extra).", false, `unknown field "confidence"`},
		// The fallback's own verdict stands: here it finds different values.
		{"fallback verdict", "Logs are kept for 90 days (broken).", true, "different duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newTestJudge(t, js.URL) // a fresh judge: no cooldown from another case
			start := time.Now()
			v, err := j.Judge(context.Background(), a, memory.Claim{Kind: memory.KindFact, Text: tt.b})
			if err != nil {
				t.Fatal(err)
			}
			if v.Contradicts != tt.contradicts || !strings.Contains(v.Reason, tt.reason) {
				t.Fatalf("verdict %+v, want contradicts=%v with %q in the reason", v, tt.contradicts, tt.reason)
			}
			if fellBack := strings.HasPrefix(v.Reason, "built-in judge (model judge failed: "); fellBack != (tt.name != "model answer used") {
				t.Fatalf("reason %q: fallback not recorded as expected", v.Reason)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("took %s: the timeout did not hold", d)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		v, err := newTestJudge(t, dead.URL).Judge(context.Background(), a, memory.Claim{Kind: memory.KindFact, Text: "Logs are kept for 90 days."})
		if err != nil || !v.Contradicts || !strings.HasPrefix(v.Reason, "built-in judge (model judge failed: ") {
			t.Fatalf("verdict %+v, %v: want the built-in judge's contradiction", v, err)
		}
	})
}

// TestOpenAIJudgeCooldown: after the server fails to answer in time, the next
// questions go straight to the built-in judge (no second wait), saying why; a
// malformed answer is the answer's fault and starts no cooldown.
func TestOpenAIJudgeCooldown(t *testing.T) {
	js := newJudgeServer(t)
	j := newTestJudge(t, js.URL)
	a := memory.Claim{Kind: memory.KindFact, Text: "Logs are kept for 30 days."}
	slow := memory.Claim{Kind: memory.KindFact, Text: "Audit logs are kept for one year (slow)."}
	if v, _ := j.Judge(context.Background(), a, slow); !strings.Contains(v.Reason, "no answer within") {
		t.Fatalf("first question: %q, want a timeout", v.Reason)
	}
	start := time.Now()
	v, err := j.Judge(context.Background(), a, slow)
	if err != nil || !strings.Contains(v.Reason, "skipped until") || !strings.Contains(v.Reason, "no answer within") {
		t.Fatalf("second question: %+v, %v: want the model skipped, with the first failure as the cause", v, err)
	}
	if d := time.Since(start); d > 100*time.Millisecond || js.asked.Load() != 1 {
		t.Fatalf("second question took %s, server asked %d times: want no second request", d, js.asked.Load())
	}

	js2 := newJudgeServer(t)
	j2 := newTestJudge(t, js2.URL)
	prose := memory.Claim{Kind: memory.KindFact, Text: "Audit logs are kept for one year (prose)."}
	for range 2 {
		if v, _ := j2.Judge(context.Background(), a, prose); !strings.Contains(v.Reason, "not the JSON object") {
			t.Fatalf("prose answer: %q", v.Reason)
		}
	}
	if n := js2.asked.Load(); n != 2 {
		t.Fatalf("server asked %d times, want 2: a malformed answer must not start the cooldown", n)
	}
}

func TestNewOpenAIJudgeRefusesBadConfig(t *testing.T) {
	t.Setenv("SPELUNK_JUDGE_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	for name, cfg := range map[string]memory.OpenAIJudgeConfig{
		"no URL":             {Model: "m"},
		"no model":           {URL: "http://127.0.0.1:1"},
		"not http":           {URL: "ftp://example.com", Model: "m"},
		"openai without key": {URL: "https://api.openai.com", Model: "gpt-4o-mini"},
	} {
		if _, err := memory.NewOpenAIJudge(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	j, err := memory.NewOpenAIJudge(memory.OpenAIJudgeConfig{URL: "http://127.0.0.1:8000/v1/", Model: "m"})
	if err != nil || j.Endpoint() != "http://127.0.0.1:8000/v1/chat/completions" {
		t.Fatalf("endpoint %v, %v", j, err)
	}
}

// TestStoreAsksModelJudgeOnlyPastTheGate: through Store.Add, the model judge is
// asked about the similar pair only (an unrelated memory is never sent), and its
// verdict opens the conflict with its reason.
func TestStoreAsksModelJudgeOnlyPastTheGate(t *testing.T) {
	db := pgtest.Open(t)
	js := newJudgeServer(t)
	s := newProject(t, db, memory.Options{Judge: newTestJudge(t, js.URL)})
	mustAdd(t, s, memory.KindFact, "agent-a", "Logs are kept for 30 days.")
	mustAdd(t, s, memory.KindFact, "agent-b", "Release notes are drafted by the product team on Fridays.")
	if n := js.asked.Load(); n != 0 {
		t.Fatalf("the judge was asked %d times about an unrelated memory", n)
	}
	b := mustAdd(t, s, memory.KindFact, "agent-b", "Audit logs are kept for one year.")
	if js.asked.Load() != 1 || b.ConflictID == "" {
		t.Fatalf("asked %d times, conflict %q: want one question and a conflict", js.asked.Load(), b.ConflictID)
	}
	c, err := s.Conflict(context.Background(), b.ConflictID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Reason, "model judge judge-1") {
		t.Fatalf("conflict reason %q, want the model's", c.Reason)
	}
}
