package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestSmallProjectInACrowdedIndex: the HNSW index is per model, shared by every
// project. Here another project holds thousands of memories nearer to the query
// than anything in ours, so the index's first candidatePool rows are all theirs.
// Conflict detection and the briefing must still find our memories (pgvector's
// iterative scan, see poolSQL).
func TestSmallProjectInACrowdedIndex(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	// For a small project the planner rightly prefers reading the project's rows
	// through the primary key and sorting them (exact, and immune to the crowd). At
	// scale, or with stale statistics, it takes the HNSW index: make it do so here
	// so that the test exercises the index scan.
	owner, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET enable_sort = off', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	owner.Close(ctx)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	emb := newHashing()

	const text = "Query result caching is disabled in production."
	crowd, err := db.EnsureRepository(ctx, "/projects/crowd")
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	texts, created := make([]string, n), make([]time.Time, n)
	for i := range texts {
		texts[i], created[i] = fmt.Sprintf("Query result caching is disabled in production for service %d.", i), time.Now()
	}
	vecs, _ := emb.Embed(ctx, texts)
	index := loadMemories(t, db, crowd.ID, emb.Name(), texts, vecs, created)

	s := newProject(t, db, memory.Options{Embedder: emb})
	ours := mustAdd(t, s, memory.KindFact, "agent-a", "Query result caching is enabled in production.").Memory.ID

	// The mechanism: without the iterative scan the pool holds none of ours.
	q, _ := emb.Embed(ctx, []string{text})
	for _, iterative := range []bool{false, true} {
		sql := memory.CandidatesSQL(emb.Name(), len(q[0]), iterative)
		args := []any{s.Project(), pgvector.NewVector(q[0]), 0.1, "00000000-0000-0000-0000-000000000000", []string{}, "x"}
		rows, err := db.Pool.Query(ctx, "EXPLAIN "+sql, args...)
		if err != nil {
			t.Fatal(err)
		}
		plan, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		if !containsLine(plan, index) {
			t.Fatalf("the candidate query does not use %s: %v", index, plan)
		}
		rows, err = db.Pool.Query(ctx, sql, args...)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
			var id, kind, content, status string
			var at time.Time
			var sim float64
			return id, r.Scan(&id, &kind, &content, &status, &at, &sim)
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 1}[iterative]; len(ids) != want {
			t.Fatalf("iterative scan %v: %d candidates, want %d", iterative, len(ids), want)
		}
	}

	a := mustAdd(t, s, memory.KindFact, "agent-b", text)
	if a.ConflictID == "" {
		t.Fatal("the contradiction was missed: the crowd filled the candidate pool")
	}
	b, err := s.Briefing(ctx, memory.BriefingOptions{Query: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Memories) != 2 || (b.Memories[0].ID != ours && b.Memories[1].ID != ours) {
		t.Fatalf("briefing: got %d memories, want our 2", len(b.Memories))
	}
}

func containsLine(lines []string, s string) bool {
	return strings.Contains(strings.Join(lines, "\n"), s)
}
