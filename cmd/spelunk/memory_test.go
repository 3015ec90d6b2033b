package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// memoryCLI runs the memory commands in-process on a root with the global flags
// and returns the exit code run() would give, stdout and stderr.
func memoryCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	g := &globals{cache: "off"} // the core's own paths; sync_test covers the cache
	root := &cobra.Command{Use: "spelunk", SilenceUsage: true, SilenceErrors: true}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&g.db, "db", "", "")
	pf.StringVar(&g.repo, "repo", "", "")
	pf.StringVar(&g.tenant, "tenant", "default", "")
	pf.BoolVar(&g.json, "json", false, "")
	g.embed.register(pf)
	root.AddCommand(newMemoryCmds(g)...)
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	code := 0
	if err != nil {
		stderr.WriteString("spelunk: " + err.Error() + "\n")
		code = 1
		var ue usageError
		if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
			code = 2
		}
	}
	return code, stdout.String(), stderr.String()
}

func TestMemoryCLI(t *testing.T) {
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	base := []string{"--db", pgtest.URL(t), "--repo", t.TempDir()}
	cli := func(t *testing.T, args ...string) (int, string, string) {
		t.Helper()
		return memoryCLI(t, append(append([]string{}, base...), args...)...)
	}
	mustCLI := func(t *testing.T, args ...string) string {
		t.Helper()
		code, out, errOut := cli(t, args...)
		if code != 0 {
			t.Fatalf("spelunk %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	type added struct {
		ID         string  `json:"id"`
		Status     string  `json:"status"`
		ConflictID *string `json:"conflict_id"`
	}
	add := func(t *testing.T, author, text string) added {
		t.Helper()
		var a added
		out := mustCLI(t, "memory", "add", "--json", "--kind", "fact", "--author", author, text)
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("memory add --json: %v: %q", err, out)
		}
		return a
	}

	first := add(t, "agent-a", "The API server listens on port 8080.")
	if first.Status != "ACTIVE" || first.ConflictID != nil {
		t.Fatalf("first memory: got %+v, want ACTIVE with conflict_id null", first)
	}
	second := add(t, "agent-b", "The API server listens on port 9090.")
	if second.Status != "DISPUTED" || second.ConflictID == nil {
		t.Fatalf("contradiction: got %+v, want DISPUTED with a conflict id", second)
	}
	cid := *second.ConflictID

	out := mustCLI(t, "memory", "add", "--kind", "rule", "--author", "agent-c", "Always squash commits when merging a pull request.")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || len(lines[0]) != 36 {
		t.Fatalf("memory add prints the id: got %q", out)
	}
	out = mustCLI(t, "memory", "add", "--kind", "fact", "--author", "agent-d", "The API server listens on port 7070.")
	if !strings.Contains(out, "DISPUTED: conflict "+cid) {
		t.Fatalf("memory add on a contradiction: got %q", out)
	}

	out = mustCLI(t, "conflicts", "list", "--json")
	var c struct {
		ID         string   `json:"id"`
		MemoryIDs  []string `json:"memory_ids"`
		Similarity float64  `json:"similarity"`
		Reason     string   `json:"reason"`
		Status     string   `json:"status"`
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 {
		t.Fatalf("conflicts list --json: want one line, got %q", out)
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.ID != cid || len(c.MemoryIDs) != 3 || c.Status != "open" || c.Reason == "" || c.Similarity <= 0 {
		t.Fatalf("conflicts list --json: %v %+v", err, c)
	}
	if out := mustCLI(t, "conflicts", "show", cid[:8]); !strings.Contains(out, "[a] "+first.ID) || !strings.Contains(out, "[c] ") {
		t.Fatalf("conflicts show: %q", out)
	}
	mustCLI(t, "conflicts", "resolve", cid[:8], "--keep", "b", "--note", "9090 since the proxy change", "--author", "alice")
	if out := mustCLI(t, "memory", "show", first.ID[:8]); !strings.Contains(out, "SUPERSEDED") || !strings.Contains(out, "resolve ") || !strings.Contains(out, "alice") {
		t.Fatalf("memory show after keep b: %q", out)
	}
	if code, _, errOut := cli(t, "conflicts", "resolve", cid, "--keep", "a"); code != 1 || !strings.Contains(errOut, "already resolved") {
		t.Fatalf("resolving twice: exit %d %q", code, errOut)
	}
	mustCLI(t, "conflicts", "undo", cid)
	if out := mustCLI(t, "memory", "list", "--status", "disputed"); strings.Count(out, "\n") != 3 {
		t.Fatalf("after undo: want 3 disputed memories, got %q", out)
	}
	// Only a person resolves a conflict: an agent author is refused, whole (issue 38).
	for _, args := range [][]string{
		{"memory", "invalidate", first.ID, "--reason", "port changed", "--author", "agent:claude"},
		{"memory", "supersede", first.ID, second.ID, "--author", "Agent:codex"},
	} {
		if code, _, errOut := cli(t, args...); code != 1 || !strings.Contains(errOut, "DISPUTED") || !strings.Contains(errOut, "spelunk conflicts resolve "+cid[:8]) {
			t.Fatalf("spelunk %v by an agent: exit %d %q, want refused with the conflict to resolve", args, code, errOut)
		}
	}
	t.Setenv("SPELUNK_AUTHOR", "agent:cursor")
	if code, _, errOut := cli(t, "memory", "invalidate", first.ID, "--reason", "x"); code != 1 || !strings.Contains(errOut, "only a person resolves") {
		t.Fatalf("invalidate with $SPELUNK_AUTHOR an agent: exit %d %q", code, errOut)
	}
	t.Setenv("SPELUNK_AUTHOR", "")
	if out := mustCLI(t, "memory", "list", "--status", "disputed"); strings.Count(out, "\n") != 3 {
		t.Fatalf("after the refusals: want 3 disputed memories, got %q", out)
	}
	mustCLI(t, "memory", "invalidate", first.ID, "--reason", "port changed", "--author", "bob")
	if code, _, errOut := cli(t, "memory", "supersede", first.ID, second.ID); code != 1 || !strings.Contains(errOut, "invalidated") {
		t.Fatalf("supersede an invalidated memory: exit %d %q", code, errOut)
	}

	mustCLI(t, "nugget", "set", "release", "2.4.0", "--author", "ci")
	mustCLI(t, "nugget", "set", "release", "2.4.1", "--author", "ci")
	if out := mustCLI(t, "nugget", "get", "release"); out != "2.4.1\n" {
		t.Fatalf("nugget get: %q", out)
	}
	if out := mustCLI(t, "nugget", "history", "release", "--json"); strings.Count(out, "\n") != 2 {
		t.Fatalf("nugget history --json: %q", out)
	}
	mustCLI(t, "state", "set", "--summary", "shipping 2.4", "--blockers", "flaky e2e, on CI", "--priorities", "memory", "--priorities", "TUI")
	if out := mustCLI(t, "state", "show"); !strings.Contains(out, "1. flaky e2e, on CI") || !strings.Contains(out, "2. TUI") {
		t.Fatalf("state show: %q", out)
	}

	out = mustCLI(t, "briefing", "--json", "--query", "which port does the API server use")
	var b struct {
		Memories      []map[string]any `json:"memories"`
		Nuggets       []map[string]any `json:"nuggets"`
		State         map[string]any   `json:"state"`
		OpenConflicts *int             `json:"open_conflicts"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil || len(b.Memories) == 0 || len(b.Nuggets) != 1 || b.State == nil || b.OpenConflicts == nil || *b.OpenConflicts != 1 {
		t.Fatalf("briefing --json: %v %s", err, out)
	}
	if out := mustCLI(t, "memory", "search", "squash commits"); !strings.Contains(out, "squash") {
		t.Fatalf("memory search: %q", out)
	}
}

func TestMemoryCLIErrors(t *testing.T) {
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	base := []string{"--db", pgtest.URL(t), "--repo", t.TempDir()}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no text", []string{"memory", "add", "--kind", "fact", "--author", "a"}, 2, "argument"},
		{"bad kind", []string{"memory", "add", "--kind", "gossip", "--author", "a", "x"}, 2, "--kind"},
		{"no author", []string{"memory", "add", "--kind", "fact", "x"}, 2, "--author"},
		{"empty text", []string{"memory", "add", "--kind", "fact", "--author", "a", ""}, 1, "empty"},
		{"1 MB text", []string{"memory", "add", "--kind", "fact", "--author", "a", strings.Repeat("y", 1<<20)}, 1, "65536 bytes"},
		{"unknown parent", []string{"memory", "add", "--kind", "fact", "--author", "a", "--parent", "12345678", "x"}, 1, "not found"},
		{"invalidate without reason", []string{"memory", "invalidate", "12345678"}, 2, "--reason"},
		{"unknown memory", []string{"memory", "show", "12345678"}, 1, "not found"},
		{"resolve without a decision", []string{"conflicts", "resolve", "12345678"}, 2, "exactly one"},
		{"resolve with two decisions", []string{"conflicts", "resolve", "12345678", "--keep", "a", "--merge", "x"}, 2, "exactly one"},
		{"unknown conflict", []string{"conflicts", "resolve", "12345678", "--keep", "both"}, 1, "not found"},
		{"bad status", []string{"conflicts", "list", "--status", "maybe"}, 2, "--status"},
		{"unknown flag", []string{"memory", "list", "--colour"}, 2, "unknown flag"},
		{"unknown subcommand", []string{"memory", "forget"}, 2, "unknown memory command"},
		{"no state", []string{"state", "show"}, 1, "no state"},
		{"missing nugget", []string{"nugget", "get", "nope"}, 1, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := memoryCLI(t, append(append([]string{}, base...), tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestMemoryCLIEmbedderDown: with the embedding server unreachable, memory add
// still records the memory, as PENDING_EMBEDDING.
func TestMemoryCLIEmbedderDown(t *testing.T) {
	t.Setenv("SPELUNK_EMBED_API_KEY", "test")
	code, out, errOut := memoryCLI(t, "--db", pgtest.URL(t), "--repo", t.TempDir(),
		"--embedder", "openai", "--embed-url", "http://127.0.0.1:9", "--embed-model", "m", "--embed-dims", "8",
		"memory", "add", "--json", "--kind", "fact", "--author", "a", "The API listens on port 8080.")
	var got struct {
		ID         string  `json:"id"`
		Status     string  `json:"status"`
		ConflictID *string `json:"conflict_id"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Status != "PENDING_EMBEDDING" || got.ConflictID != nil {
		t.Fatalf("exit %d, %q (%v), stderr %q: want PENDING_EMBEDDING", code, out, err, errOut)
	}
}
