package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// ledgerRepo is a one-file git repository named ledger, much smaller than the fixture.
func ledgerRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ledger")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package ledger\n\n// RefundLedger records every refund once.\nfunc RefundLedger(refund int) int { return refund }\n"
	if err := os.WriteFile(filepath.Join(dir, "ledger.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	indextest.Git(t, dir, "init", "-q", "-b", "main")
	indextest.Git(t, dir, "add", "-A")
	indextest.Git(t, dir, "commit", "-q", "-m", "ledger")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestSearchSeveralRepos: spelunk search --repo A --repo B and --all rank both
// repositories in one list, each result naming its repository, the small one not
// drowned; commands that take one repository refuse several.
func TestSearchSeveralRepos(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	shop, ledger := indextest.Repo(t), ledgerRepo(t)
	for _, r := range []string{shop, ledger} {
		if code, _, errOut := spelunk(t, "index", r); code != 0 {
			t.Fatalf("index %s: %s", r, errOut)
		}
	}
	for _, args := range [][]string{{"--repo", shop, "--repo", ledger}, {"--all"}} {
		code, out, errOut := spelunk(t, append([]string{"search", "refund", "--json", "--limit", "10"}, args...)...)
		if code != 0 {
			t.Fatalf("search %v: %d %s", args, code, errOut)
		}
		var resp multiResponse
		if err := json.Unmarshal([]byte(out), &resp); err != nil {
			t.Fatalf("search %v --json: %v\n%s", args, err, out)
		}
		first := map[string]int{}
		for i, r := range resp.Results {
			if _, ok := first[r.Repository]; !ok {
				first[r.Repository] = i
			}
			if r.Rank != i+1 {
				t.Errorf("%v: result %d has rank %d", args, i, r.Rank)
			}
		}
		if at, ok := first["ledger"]; !ok || at > 1 || len(resp.Results) != 10 {
			t.Errorf("%v: ledger first at %d (ok %v) of %d results, per repository %v", args, at, ok, len(resp.Results), first)
		}
		if _, ok := first["shop"]; !ok {
			t.Errorf("%v: no result from shop", args)
		}
	}
	code, out, errOut := spelunk(t, "search", "refund", "--repo", shop, "--repo", ledger, "--files")
	if code != 0 || !strings.Contains(out, "[ledger] ledger.go") || !strings.Contains(out, "across 2 repositories") {
		t.Errorf("search --files over two: %d %s %s", code, out, errOut)
	}
	// repo: chooses among the tenant's indexed repositories from anywhere: one
	// chosen answers as a search of that one does; none chosen names them.
	code, out, errOut = spelunk(t, "search", "refund repo:ledger", "--json")
	var one struct {
		Results []struct{ Path string } `json:"results"`
		Filter  map[string][]string     `json:"filter"`
	}
	if err := json.Unmarshal([]byte(out), &one); code != 0 || err != nil || len(one.Results) == 0 {
		t.Fatalf("search repo:ledger: %d %v %s %s", code, err, out, errOut)
	}
	for _, r := range one.Results {
		if r.Path != "ledger.go" {
			t.Errorf("repo:ledger returned %s", r.Path)
		}
	}
	if got := one.Filter["repos"]; len(got) != 1 || got[0] != "ledger" {
		t.Errorf("repo:ledger not shown in the answer's filter: %v", one.Filter)
	}
	code, out, errOut = spelunk(t, "search", "refund -repo:ledger", "--all", "--json", "--limit", "5")
	one.Results = nil
	if err := json.Unmarshal([]byte(out), &one); code != 0 || err != nil || len(one.Results) == 0 {
		t.Fatalf("search -repo:ledger --all: %d %v %s", code, err, errOut)
	}
	for _, r := range one.Results {
		if r.Path == "ledger.go" {
			t.Errorf("-repo:ledger returned %s", r.Path)
		}
	}
	code, _, errOut = spelunk(t, "search", "refund repo:nosuch")
	if code != 2 || !strings.Contains(errOut, "repo:nosuch matches none") || !strings.Contains(errOut, "ledger") {
		t.Errorf("repo:nosuch: exit %d %q, want 2 naming the repositories", code, errOut)
	}
	if code, out, errOut := spelunk(t, "mcp", "--print-tool-hashes", "--tools", "admin", "--allow-resolve"); code != 0 || strings.Count(out, "\n") != 2 ||
		!strings.Contains(out, "  index_file\n") || !strings.Contains(out, "  resolve_conflict\n") {
		t.Errorf("--print-tool-hashes --tools admin: %d %q %s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--repo", shop, "--repo", ledger}, "only spelunk mcp, spelunk search and the UI (bare spelunk) take several"},
		{[]string{"search", "x", "--all", "--repo", shop}, "not both"},
		{[]string{"mcp", "--tools", "code,bogus"}, "unknown tool group"},
		{[]string{"mcp", "--repos-from", filepath.Join(t.TempDir(), "missing")}, "--repos-from"},
	} {
		if code, _, errOut := spelunk(t, c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestMCPSeveralReposStdio: the real binary bound to --repo and --repos-from,
// serving the code tools only, searches both repositories in one call.
func TestMCPSeveralReposStdio(t *testing.T) {
	f := newMCPFixture(t)
	ledger := ledgerRepo(t)
	idx := f.command()
	idx.Args = []string{f.bin, "index", ledger, "--db", f.url}
	if out, err := idx.CombinedOutput(); err != nil {
		t.Fatalf("index ledger: %v\n%s", err, out)
	}
	list := filepath.Join(t.TempDir(), "repos.txt")
	if err := os.WriteFile(list, []byte("# served beside the fixture\n"+ledger+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := f.command("--repos-from", list, "--tools", "code", "--no-watch")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("--tools code: %v %d tools", err, len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "refund"}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("search_code: %v %+v", err, res)
	}
	var out struct {
		Results []struct {
			Repository string `json:"repository"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range out.Results {
		seen[r.Repository] = true
	}
	if !seen["ledger"] || !seen["shop"] || len(seen) != 2 {
		t.Errorf("search_code over --repo and --repos-from: repositories %v", seen)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "refund repo:ledger"}})
	if err != nil || res.IsError {
		t.Fatalf("search_code repo:ledger: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, `"shop"`) || !strings.Contains(text, "ledger.go") || !strings.Contains(text, `"filter":"repo:ledger"`) {
		t.Errorf("search_code repo:ledger searched beyond ledger or hid the filter: %s", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_code", Arguments: map[string]any{"query": "refund repo:nosuch"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "matches none of the repositories searched (shop, ledger)") {
		t.Errorf("search_code repo:nosuch: %v %+v", err, res)
	}
}

// BenchmarkMCPSearchCodeStdioTwoRepos is BenchmarkMCPSearchCodeStdio on a server
// bound to two fixture copies: every call searches both (at once) and interleaves.
func BenchmarkMCPSearchCodeStdioTwoRepos(b *testing.B) {
	f := newMCPFixture(b)
	second := indextest.Repo(b)
	idx := exec.Command(f.bin, "index", second, "--db", f.url)
	idx.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash")
	if out, err := idx.CombinedOutput(); err != nil {
		b.Fatalf("index %s: %v\n%s", second, err, out)
	}
	cmd := f.command("--repo", second, "--no-watch")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchSearchStdio(b, cs, fixtureQueries)
}
