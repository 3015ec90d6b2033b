package backend_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/tui/backend"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestIndexWhenGitStatusFails: a git status that fails is not read as "clean"
// (issue 11.10): the TUI's index run says it could not tell, and indexes the last
// commit, which git can still read.
func TestIndexWhenGitStatusFails(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	root := indextest.Repo(t)
	rec, err := db.EnsureRepository(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	gitIndex := filepath.Join(root, ".git", "index")
	data, err := os.ReadFile(gitIndex)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gitIndex, data[:20], 0o644); err != nil { // a torn write
		t.Fatal(err)
	}
	res, err := backend.New(db, rec, indextest.Embedder(), backend.Options{}).Index(ctx, nil)
	if err != nil {
		t.Fatalf("index with a corrupt git index: %v", err)
	}
	if head := indextest.Git(t, root, "rev-parse", "HEAD"); res.Revision != head || res.FilesIndexed == 0 {
		t.Fatalf("indexed %d files at %q, want the last commit %s", res.FilesIndexed, res.Revision, head)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "cannot tell whether") ||
		!strings.Contains(notes, "indexed the last commit only") {
		t.Fatalf("notes %q: want them to say git status failed and the last commit was indexed", notes)
	}
}
