package mcpserver_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// alwaysJudge finds every pair it is asked about contradictory.
type alwaysJudge struct{}

func (alwaysJudge) Judge(context.Context, memory.Claim, memory.Claim) (memory.Verdict, error) {
	return memory.Verdict{Contradicts: true, Reason: "the configured judge"}, nil
}

// TestRememberUsesConfiguredJudge: Config.Judge (spelunk mcp --judge) decides the
// conflicts of remember, not the built-in judge, which reads these two memories
// as a narrower subject and finds no contradiction.
func TestRememberUsesConfiguredJudge(t *testing.T) {
	db := pgtest.OpenTenant(t, pgtest.URL(t), pg.DefaultTenant)
	repo, err := db.EnsureRepository(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(mcpserver.Config{DB: db, Root: repo.Root, RepoID: repo.ID, Tenant: pg.DefaultTenant,
		Embedder: indextest.Embedder(), Judge: alwaysJudge{}})
	cs := connect(t, srv)
	call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "Logs are kept for 30 days."})
	b := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "Audit logs are kept for one year."})
	if b.Status != "DISPUTED" || b.Conflict == nil || b.Conflict.Reason != "the configured judge" {
		t.Fatalf("remember: %+v, want a conflict from the configured judge", b)
	}
}
