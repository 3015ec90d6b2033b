package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/spelunkhq/spelunk/engine/source"
)

// TestWatchedDirectories: the directories git would list are watched;
// ignored ones, .git, nested repositories and symbolic links are not.
func TestWatchedDirectories(t *testing.T) {
	root := repoWith(t, map[string]string{".gitignore": "node_modules/\n/build\n"})
	for _, d := range []string{"node_modules/pkg/lib", "build/out", "vendored/.git", "empty/inner"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "cart"), filepath.Join(root, "cartlink")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo, err := source.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	s := &session{w: New(nil, nil, root, Options{}), root: root, repo: repo, fsw: fsw, dirs: map[string]bool{}, pend: newPending()}
	if _, err := s.addTree(ctx, []string{""}, false); err != nil {
		t.Fatal(err)
	}
	got := sortedKeys(s.dirs)
	for _, want := range []string{"", "cart", "billing", "empty", "empty/inner", "py/shop"} {
		if !slices.Contains(got, want) {
			t.Errorf("%q is not watched; watched: %q", want, got)
		}
	}
	for _, not := range []string{".git", "node_modules", "node_modules/pkg", "build", "vendored", "cartlink"} {
		if slices.Contains(got, not) {
			t.Errorf("%q is watched; watched: %q", not, got)
		}
	}
	if n := len(fsw.WatchList()); n != len(got) {
		t.Errorf("%d inotify watches for %d directories", n, len(got))
	}

	// A directory moved away takes its subdirectories' watches with it.
	s.dropTree("empty")
	if s.dirs["empty/inner"] || len(fsw.WatchList()) != len(got)-2 {
		t.Errorf("after dropping empty/: %q, %d watches", sortedKeys(s.dirs), len(fsw.WatchList()))
	}
}
