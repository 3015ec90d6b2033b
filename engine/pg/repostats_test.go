package pg_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestRepoStatsAreStoredAndRecountedOnDrift checks that the statistics and
// totals are counted while none are stored, kept by the runs' deltas while few
// files change, and recounted once the changes pass a tenth of the repository
// (a wrong delta is then repaired) or a run asks.
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
			start_line, end_line, start_byte, end_byte, content, content_hash, doc_length)
			SELECT $1, g, 1, 'a.go', 'f'||g, 'f'||g, $3, g, g, 0, 1, 'x', 'h'||g, $4
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
	update := func(what string, changed int, d *pg.RepoDelta, want pg.RepoTotals) {
		t.Helper()
		got, err := db.UpdateRepoStats(ctx, repo, changed, 100, d)
		if err != nil || got != want {
			t.Fatalf("%s: totals %+v (err %v), want %+v", what, got, err, want)
		}
	}
	update("first run", 1, &pg.RepoDelta{}, pg.RepoTotals{Files: 1, Chunks: 12})
	add("function", 10, 8)
	check("stored by the first run, not recounted by a search", want)
	update("a run's delta", 15, &pg.RepoDelta{Chunks: 10, Docs: 10, Length: 80, Edges: 3}, pg.RepoTotals{Files: 1, Chunks: 22, Edges: 3})
	check("kept by delta while 15 files changed of 100", pg.RepoStats{Chunks: 22, Docs: 20, AvgLength: 6})
	update("a wrong delta once 21 files changed", 6, &pg.RepoDelta{Chunks: 5, Docs: 5}, pg.RepoTotals{Files: 1, Chunks: 22})
	check("recounted once 21 files changed", pg.RepoStats{Chunks: 22, Docs: 20, AvgLength: 6})
	add("function", 20, 6)
	update("a run that asks", 0, nil, pg.RepoTotals{Files: 1, Chunks: 42})
	check("recounted when the run asks", pg.RepoStats{Chunks: 42, Docs: 40, AvgLength: 6})
	if totals, ok, err := db.ReadRepoTotals(ctx, repo); err != nil || !ok || totals != (pg.RepoTotals{Files: 1, Chunks: 42}) {
		t.Fatalf("stored totals %+v, %v, %v", totals, ok, err)
	}
	if _, err := db.ReadRepoStats(ctx, repo+1000); err == nil {
		t.Fatal("statistics of a repository that does not exist")
	}
}
