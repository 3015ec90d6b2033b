package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPDamagedCache: spelunk mcp started over a cache file with garbage at
// its start (issue 36, item 8) serves its code tools, sets the file aside,
// rebuilds the cache from the core and says so in its instructions.
func TestMCPDamagedCache(t *testing.T) {
	f := newMCPFixture(t)
	ctx := context.Background()
	cache := filepath.Join(t.TempDir(), "memory.db")
	connect := func() *mcp.ClientSession {
		t.Helper()
		cmd := exec.Command(f.bin, "mcp", "--repo", f.repo, "--db", f.url, "--cache", cache, "--no-watch")
		cmd.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash")
		cmd.Stderr = os.Stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "damaged-cache-test", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("start spelunk mcp --cache %s: %v", cache, err)
		}
		return cs
	}
	var first struct {
		ID string `json:"id"`
	}
	cs := connect()
	callTool(t, cs, "remember", map[string]any{"text": "the invoice export runs nightly at two"}, &first)
	cs.Close()

	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, append([]byte(strings.Repeat("garbage!", 64)), b[min(512, len(b)):]...), 0o600); err != nil {
		t.Fatal(err)
	}
	cs = connect()
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "refund"}}); err != nil {
		t.Errorf("search_code over a damaged cache: %v", err)
	}
	if in := cs.InitializeResult().Instructions; !strings.Contains(in, "set aside") {
		t.Errorf("instructions %q do not say the damaged cache was set aside", in)
	}
	if aside, _ := filepath.Glob(cache + ".corrupt-*"); len(aside) == 0 {
		t.Error("the damaged cache was not kept beside the new one")
	}
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
		t.Errorf("briefing %+v after the rebuild lacks %s", brief.Memories, first.ID)
	}
}
