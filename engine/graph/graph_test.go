package graph_test

import (
	"context"
	"sort"
	"testing"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestWalks(t *testing.T) {
	fx := indextest.Fixture(t)
	ctx := context.Background()
	id := func(name, path string) int64 {
		t.Helper()
		syms, err := symbols.Find(ctx, fx.DB, fx.RepoID, name, path)
		if err != nil {
			t.Fatal(err)
		}
		return syms[0].ID
	}
	names := func(w graph.Walk) []string {
		var out []string
		for _, n := range w.Nodes {
			out = append(out, n.Path+":"+n.QualifiedName)
		}
		sort.Strings(out)
		return out
	}

	w, err := graph.Symbols(ctx, fx.DB, fx.RepoID, []int64{id("IssueRefund", "billing/refund.go")}, graph.Callees, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := names(w)
	for _, want := range []string{"billing/refund.go:Invoice.IsEligibleForRefund", "billing/invoice.go:Invoice.Total", "internal/retry/backoff.go:retry.Do"} {
		if !contains(got, want) {
			t.Errorf("callees of IssueRefund %v lack %s", got, want)
		}
	}
	if len(w.Unresolved) == 0 {
		t.Error("calls into fmt should be listed as unresolved")
	}

	// Two hops: Backoff <- Do <- IssueRefund.
	w, err = graph.Symbols(ctx, fx.DB, fx.RepoID, []int64{id("Backoff", "internal/retry/backoff.go")}, graph.Callers, 2)
	if err != nil {
		t.Fatal(err)
	}
	depth := map[string]int{}
	for _, n := range w.Nodes {
		depth[n.QualifiedName] = n.Depth
	}
	if depth["retry.Do"] != 1 || depth["billing.IssueRefund"] != 2 {
		t.Fatalf("callers of Backoff by depth: %v", depth)
	}

	// A cycle never loops: walking callees from every symbol at max depth ends.
	all, err := symbols.List(ctx, fx.DB, fx.RepoID, symbols.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, s := range all {
		ids = append(ids, s.ID)
	}
	w, err = graph.Symbols(ctx, fx.DB, fx.RepoID, ids, graph.Callees, graph.MaxDepth)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, n := range w.Nodes {
		if seen[n.ID] {
			t.Fatalf("%s visited twice", n.QualifiedName)
		}
		seen[n.ID] = true
	}
}

func TestImports(t *testing.T) {
	fx := indextest.Fixture(t)
	ctx := context.Background()
	links, err := graph.Imports(ctx, fx.DB, fx.RepoID, "js/lib/response.js", 1)
	if err != nil {
		t.Fatal(err)
	}
	var files, modules []string
	for _, l := range links {
		if l.Path != "" {
			files = append(files, l.Path)
		} else {
			modules = append(modules, l.Module)
		}
	}
	if !contains(files, "js/lib/money.js") || !contains(modules, "http") {
		t.Fatalf("imports of response.js: files %v modules %v", files, modules)
	}

	for _, tt := range []struct{ target, want string }{
		{"js/lib/ratelimit.js", "js/lib/app.js"},
		{"events", "js/lib/app.js"},
		{"billing", "cart/cart.go"},            // a Go package directory
		{"billing/invoice.go", "cart/cart.go"}, // a file of that package
		{"py/shop/models.py", "py/shop/billing/refunds.py"},
		{"ts/src/types.ts", "ts/src/gateway.ts"},
	} {
		links, err := graph.Importers(ctx, fx.DB, fx.RepoID, tt.target, 1, graph.TestsInclude)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range links {
			got = append(got, l.Path)
		}
		if !contains(got, tt.want) {
			t.Errorf("importers of %s = %v, want %s among them", tt.target, got, tt.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
