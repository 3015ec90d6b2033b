package memory_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// roundTripTracer counts round trips to the server: a statement sent on its own
// is one, and so is a whole batch (pipelined, answered together).
type roundTripTracer struct{ countingTracer }

func (r roundTripTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}

func (roundTripTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (roundTripTracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestAddRoundTrips pins the round trips of one Store.Add (issue 17: adding a
// memory < 15 ms p95 at 50k memories, most of which was waiting on the server):
// BEGIN, one batch (the project's lock, the row, its event, embedding, anchors
// and conflict candidates) and COMMIT; one more before the transaction when the
// text names code (the index lookups of all its names); and, when it
// contradicts another memory, the open conflicts and one batch for the
// conflict, the disputes and the memory read back. On main before this change
// the same adds took 7, 10 and 11 (then 3, 4 and 6, before the read back joined
// the disputes' batch).
func TestAddRoundTrips(t *testing.T) {
	ctx := context.Background()
	var trips atomic.Int64
	db := openTraced(t, pgtest.URL(t), roundTripTracer{countingTracer{&trips}})
	emb := newHashing()
	sum, err := index.New(db, emb).Index(ctx, indextest.Repo(t), index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := memory.New(db, sum.RepositoryID, memory.Options{Embedder: emb})
	mustAdd(t, s, memory.KindFact, "a", "Warm-up: the model and the server's pgvector are looked up once per store.")
	tests := []struct {
		name, text string
		want       int64
		conflict   bool
	}{
		{"plain", "Invoices are archived after seven years.", 3, false},
		{"naming code", "`Invoice.Total` must include the tax of every line.", 4, false},
		{"contradicting", "Invoices are not archived after seven years.", 5, true},
	}
	for _, tt := range tests {
		trips.Store(0)
		a := mustAdd(t, s, memory.KindFact, "b", tt.text)
		if got := trips.Load(); got != tt.want || (a.ConflictID != "") != tt.conflict {
			t.Errorf("%s: %d round trips (conflict %q), want %d (conflict: %v)", tt.name, got, a.ConflictID, tt.want, tt.conflict)
		}
	}
}
