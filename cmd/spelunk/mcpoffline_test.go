package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestMCPStartsWithoutTheDatabase: spelunk mcp started while its database is
// unreachable (a laptop offline) serves memory from the project's local cache:
// what an earlier session remembered is in the briefing, a new memory is
// stored and queued, and the code tools say why they cannot answer. The next
// start with the database up pushes the queued memory to the core, once.
func TestMCPStartsWithoutTheDatabase(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	cache := filepath.Join(t.TempDir(), "memory.db")
	connect := func(url string) *mcp.ClientSession {
		t.Helper()
		cmd := exec.Command(f.bin, "mcp", "--repo", f.repo, "--db", url, "--cache", cache, "--no-watch")
		cmd.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash")
		cmd.Stderr = os.Stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "offline-test", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("start spelunk mcp --db %s: %v", url, err)
		}
		return cs
	}
	var first struct {
		ID string `json:"id"`
	}
	cs := connect(f.url)
	callTool(t, cs, "remember", map[string]any{"text": "the invoice export runs nightly at two"}, &first)
	cs.Close()

	// No server listens on a socket in an empty directory.
	down := "postgres://postgres@/postgres?host=" + t.TempDir() + "&port=5432&sslmode=disable"
	cs = connect(down)
	var brief struct {
		Memories []struct {
			ID string `json:"id"`
		} `json:"memories"`
	}
	callTool(t, cs, "briefing", map[string]any{}, &brief)
	found := false
	for _, m := range brief.Memories {
		found = found || m.ID == first.ID
	}
	if !found {
		t.Errorf("offline briefing %+v lacks the memory remembered online (%s)", brief.Memories, first.ID)
	}
	const offline = "refunds above the order total are refused"
	var added struct {
		ID     string `json:"id"`
		Queued bool   `json:"queued"`
	}
	callTool(t, cs, "remember", map[string]any{"text": offline}, &added)
	if added.ID == "" || !added.Queued {
		t.Errorf("offline remember: %+v, want an id and queued", added)
	}
	// The code tools, which would refuse every call, are not listed; the
	// instructions say why (issue 38).
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "refund"}}); err == nil ||
		!strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("search_code offline: %v, want an unknown tool", err)
	}
	if tools, err := cs.ListTools(ctx, nil); err != nil || len(tools.Tools) != 7 {
		t.Errorf("tools offline: %v %v, want the 7 memory tools", err, tools)
	}
	if in := cs.InitializeResult().Instructions; !strings.Contains(in, "unreachable") {
		t.Errorf("instructions offline %q do not say the database is unreachable", in)
	}
	cs.Close()

	cs = connect(f.url) // the start syncs the cache before serving
	cs.Close()
	db, err := pg.Open(ctx, pg.Options{URL: f.url, Tenant: pg.DefaultTenant})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE content = $1`, offline).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the core holds the offline memory %d times (err %v), want once", n, err)
	}
}
