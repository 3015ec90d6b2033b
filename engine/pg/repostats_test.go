package pg_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestRepoStatsAreStoredAndRecountedOnDrift checks that the statistics are
// counted while none are stored, kept while few files change, and recounted
// once the changes pass a tenth of the repository or a run asks.
func TestRepoStatsAreStoredAndRecountedOnDrift(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	var repo int64
	if err := db.Pool.QueryRow(ctx, `INSERT INTO repositories (name, root) VALUES ('s', '/s') RETURNING id`).Scan(&repo); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO files (repository_id, id, path, revision, status) VALUES ($1, 1, 'a.go', 'r', 'indexed')`, repo); err != nil {
		t.Fatal(err)
	}
	next := 0
	add := func(kind string, n int, length float64) {
		t.Helper()
		_, err := db.Pool.Exec(ctx, `INSERT INTO symbols (repository_id, id, file_id, path, name, qualified_name, kind,
			start_line, end_line, start_byte, end_byte, content, content_hash, revision, doc_length)
			SELECT $1, g, 1, 'a.go', 'f'||g, 'f'||g, $3, g, g, 0, 1, 'x', 'h'||g, 'r', $4
			FROM generate_series($2::int + 1, $2::int + $5::int) g`, repo, next, kind, length, n)
		if err != nil {
			t.Fatal(err)
		}
		next += n
	}
	add("function", 10, 4)
	add("part", 2, 100)
	add("field", 3, 100)
	want := pg.RepoStats{Chunks: 12, Docs: 10, AvgLength: 4}
	check := func(what string, want pg.RepoStats) {
		t.Helper()
		got, err := db.ReadRepoStats(ctx, repo)
		if err != nil || got != want {
			t.Fatalf("%s: stats %+v (err %v), want %+v", what, got, err, want)
		}
	}
	check("counted while none are stored", want)

	if err := db.UpdateRepoStats(ctx, repo, 1, 100, false); err != nil {
		t.Fatal(err)
	}
	add("function", 10, 8)
	check("stored by the first run, not recounted by a search", want)
	if err := db.UpdateRepoStats(ctx, repo, 15, 100, false); err != nil {
		t.Fatal(err)
	}
	check("kept while 15 files changed of 100", want)
	if err := db.UpdateRepoStats(ctx, repo, 6, 100, false); err != nil {
		t.Fatal(err)
	}
	recounted := pg.RepoStats{Chunks: 22, Docs: 20, AvgLength: 6}
	check("recounted once 21 files changed", recounted)
	add("function", 20, 6)
	if err := db.UpdateRepoStats(ctx, repo, 0, 100, true); err != nil {
		t.Fatal(err)
	}
	check("recounted when the run asks", pg.RepoStats{Chunks: 42, Docs: 40, AvgLength: 6})
	if _, err := db.ReadRepoStats(ctx, repo+1000); err == nil {
		t.Fatal("statistics of a repository that does not exist")
	}
}
