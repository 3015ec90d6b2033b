package pg_test

import (
	"context"
	"os"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestHasIterativeScan(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"0.8.0", true}, {"0.8", true}, {"0.8.1", true}, {"0.10.1", true}, {"1.0.0", true},
		{"0.7.4", false}, {"0.7.0", false}, {"0.5.1", false},
		{"x", false}, {"", false}, {"0", false}, {"0.x", false},
	}
	for _, tt := range tests {
		if got := pg.HasIterativeScan(tt.v); got != tt.want {
			t.Errorf("HasIterativeScan(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// TestIterativeScanMatchesServer checks the gate against the installed pgvector:
// where it says yes, the setting is accepted inside a transaction.
func TestIterativeScanMatchesServer(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	v, err := pg.VectorVersion(ctx, db.Pool)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := db.IterativeScan(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok != pg.HasIterativeScan(v) {
		t.Fatalf("IterativeScan = %v for pgvector %s", ok, v)
	}
	if !ok {
		if os.Getenv("CI") == "true" { // make setup installs 0.8: CI must run the SET
			t.Fatalf("pgvector %s has no iterative scans", v)
		}
		t.Skipf("pgvector %s has no iterative scans", v)
	}
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL hnsw.iterative_scan = relaxed_order"); err != nil {
		t.Fatalf("pgvector %s: %v", v, err)
	}
}
