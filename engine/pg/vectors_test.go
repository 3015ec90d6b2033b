package pg_test

import (
	"context"
	"math"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestVectorsRoundTrip sends Vectors as vector[] in binary (described first)
// and in text (the default mode) and reads back the very floats, as for the
// []pgvector.Vector of the same floats; nil is NULL and no vectors the empty
// array.
func TestVectorsRoundTrip(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	tiny := math.Float32frombits(1) // the smallest subnormal
	vs := pg.Vectors{{1, -2.5, 0.1, tiny}, {float32(math.Pi), 1e-30, float32(math.Copysign(0, -1)), 3e38}, {0.3333333, 7, 8, 9}}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec} {
		var got []pgvector.Vector
		if err := db.Pool.QueryRow(ctx, `SELECT $1::vector[]`, mode, vs).Scan(&got); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if len(got) != len(vs) {
			t.Fatalf("mode %v: %d vectors, want %d", mode, len(got), len(vs))
		}
		for i, v := range got {
			for j, f := range v.Slice() {
				if math.Float32bits(f) != math.Float32bits(vs[i][j]) {
					t.Errorf("mode %v: vector %d float %d = %v, want %v", mode, i, j, f, vs[i][j])
				}
			}
		}
		var same bool
		pv := []pgvector.Vector{pgvector.NewVector(vs[0]), pgvector.NewVector(vs[1]), pgvector.NewVector(vs[2])}
		if err := db.Pool.QueryRow(ctx, `SELECT $1::vector[] = $2::vector[]`, mode, vs, pv).Scan(&same); err != nil || !same {
			t.Errorf("mode %v: Vectors and []pgvector.Vector differ (%v)", mode, err)
		}
		var isNull, empty bool
		if err := db.Pool.QueryRow(ctx, `SELECT $1::vector[] IS NULL, cardinality($2::vector[]) = 0`, mode, pg.Vectors(nil), pg.Vectors{}).Scan(&isNull, &empty); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if !isNull || !empty {
			t.Errorf("mode %v: nil is NULL %v, no vectors empty %v", mode, isNull, empty)
		}
	}
}
