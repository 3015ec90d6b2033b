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

// TestNotIndexedIsAnError: on a repository registered but never indexed, the code
// tools say what to run instead of answering with nothing; index_file is the way
// out, and afterwards they answer.
func TestNotIndexedIsAnError(t *testing.T) {
	ctx := context.Background()
	db := pgtest.OpenTenant(t, pgtest.URL(t), pg.DefaultTenant)
	root := indextest.Repo(t)
	repo, err := db.EnsureRepository(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(mcpserver.Config{DB: db, Root: root, RepoID: repo.ID, Tenant: pg.DefaultTenant, Embedder: indextest.Embedder()})
	cs := connect(t, srv)
	for _, cc := range codeCalls {
		if cc.tool == "index_file" {
			continue
		}
		wantContains(t, cc.tool+" before any index", callErr(t, cs, cc.tool, cc.args),
			"not indexed", "spelunk index "+root, "index_file")
	}
	// Memory needs no index.
	call[map[string]any](t, cs, "briefing", map[string]any{})

	ix := call[mcpserver.IndexFileOut](t, cs, "index_file", map[string]any{"path": "billing/refund.go"})
	if ix.Symbols == 0 || len(ix.Added) == 0 {
		t.Fatalf("index_file: no symbols: %+v", ix)
	}
	out := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund"})
	if len(out.Results) == 0 || baseName(out.Results[0].Name) != "IsEligibleForRefund" {
		t.Fatalf("search_code after index_file: %+v", out.Results)
	}
}

// TestIncompleteIndexSaysSo: after a run that stopped before it finished, the
// code tools still answer, each answer opening with index_incomplete; on a
// repository no run ever finished for, the error says a run stopped rather
// than that it was never indexed (issue 36, 5).
func TestIncompleteIndexSaysSo(t *testing.T) {
	ix := indextest.Fixture(t)
	srv := mcpserver.New(mcpserver.Config{DB: ix.DB, Root: ix.Root, RepoID: ix.RepoID, Tenant: pg.DefaultTenant, Embedder: ix.Emb})
	cs := connect(t, srv)
	ctx := context.Background()
	if out := call[map[string]any](t, cs, "search_code", map[string]any{"query": "refund"}); out["index_incomplete"] != nil {
		t.Fatalf("search_code on a complete index: %v", out["index_incomplete"])
	}
	if _, err := ix.DB.Pool.Exec(ctx, `UPDATE repositories SET indexing_started = now()`); err != nil {
		t.Fatal(err)
	}
	for _, cc := range codeCalls {
		if cc.tool == "index_file" {
			continue
		}
		out := call[map[string]any](t, cs, cc.tool, cc.args)
		if w, _ := out["index_incomplete"].(string); !strings.Contains(w, "results may be missing") {
			t.Errorf("%s after a stopped run: index_incomplete %q", cc.tool, w)
		}
	}
	if _, err := ix.DB.Pool.Exec(ctx, `UPDATE repositories SET last_indexed_at = NULL`); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "search_code when no run finished", callErr(t, cs, "search_code", map[string]any{"query": "refund"}),
		"not indexed", "no run has finished", "spelunk index")
}
