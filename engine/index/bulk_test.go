package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestBulkRunOnBackgroundPool: a run of more files than index.BulkRunFiles
// (written, resolved and analysed on the background-priority pool) leaves the
// same index as any run: every file, every definition, each file's call to
// the next file's function resolved exactly; and the open pool stays usable.
func TestBulkRunOnBackgroundPool(t *testing.T) {
	const n = index.BulkRunFiles + 10
	root := t.TempDir()
	for i := range n {
		src := fmt.Sprintf("package p\n\n// F%d calls the next file's function.\nfunc F%d() int { return F%d() + 1 }\n", i, i, (i+1)%n)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indextest.Git(t, root, "init", "-q")
	indextest.Git(t, root, "add", "-A")
	indextest.Git(t, root, "-c", "user.email=t@x", "-c", "user.name=t", "commit", "-q", "-m", "bulk")
	db := pgtest.Open(t)
	ctx := context.Background()
	sum, err := index.New(db, hashing()).Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var funcs, exact int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE repository_id = $1 AND kind = 'function'`, sum.RepositoryID).Scan(&funcs); err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != n || funcs != n {
		t.Fatalf("indexed %d files, %d functions; want %d of each", sum.FilesIndexed, funcs, n)
	}
	// The CASE keeps the cast off other symbols' names whatever order the plan
	// evaluates the conditions in.
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges e JOIN symbols t ON t.repository_id = e.repository_id AND t.id = e.target_id
		JOIN symbols s ON s.repository_id = e.repository_id AND s.id = e.source_id
		WHERE e.repository_id = $1 AND e.kind = 'calls' AND e.confidence = 'exact'
		  AND t.name = 'F' || ((CASE WHEN s.name ~ '^F[0-9]+$' THEN substr(s.name, 2)::int END + 1) % $2)`, sum.RepositoryID, n).Scan(&exact); err != nil {
		t.Fatal(err)
	}
	if exact != n {
		t.Errorf("%d of %d calls resolved exactly to the next file's function", exact, n)
	}
}
