package index_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestSecondRepositoryStatistics: when a second repository's edges are resolved,
// the planner knows its rows. Planned from the first repository's statistics (an
// estimate of a row or two), resolving took 623 s instead of 2 s in
// BenchmarkSecondRepositoryResolve.
func TestSecondRepositoryStatistics(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	conn, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	// Autovacuum could analyse in time by luck; the run itself must.
	for _, tbl := range []string{"files", "symbols", "edges", "postings", "symbol_embeddings"} {
		if _, err := conn.Exec(ctx, "ALTER TABLE "+tbl+" SET (autovacuum_enabled = false)"); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close(ctx)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	ix := index.New(db, hashing())
	if _, err := ix.Index(ctx, fixtureRepo(t), index.Options{}); err != nil {
		t.Fatal(err)
	}
	second := fixtureRepo(t)
	var estimate, actual float64
	checked := false
	opts := index.Options{Progress: func(p index.Progress) {
		if p.Phase != "resolving" || checked {
			return
		}
		checked = true
		rec, err := db.RepositoryByRoot(ctx, second)
		if err != nil {
			t.Error(err)
			return
		}
		var plan []struct {
			Plan struct {
				Rows float64 `json:"Plan Rows"`
			} `json:"Plan"`
		}
		var raw []byte
		if err := db.Pool.QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT * FROM edges WHERE repository_id = $1`, rec.ID).Scan(&raw); err != nil {
			t.Error(err)
			return
		}
		if err := json.Unmarshal(raw, &plan); err != nil || len(plan) == 0 {
			t.Errorf("explain: %v %s", err, raw)
			return
		}
		estimate = plan[0].Plan.Rows
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges WHERE repository_id = $1`, rec.ID).Scan(&actual); err != nil {
			t.Error(err)
		}
	}}
	if _, err := ix.Index(ctx, second, opts); err != nil {
		t.Fatal(err)
	}
	if !checked || actual == 0 {
		t.Fatalf("no check at the resolving phase (checked %v, %v edges)", checked, actual)
	}
	if estimate < actual/3 {
		t.Fatalf("resolving the second repository: the planner expects %.0f of its %.0f edges", estimate, actual)
	}
}
