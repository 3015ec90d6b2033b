package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestSeveralRepositoriesNameTheIncomplete: search_code over two served
// repositories, one of whose last run did not finish, answers from both and
// names that one in index_incomplete ("NAME: WHY"), never the complete one
// (issue 36).
func TestSeveralRepositoriesNameTheIncomplete(t *testing.T) {
	db := pgtest.OpenTenant(t, pgtest.URL(t), pg.DefaultTenant)
	shop := indexRepo(t, db, indextest.Repo(t))
	ledger := indexRepo(t, db, smallRepo(t, "ledger", map[string]string{
		"ledger.go": "package ledger\n\n// RefundLedger records every refund once.\nfunc RefundLedger(refund int) int { return refund }\n",
	}))
	cs := connect(t, mcpserver.New(mcpserver.Config{DB: db, Repos: []mcpserver.Repo{{ID: shop.id, Root: shop.root}, {ID: ledger.id, Root: ledger.root}},
		Tenant: pg.DefaultTenant, Embedder: indextest.Embedder()}))
	if out := call[map[string]any](t, cs, "search_code", map[string]any{"query": "refund"}); out["index_incomplete"] != nil {
		t.Fatalf("both complete: index_incomplete %v", out["index_incomplete"])
	}
	if _, err := db.Pool.Exec(context.Background(), `UPDATE repositories SET indexing_started = now() WHERE id = $1`, ledger.id); err != nil {
		t.Fatal(err)
	}
	out := call[map[string]any](t, cs, "search_code", map[string]any{"query": "refund"})
	w, _ := out["index_incomplete"].(string)
	if !strings.HasPrefix(w, "ledger: index incomplete: the last run") || strings.Contains(w, "shop") {
		t.Errorf("ledger incomplete: index_incomplete %q", w)
	}
	seen := map[string]bool{}
	for _, r := range out["results"].([]any) {
		seen[r.(map[string]any)["repository"].(string)] = true
	}
	if !seen["shop"] || !seen["ledger"] {
		t.Errorf("ledger incomplete: results from %v, want both", seen)
	}
	one := call[map[string]any](t, cs, "search_code", map[string]any{"query": "refund", "repository": "ledger"})
	if w, _ := one["index_incomplete"].(string); !strings.HasPrefix(w, "index incomplete: the last run") {
		t.Errorf("ledger named: index_incomplete %q", w)
	}
}
