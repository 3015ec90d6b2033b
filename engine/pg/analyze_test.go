package pg_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestAnalyzeBulkOfAMinorRepository: after a bulk load of a repository that is
// a minor share of the database, the planner knows its row count (the
// statistics of repository_id), and only those statistics were taken; a
// repository that is most of the database gets every column's.
func TestAnalyzeBulkOfAMinorRepository(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	var repos []int64
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		repos = append(repos, seedSymbols(t, db, name, 2000))
	}
	owner, err := pg.ConnectOwner(ctx, db.URL) // pg_stats hides tables under row-level security
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	columns := func() (n int) {
		t.Helper()
		if err := owner.QueryRow(ctx, `SELECT count(*) FROM pg_stats WHERE tablename = 'symbols'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// One file of five: a fifth of the database.
	if err := db.AnalyzeBulk(ctx, repos[4], "symbols"); err != nil {
		t.Fatal(err)
	}
	if n := columns(); n != 1 {
		t.Fatalf("a minor repository's bulk load took statistics of %d columns of symbols, want repository_id's only", n)
	}
	var plan string
	if err := owner.QueryRow(ctx, `EXPLAIN SELECT * FROM symbols WHERE repository_id = $1`, repos[4]).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`rows=(\d+)`).FindStringSubmatch(plan)
	if m == nil {
		t.Fatalf("no row estimate in %q", plan)
	}
	if estimate, _ := strconv.Atoi(m[1]); estimate < 1000 || estimate > 4000 {
		t.Fatalf("the planner estimates %d rows of the repository's 2000 (%q)", estimate, plan)
	}
	// Most of the database: every column.
	for _, r := range repos[:4] {
		if _, err := db.Pool.Exec(ctx, `DELETE FROM files WHERE repository_id = $1`, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AnalyzeBulk(ctx, repos[4], "symbols"); err != nil {
		t.Fatal(err)
	}
	if n := columns(); n < 10 {
		t.Fatalf("the bulk load of the only repository took statistics of %d columns of symbols, want every one", n)
	}
}
