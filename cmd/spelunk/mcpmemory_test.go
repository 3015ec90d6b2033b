package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestMCPMemorySeveralReposStdio: the real binary bound to two repositories
// serves each one's memory from that project's own edge cache: a memory
// remembered for ledger is recalled for ledger, not for shop (named or by
// default), and it sits in ledger's cache file only.
func TestMCPMemorySeveralReposStdio(t *testing.T) {
	f := newMCPFixture(t)
	ledger := ledgerRepo(t)
	idx := f.command()
	idx.Args = []string{f.bin, "index", ledger, "--db", f.url}
	if out, err := idx.CombinedOutput(); err != nil {
		t.Fatalf("index ledger: %v\n%s", err, out)
	}
	// The tests' default is SPELUNK_CACHE=off (main_test.go): here the default
	// rule picks one file per project under this cache directory.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("SPELUNK_CACHE", "")
	cmd := f.command("--repo", ledger, "--tools", "memory", "--no-watch")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := "ledger refunds are written once per invoice, never twice"
	var added struct {
		ID string `json:"id"`
	}
	callTool(t, cs, "remember", map[string]any{"repository": "ledger", "text": text}, &added)
	if added.ID == "" {
		t.Fatal("remember for ledger: no id")
	}
	for _, c := range []struct {
		repository string
		want       bool
	}{{"ledger", true}, {ledger, true}, {"shop", false}, {"", false}} {
		args := map[string]any{"query": "ledger refunds written once per invoice"}
		if c.repository != "" {
			args["repository"] = c.repository
		}
		var out recallHits
		callTool(t, cs, "recall", args, &out)
		if got := out.has(added.ID); got != c.want {
			t.Errorf("recall in %q: found the ledger memory %v, want %v (%+v)", c.repository, got, c.want, out.Hits)
		}
	}
	cs.Close() // the server stops its caches' loops and closes the files
	ctx := context.Background()
	for _, c := range []struct {
		root string
		want bool
	}{{ledger, true}, {resolved(t, f.repo), false}} {
		path, err := memcache.DefaultPath(f.url, pg.DefaultTenant, c.root)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("no memory cache for %s: %v", c.root, err)
		}
		cache, err := memcache.Open(ctx, memcache.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		m, err := cache.Memory(ctx, added.ID)
		cache.Close()
		if found := err == nil && strings.Contains(m.Content, "once per invoice"); found != c.want {
			t.Errorf("cache of %s holds the ledger memory: %v (%v), want %v", filepath.Base(c.root), found, err, c.want)
		}
		if !c.want && !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("cache of %s: %v, want not found", filepath.Base(c.root), err)
		}
	}
	// One cache file cannot hold two projects: an explicit one is refused.
	code, _, errOut := spelunk(t, "mcp", "--repo", f.repo, "--repo", ledger, "--db", f.url, "--cache", filepath.Join(t.TempDir(), "one.db"))
	if code != 2 || !strings.Contains(errOut, "one project's memory cache") {
		t.Errorf("mcp with one --cache for two repositories: exit %d %s", code, errOut)
	}
}

// recallHits is the part of recall's result the test reads.
type recallHits struct {
	Hits []struct {
		ID string `json:"id"`
	} `json:"hits"`
}

func (o recallHits) has(id string) bool {
	for _, h := range o.Hits {
		if h.ID == id {
			return true
		}
	}
	return false
}

// callTool calls a tool over cs and decodes its one JSON text block into out.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s %v: %v %+v", name, args, err, res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, res.Content[0])
	}
	if err := json.Unmarshal([]byte(tc.Text), out); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, tc.Text)
	}
}

func resolved(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
