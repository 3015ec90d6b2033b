package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestPostingsGroupsFollowChanges: the files of one write batch share a
// postings group (migration 0021). A run that changes one of them, deletes
// another and renames a third rewrites only the rows of the group that held
// or gain their postings: a term of an untouched file alone keeps its row
// where it was (same ctid); the changed file keeps its group, the renamed one
// joins a new group, and the index equals a clean one (postings compared per
// symbol and term, indextest.PostingLines).
func TestPostingsGroupsFollowChanges(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/groups\n\ngo 1.22\n",
		"a.go":   "package groups\n\n// Alpha counts apples.\nfunc Alpha() int { return applecount + shared }\n",
		"b.go":   "package groups\n\n// Bravo bakes bread.\nfunc Bravo() int { return breadloaves + shared }\n",
		"c.go":   "package groups\n\n// Charlie carries coal.\nfunc Charlie() int { return coalsacks + shared }\n",
		"d.go":   "package groups\n\n// Delta drinks dew.\nfunc Delta() int { return dewdrops + shared }\n",
	}
	repo := gitRepo(t, files)
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	sum, err := ix.Index(ctx, repo, index.Options{Workers: 1}) // one writer: one batch
	if err != nil {
		t.Fatal(err)
	}
	before := fileGroups(t, db, sum.RepositoryID)
	if before["a.go"] == 0 || before["a.go"] != before["b.go"] || before["a.go"] != before["d.go"] {
		t.Fatalf("one batch's files in groups %v, want one group", before)
	}
	rowAt := func() map[string]string {
		out := map[string]string{}
		rows, err := db.Pool.Query(ctx, `SELECT term, ctid::text FROM postings WHERE repository_id = $1`, sum.RepositoryID)
		if err != nil {
			t.Fatal(err)
		}
		var term, at string
		if _, err := pgx.ForEachRow(rows, []any{&term, &at}, func() error { out[term] = at; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	was := rowAt()
	if was["dewdrops"] == "" || was["applecount"] == "" || was["shared"] == "" {
		t.Fatalf("postings rows %v", was)
	}
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(repo, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package groups\n\n// Alpha counts oranges.\nfunc Alpha() int { return orangecount + shared }\n")
	if err := os.Remove(filepath.Join(repo, "b.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(repo, "c.go"), filepath.Join(repo, "c2.go")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Index(ctx, repo, index.Options{WorkingTree: true}); err != nil {
		t.Fatal(err)
	}
	after, now := fileGroups(t, db, sum.RepositoryID), rowAt()
	if after["a.go"] != before["a.go"] || after["d.go"] != before["d.go"] || after["c2.go"] == before["c.go"] || after["b.go"] != 0 {
		t.Errorf("groups %v after the run, %v before: a.go and d.go keep theirs, c2.go a new one", after, before)
	}
	if now["dewdrops"] != was["dewdrops"] {
		t.Errorf("the row of a term of d.go alone moved from %s to %s: rewritten though no file of it changed", was["dewdrops"], now["dewdrops"])
	}
	if now["applecount"] != "" || now["breadloaves"] != "" || now["orangecount"] == "" || now["coalsacks"] == "" {
		t.Errorf("rows after the run: %v", now)
	}
	assertSameAsClean(t, db, sum.RepositoryID, repo, index.Options{WorkingTree: true})
}

// fileGroups maps each file of repository repoID to its postings group.
func fileGroups(t *testing.T, db *pg.DB, repoID int64) map[string]int64 {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT path, coalesce(postings_group, 0) FROM files WHERE repository_id = $1`, repoID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	var path string
	var group int64
	if _, err := pgx.ForEachRow(rows, []any{&path, &group}, func() error { out[path] = group; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPostingsGroupSharedByTwoWriters: a run's two writers (index.go's
// pipeline) rewrite files of one postings group at once, each batch in its
// own transaction; the group's lock makes each read the rows after the other
// committed, so no writer's rows lose the other's postings (a term every file
// holds has one row, which both rewrite).
func TestPostingsGroupSharedByTwoWriters(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/groups\n\ngo 1.22\n"}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package groups\n\n// F%d shares words.\nfunc F%d() int { return sharedword + own%d }\n", i, i, i)
	}
	repo := gitRepo(t, files)
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	sum, err := ix.Index(ctx, repo, index.Options{Workers: 1}) // one writer: one group
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		for i := range 40 {
			p := filepath.Join(repo, fmt.Sprintf("f%02d.go", i))
			body := fmt.Sprintf("package groups\n\n// F%d shares words.\nfunc F%d() int { return sharedword + own%d + round%d }\n", i, i, i, round)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ix.Index(ctx, repo, index.Options{Workers: 2, WorkingTree: true}); err != nil {
			t.Fatal(err)
		}
		if g := fileGroups(t, db, sum.RepositoryID); g["f00.go"] != g["f39.go"] {
			t.Fatalf("round %d: the files left their group: %v", round, g)
		}
		assertSameAsClean(t, db, sum.RepositoryID, repo, index.Options{WorkingTree: true})
	}
}
