package mcpserver_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// ownCluster starts a throwaway PostgreSQL cluster of this test's own, which the
// test may stop and start (the shared pgtest server must never be stopped).
func ownCluster(t *testing.T) *pg.Cluster {
	t.Helper()
	return pgtest.StartedCluster(t)
}

// codeCalls are a valid call of every code tool on the fixture; each answers
// with results while the database is up.
var codeCalls = []struct {
	tool string
	args map[string]any
}{
	{"search_code", map[string]any{"query": "IsEligibleForRefund"}},
	{"search_code", map[string]any{"query": "how are refunds issued", "granularity": "files"}},
	{"retrieve_context", map[string]any{"query": "IsEligibleForRefund"}},
	{"search_symbols", map[string]any{"query": "refund"}},
	{"read_symbol", map[string]any{"name": "IsEligibleForRefund"}},
	{"read_symbol", map[string]any{"path": "billing/refund.go", "start_line": 5}},
	{"find_callers", map[string]any{"name": "IsEligibleForRefund"}},
	{"find_callees", map[string]any{"name": "IsEligibleForRefund"}},
	{"find_imports", map[string]any{"path": "billing/refund.go"}},
	{"find_imports", map[string]any{"path": "billing", "direction": "importers"}},
	{"index_file", map[string]any{"path": "billing/refund.go"}},
}

// memoryCalls read the memory store; they too must not answer "nothing" when the
// database is down.
var memoryCalls = []struct {
	tool string
	args map[string]any
}{
	{"recall", map[string]any{"query": "refund policy"}},
	{"briefing", map[string]any{}},
	{"list_conflicts", map[string]any{}},
	{"remember", map[string]any{"text": "refunds are allowed within 30 days"}},
}

// TestDatabaseOutageIsAnError: with the database stopped every code tool says so
// (never an empty success), and once it is back the next call answers again.
func TestDatabaseOutageIsAnError(t *testing.T) {
	c := ownCluster(t)
	ctx := context.Background()
	db, err := pg.Open(ctx, pg.Options{URL: c.URL("spelunk")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	root := indextest.Repo(t)
	emb := indextest.Embedder()
	sum, err := index.New(db, emb).Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatalf("index fixture: %v", err)
	}
	srv := mcpserver.New(mcpserver.Config{DB: db, Root: root, RepoID: sum.RepositoryID, Tenant: pg.DefaultTenant, Embedder: emb})
	cs := connect(t, srv)
	for _, cc := range codeCalls {
		call[map[string]any](t, cs, cc.tool, cc.args)
	}

	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	down := append(codeCalls, memoryCalls...)
	for _, cc := range down {
		wantContains(t, cc.tool+" with the database down", callErr(t, cs, cc.tool, cc.args),
			"database unavailable", "retrying on the next call", "connect")
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// The pool reconnects: the very next call answers.
	out := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund"})
	if len(out.Results) == 0 || baseName(out.Results[0].Name) != "IsEligibleForRefund" {
		t.Fatalf("after restart: %+v", out.Results)
	}
	ctxOut := call[mcpserver.RetrieveContextOut](t, cs, "retrieve_context", map[string]any{"query": "IsEligibleForRefund"})
	if len(ctxOut.Sources) == 0 {
		t.Fatal("retrieve_context after restart: no sources")
	}
	call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "refund"})
}
