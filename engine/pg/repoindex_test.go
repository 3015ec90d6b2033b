package pg_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestRepoVectorIndexServesItsRepository builds a repository's own HNSW index
// once it holds enough vectors, and checks that the dense channel's query shape
// (the repository as a parameter, as pgx sends it) is planned on it, while a
// small repository beside it is not given one.
func TestRepoVectorIndexServesItsRepository(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	m := pg.Model{Name: "test-model-repoidx", Dims: 4}
	if err := db.RegisterModel(ctx, m); err != nil {
		t.Fatal(err)
	}
	// Loaded as a first index run loads: without the shared index, built after.
	if deferred, err := db.DeferModelIndex(ctx, m); err != nil || !deferred {
		t.Fatalf("defer the shared index: %v (err %v)", deferred, err)
	}
	big := seedVectors(t, db, "big", pg.RepoVectorIndexMin)
	if err := db.BuildModelIndex(ctx, m); err != nil {
		t.Fatal(err)
	}
	// Alone in the shared index, the repository has nothing to step over.
	if need, err := db.NeedsRepoVectorIndex(ctx, big, m); err != nil || need {
		t.Fatalf("the only repository of the model needs its own index: %v (err %v)", need, err)
	}
	seedVectors(t, db, "other", pg.RepoVectorIndexMin/2) // now a third of the shared index is not big's
	small := seedVectors(t, db, "small", 50)

	for _, tc := range []struct {
		repo int64
		want bool
	}{{big, true}, {small, false}} {
		need, err := db.NeedsRepoVectorIndex(ctx, tc.repo, m)
		if err != nil || need != tc.want {
			t.Fatalf("repository %d needs its own index: %v (err %v), want %v", tc.repo, need, err, tc.want)
		}
	}
	for range 2 { // a second build finds the index and does nothing
		if err := db.BuildRepoVectorIndex(ctx, big, m); err != nil {
			t.Fatal(err)
		}
	}
	if need, err := db.NeedsRepoVectorIndex(ctx, big, m); err != nil || need {
		t.Fatalf("after the build the repository still needs an index: %v (err %v)", need, err)
	}

	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	// A tiny table's sequential scan would win on cost; the plan's choice of
	// index, not its cost, is what this checks.
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	plan := explainPlan(t, tx, `SELECT e.symbol_id FROM symbol_embeddings e
		WHERE e.model_id = `+modelIDLiteral(t, db, m.Name)+` AND e.repository_id = $1
		ORDER BY `+pg.SymbolVectorExpr("e.embedding", 4)+` <=> '[1,0,0,0]' LIMIT 10`, big)
	if name := pg.RepoVectorIndexName(m, big); !strings.Contains(plan, name) {
		t.Fatalf("the dense query of the big repository is not planned on %s:\n%s", name, plan)
	}
}

// seedVectors inserts a repository with n symbols, each with a vector of the
// test model, and returns its id.
func seedVectors(t *testing.T, db *pg.DB, name string, n int) int64 {
	t.Helper()
	repo := seedSymbols(t, db, name, n)
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO symbol_embeddings (repository_id, symbol_id, model_id, content_hash, embedding)
		SELECT $1, g, `+modelIDLiteral(t, db, "test-model-repoidx")+`, 'h'||g, ('['||sin(g)||','||cos(g)||','||sin(2*g)||','||cos(3*g)||']')::vector
		FROM generate_series(1, $2::int) g`, repo, n); err != nil {
		t.Fatal(err)
	}
	return repo
}

// seedSymbols inserts a repository with one file of n symbols and returns its id.
func seedSymbols(t *testing.T, db *pg.DB, name string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	var repo int64
	err := db.Pool.QueryRow(ctx, `INSERT INTO repositories (name, root) VALUES ($1, '/'||$1) RETURNING id`, name).Scan(&repo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO files (repository_id, id, path, revision, status) VALUES ($1, 1, 'a.go', 'r', 'indexed')`, repo); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO symbols (repository_id, id, file_id, path, name, qualified_name, kind, start_line, end_line,
			start_byte, end_byte, content, content_hash)
			SELECT $1, g, 1, 'a.go', 'f'||g, 'f'||g, 'function', g, g, 0, 1, 'x', 'h'||g
			FROM generate_series(1, $2::int) g`, repo, n); err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestRepoNameIndexServesItsRepository builds a repository's own trigram index
// of its names once other repositories' symbols crowd the shared one, and
// checks that the symbol channel's near-miss query (the repository bound as a
// parameter, as pgx sends it) is planned on it.
func TestRepoNameIndexServesItsRepository(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	big := seedSymbols(t, db, "big", pg.RepoVectorIndexMin)
	// Alone in the shared index, the repository has nothing to step over.
	if need, err := db.NeedsRepoNameIndex(ctx, big); err != nil || need {
		t.Fatalf("the only repository needs its own name index: %v (err %v)", need, err)
	}
	seedSymbols(t, db, "other", pg.RepoVectorIndexMin/2)
	small := seedSymbols(t, db, "small", 50)
	for _, tc := range []struct {
		repo int64
		want bool
	}{{big, true}, {small, false}} {
		if need, err := db.NeedsRepoNameIndex(ctx, tc.repo); err != nil || need != tc.want {
			t.Fatalf("repository %d needs its own name index: %v (err %v), want %v", tc.repo, need, err, tc.want)
		}
	}
	for range 2 { // a second build finds the index and does nothing
		if err := db.BuildRepoNameIndex(ctx, big); err != nil {
			t.Fatal(err)
		}
	}
	if need, err := db.NeedsRepoNameIndex(ctx, big); err != nil || need {
		t.Fatalf("after the build the repository still needs a name index: %v (err %v)", need, err)
	}
	if _, err := db.Pool.Exec(ctx, `ANALYZE symbols`); err != nil {
		t.Fatal(err)
	}
	plan := explainPlan(t, db.Pool, `SELECT s.id FROM symbols s
		WHERE s.repository_id = $1 AND lower(s.name) % 'f1234x'`, big)
	if name := pg.RepoNameIndexName(big); !strings.Contains(plan, name) {
		t.Fatalf("the near-miss query of the big repository is not planned on %s:\n%s", name, plan)
	}
}

// modelIDLiteral is the registered model's id as SQL text, as the dense
// channel writes it (a literal, so the planner matches the partial indexes).
func modelIDLiteral(t testing.TB, db *pg.DB, model string) string {
	t.Helper()
	id, err := db.ModelID(context.Background(), model)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(int(id))
}

// TestOwnIndexRowsLeaveTheSharedIndex: a repository with an index of its own
// may keep its vectors out of the model's shared index (own_index, migration
// 0024). Whether a run's vectors go there, that the shared index then holds
// none of them while the repository's own does, and that rows left out
// without an own index go back into the shared one.
func TestOwnIndexRowsLeaveTheSharedIndex(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	m := pg.Model{Name: "test-model-repoidx", Dims: 4}
	if err := db.RegisterModel(ctx, m); err != nil {
		t.Fatal(err)
	}
	big := seedVectors(t, db, "big", pg.RepoVectorIndexMin)
	seedVectors(t, db, "other", pg.RepoVectorIndexMin/2)
	small := seedVectors(t, db, "small", 50)
	next := seedVectors(t, db, "next", 50) // a bulk load under way, expecting more
	if err := db.BuildRepoVectorIndex(ctx, big, m); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		repo     int64
		expected int
		want     bool
	}{
		{"with an index of its own", big, 0, true},
		{"small", small, 100, false},
		{"a bulk load that will need one", next, pg.RepoVectorIndexMin, true},
	} {
		got, err := db.LeaveOutOfShared(ctx, tc.repo, m, tc.expected)
		if err != nil || got != tc.want {
			t.Fatalf("%s: LeaveOutOfShared = %v (err %v), want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE symbol_embeddings SET own_index = true WHERE repository_id = ANY ($1)`,
		[]int64{big, next}); err != nil {
		t.Fatal(err)
	}
	// The shared index leaves them out, and the dense channel's query of a
	// repository without an index of its own says so to walk it.
	shared := "symbol_embeddings_" + pg.ModelIndexName(m.Name)
	var predicate string
	if err := db.Pool.QueryRow(ctx, `SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1`, shared).Scan(&predicate); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(predicate, "own_index IS NULL") {
		t.Fatalf("the shared index's predicate %q keeps the rows left out", predicate)
	}
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	// Whether the shared index can serve the query, not whether it wins on
	// cost against a sort of 50 rows.
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	plan := explainPlan(t, tx, `SELECT e.symbol_id FROM symbol_embeddings e
		WHERE e.model_id = `+modelIDLiteral(t, db, m.Name)+` AND e.repository_id = $1 AND e.own_index IS NULL
		ORDER BY `+pg.SymbolVectorExpr("e.embedding", 4)+` <=> '[1,0,0,0]' LIMIT 10`, small)
	if !strings.Contains(plan, shared+" ") && !strings.HasSuffix(plan, shared) {
		t.Fatalf("the dense query of a repository without an index of its own is not planned on %s:\n%s", shared, plan)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// next got no index of its own: its rows go back; big's stay out.
	for _, repo := range []int64{big, next} {
		if err := db.ShareLeftOutVectors(ctx, repo, m); err != nil {
			t.Fatal(err)
		}
	}
	var left []int64
	rows, err := db.Pool.Query(ctx, `SELECT DISTINCT repository_id FROM symbol_embeddings WHERE own_index`)
	if err != nil {
		t.Fatal(err)
	}
	if left, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != big {
		t.Fatalf("repositories with rows left out of the shared index: %v, want only %d", left, big)
	}
}
