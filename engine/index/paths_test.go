package index_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestPathsRunMatchesWorkingTreeIndex: a run over the paths a watcher or an
// agent names (an edit, a new file, a deletion, an ignored file, an unchanged
// one) touches only those, leaves the indexed commit alone, and gives the same
// rows, graph and confidences as a full working-tree index of the same disk.
func TestPathsRunMatchesWorkingTreeIndex(t *testing.T) {
	repo := withConfidenceFixture(t)
	commitFiles(t, repo, map[string]string{".gitignore": "ignored.go\n"})
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	first, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// D's base loses close; a new candidate for x.frob(); a file deleted; an
	// ignored file written; a file named but unchanged.
	writeFile(t, filepath.Join(repo, "py/shapes.py"), "class A:\n    def close(self):\n        pass\n\nclass B:\n    def shut(self):\n        pass\n")
	writeFile(t, filepath.Join(repo, "py/alpha.py"), "class Al:\n    def frob(self):\n        pass\n")
	if err := os.Remove(filepath.Join(repo, "js/shapes.js")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "ignored.go"), "package ignored\n\nfunc Hidden() {}\n")
	sum, err := ix.Index(ctx, repo, index.Options{Paths: []string{"py/shapes.py", "py/alpha.py", "js/shapes.js",
		"ignored.go", "cart/discount.go", "./py/alpha.py", "../outside.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 2 || sum.FilesDeleted != 1 || sum.FilesUnchanged != 1 || sum.Revision != "working-tree" {
		t.Errorf("summary %+v: want 2 files written, 1 deleted, 1 unchanged", sum)
	}
	if got := callEdges(t, db, "py/caller.py", "poke", "frob"); render(got) != "poke->Al.frob ambiguous [Al.frob,Z.frob]" {
		t.Errorf("untyped call after a candidate was added: %s", render(got))
	}
	if got := callEdges(t, db, "py/more.py", "use", "close"); render(got) != "use-> unresolved []" {
		t.Errorf("d.close() after its base lost close: %s", render(got))
	}
	var lastCommit string
	var workingTree bool
	if err := db.Pool.QueryRow(ctx, `SELECT last_commit, working_tree FROM repositories`).Scan(&lastCommit, &workingTree); err != nil {
		t.Fatal(err)
	}
	if lastCommit != first.Revision || !workingTree {
		t.Errorf("repository after a paths run: commit %s (want %s), working tree %v", lastCommit, first.Revision, workingTree)
	}
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{WorkingTree: true}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("paths run differs from a working-tree index:\n%s", diffLines(a, b))
	}
	if _, err := ix.Index(ctx, repo, index.Options{Paths: []string{"py/alpha.py"}, Full: true}); err == nil {
		t.Error("a full run over paths was accepted")
	}
}
