package memory_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestTenantIsolation fills every memory table in tenant A and proves that tenant B,
// on the same database, sees none of it even with no WHERE clause at all: the
// isolation is the database's (row-level security), not the queries'.
func TestTenantIsolation(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	dbA, dbB := pgtest.OpenTenant(t, url, "tenant-a"), pgtest.OpenTenant(t, url, "tenant-b")
	var user string
	if err := dbB.Pool.QueryRow(ctx, `SELECT current_user`).Scan(&user); err != nil || user != "spelunk_app" {
		t.Fatalf("connections act as %q (%v); RLS is only meaningful for the application role", user, err)
	}
	const root = "/srv/shared-root"
	repoA, err := dbA.EnsureRepository(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	a := memory.New(dbA, repoA.ID, memory.Options{Embedder: newHashing()})
	first := mustAdd(t, a, memory.KindFact, "agent", "Autoscaling is turned on for the web tier.").Memory.ID
	cid := mustAdd(t, a, memory.KindFact, "agent", "Autoscaling is turned off for the web tier.").ConflictID
	if _, err := a.Resolve(ctx, cid, memory.Resolution{Action: memory.ResolveKeepAll, Resolver: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetNugget(ctx, memory.NuggetWrite{Key: "k", Value: "v", Author: "agent"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetState(ctx, memory.NewState{Summary: "secret plans", Author: "agent"}); err != nil {
		t.Fatal(err)
	}

	// An anchor needs an indexed definition; written directly, as the store would.
	if _, err := dbA.Pool.Exec(ctx, `INSERT INTO memory_anchors (repository_id, memory_id, path, name, kind, content_hash)
		VALUES ($1, $2::uuid, 'billing/refund.go', 'IssueRefund', 'function', 'h')`, repoA.ID, first); err != nil {
		t.Fatal(err)
	}
	tables := []string{"memories", "memory_embeddings", "memory_events", "nuggets", "nugget_history",
		"state_compilations", "conflicts", "conflict_exemptions", "memory_anchors", "repositories"}
	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			var inA, inB int
			if err := dbA.Pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&inA); err != nil {
				t.Fatal(err)
			}
			if err := dbB.Pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&inB); err != nil {
				t.Fatal(err)
			}
			if inA == 0 || inB != 0 {
				t.Fatalf("tenant A sees %d rows, tenant B %d: want some and none", inA, inB)
			}
			// Nor can B change or delete them blindly.
			if table != "repositories" {
				tag, err := dbB.Pool.Exec(ctx, `DELETE FROM `+table)
				if err != nil || tag.RowsAffected() != 0 {
					t.Fatalf("tenant B deleted %d rows (%v)", tag.RowsAffected(), err)
				}
			}
		})
	}
	// The same root in tenant B is another project, and A's ids mean nothing there.
	repoB, err := dbB.EnsureRepository(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if repoB.ID == repoA.ID {
		t.Fatal("tenants share a project")
	}
	b := memory.New(dbB, repoB.ID, memory.Options{Embedder: newHashing()})
	if ms, err := b.List(ctx, memory.Filter{}); err != nil || len(ms) != 0 {
		t.Fatalf("tenant B lists %d memories (%v)", len(ms), err)
	}
	if _, err := b.Get(ctx, first); err == nil {
		t.Fatal("tenant B read tenant A's memory by id")
	}
	if brief, err := b.Briefing(ctx, memory.BriefingOptions{Query: "autoscaling"}); err != nil || len(brief.Memories) != 0 || brief.OpenConflicts != 0 || brief.State != nil {
		t.Fatalf("tenant B briefing: %+v (%v)", brief, err)
	}
}
