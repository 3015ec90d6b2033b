package pg_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// spelunk's connections run without JIT: a graph-channel join whose estimate
// passed jit_above_cost spent 750 ms compiling a 1 ms query (hybrid p50 on
// sqlalchemy 851 ms with JIT, 30 ms without).
func TestConnectionsRunWithoutJIT(t *testing.T) {
	db := pgtest.Open(t)
	var jit string
	if err := db.Pool.QueryRow(context.Background(), `SHOW jit`).Scan(&jit); err != nil {
		t.Fatal(err)
	}
	if jit != "off" {
		t.Fatalf("jit = %q on a spelunk connection, want off", jit)
	}
}
