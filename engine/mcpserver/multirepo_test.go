package mcpserver_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// smallRepo is a git repository named name holding files (path -> content).
func smallRepo(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for p, c := range files {
		writeFile(t, dir, p, c)
	}
	indextest.Git(t, dir, "init", "-q", "-b", "main")
	indextest.Git(t, dir, "add", "-A")
	indextest.Git(t, dir, "commit", "-q", "-m", name)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

type indexedRepo struct {
	root string
	id   int64
}

func indexRepo(t *testing.T, db *pg.DB, root string) indexedRepo {
	t.Helper()
	sum, err := index.New(db, indextest.Embedder()).Index(context.Background(), root, index.Options{})
	if err != nil {
		t.Fatalf("index %s: %v", root, err)
	}
	return indexedRepo{root, sum.RepositoryID}
}

// TestSeveralRepositories binds a server to two of three indexed repositories of
// very different sizes: search_code searches both in one call, each result
// labelled, and the small one is not drowned; the third is refused by name, by
// path, by id, and by a path inside it.
func TestSeveralRepositories(t *testing.T) {
	db := pgtest.OpenTenant(t, pgtest.URL(t), pg.DefaultTenant)

	// big: the fixture and 40 files of refund code, every one a match for "refund".
	bigRoot := indextest.Repo(t)
	for f := range 40 {
		var b strings.Builder
		fmt.Fprintf(&b, "package refunds%d\n\n", f)
		for i := range 8 {
			fmt.Fprintf(&b, "// RefundStep%d_%d applies one refund rule to the refund ledger.\nfunc RefundStep%d_%d(refund int) int { return refund + %d }\n\n", f, i, f, i, i)
		}
		writeFile(t, bigRoot, fmt.Sprintf("refunds/r%02d/steps.go", f), b.String())
	}
	indextest.Git(t, bigRoot, "add", "-A")
	indextest.Git(t, bigRoot, "commit", "-q", "-m", "refund steps")
	big := indexRepo(t, db, bigRoot)
	small := indexRepo(t, db, smallRepo(t, "ledger", map[string]string{
		"ledger.go": "package ledger\n\n// RefundLedger records every refund once.\nfunc RefundLedger(refund int) int { return refund }\n",
	}))
	third := indexRepo(t, db, smallRepo(t, "secret", map[string]string{
		"vault/vault.go": "package vault\n\n// RefundVault is not served.\nfunc RefundVault(refund int) int { return refund }\n",
	}))

	srv := mcpserver.New(mcpserver.Config{DB: db, Repos: []mcpserver.Repo{{ID: big.id, Root: big.root}, {ID: small.id, Root: small.root}},
		Tenant: pg.DefaultTenant, Embedder: indextest.Embedder()})
	cs := connect(t, srv)

	out := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "refund", "limit": 10})
	byRepo := map[string]int{}
	smallAt := -1
	for i, r := range out.Results {
		byRepo[r.Repository]++
		if r.Repository == "ledger" && smallAt < 0 {
			smallAt = i
		}
		if r.Repository != "shop" && r.Repository != "ledger" {
			t.Errorf("result %d names repository %q, want shop or ledger: %+v", i, r.Repository, r)
		}
		if strings.Contains(r.Name, "RefundVault") {
			t.Errorf("search reached the repository not served: %+v", r)
		}
	}
	// Fair fusion: the small repository's best result is among the first two.
	if smallAt < 0 || smallAt > 1 || byRepo["shop"] == 0 {
		t.Errorf("small repository drowned: first at %d, per repository %v: %+v", smallAt, byRepo, out.Results)
	}
	// Named: that repository only; by name, by path, by id, by a path inside it.
	for _, arg := range []string{"ledger", small.root, itoa(int(small.id)), filepath.Join(small.root, "ledger.go")} {
		one := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "refund", "repository": arg})
		if len(one.Results) == 0 {
			t.Errorf("repository %q: no results", arg)
		}
		for _, r := range one.Results {
			if r.Repository != "ledger" {
				t.Errorf("repository %q: result from %q", arg, r.Repository)
			}
		}
	}
	// Other tools: the first repository by default, another when named.
	if got := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "RefundLedger"}); len(got.Symbols) != 0 {
		t.Errorf("search_symbols without repository searched beyond the first: %+v", got.Symbols)
	}
	if got := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "RefundLedger", "repository": "ledger"}); len(got.Symbols) != 1 {
		t.Errorf("search_symbols in ledger: %+v", got.Symbols)
	}
	rd := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"name": "RefundLedger", "repository": "ledger"})
	wantContains(t, "read_symbol in ledger", rd.Content, "func RefundLedger")
	mem := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The ledger repository never deletes rows.", "repository": "ledger"})
	if got := call[mcpserver.RecallOut](t, cs, "recall", map[string]any{"query": "ledger deletes rows"}); len(got.Hits) != 0 && got.Hits[0].ID == mem.ID {
		t.Errorf("a memory of ledger recalled in the first repository: %+v", got.Hits)
	}

	// The third, by name, path, id, and a path inside it: refused with the list.
	for _, arg := range []string{"secret", third.root, itoa(int(third.id)), filepath.Join(third.root, "vault/vault.go")} {
		for tool, args := range map[string]map[string]any{"search_code": {"query": "refund"}, "read_symbol": {"name": "RefundVault"},
			"recall": {"query": "refund"}, "find_callers": {"name": "RefundVault"}, "index_file": {"path": "vault/vault.go"}} {
			args["repository"] = arg
			msg := callErr(t, cs, tool, args)
			wantContains(t, tool+" repository "+arg, msg, "not served here", "shop", "ledger", big.root)
		}
	}
	// A path argument inside the third is outside every served repository.
	wantContains(t, "path in the third", callErr(t, cs, "read_symbol", map[string]any{"path": filepath.Join(third.root, "vault/vault.go"), "start_line": 4}), "outside the repository")
	wantContains(t, "index_file in the third", callErr(t, cs, "index_file", map[string]any{"path": filepath.Join(third.root, "vault/vault.go"), "repository": "ledger"}), "outside the repository")

	// A served repository never indexed is skipped by the search and named.
	fresh := smallRepo(t, "fresh", map[string]string{"a.go": "package a\n\nfunc RefundFresh() {}\n"})
	rec, err := db.EnsureRepository(context.Background(), fresh)
	if err != nil {
		t.Fatal(err)
	}
	cs2 := connect(t, mcpserver.New(mcpserver.Config{DB: db, Repos: []mcpserver.Repo{{ID: small.id, Root: small.root}, {ID: rec.ID, Root: fresh}},
		Tenant: pg.DefaultTenant, Embedder: indextest.Embedder()}))
	part := call[mcpserver.SearchCodeOut](t, cs2, "search_code", map[string]any{"query": "refund"})
	if len(part.Results) == 0 || len(part.NotIndexed) != 1 || part.NotIndexed[0] != "fresh" {
		t.Errorf("one of two indexed: %d results, not_indexed %v", len(part.Results), part.NotIndexed)
	}
	wantContains(t, "only the unindexed one", callErr(t, cs2, "search_code", map[string]any{"query": "refund", "repository": "fresh"}), "not indexed")
}

// TestToolGroups: --tools serves only the groups asked for; an unknown group is refused.
func TestToolGroups(t *testing.T) {
	for _, c := range []struct {
		groups []string
		want   int
	}{{[]string{mcpserver.GroupCode}, 7}, {[]string{mcpserver.GroupMemory}, 7}, {[]string{mcpserver.GroupAdmin}, 1},
		{[]string{mcpserver.GroupCode, mcpserver.GroupAdmin}, 8}, {nil, len(allTools)}} {
		res, err := connect(t, mcpserver.New(mcpserver.Config{Groups: c.groups})).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != c.want {
			t.Errorf("groups %v: %d tools, want %d", c.groups, len(res.Tools), c.want)
		}
	}
	if err := mcpserver.CheckGroups([]string{"code", "memroy"}); err == nil || !strings.Contains(err.Error(), "code, memory, admin") {
		t.Errorf("unknown group: %v", err)
	}
}
