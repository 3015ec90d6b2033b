package source

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestIgnored: git and a plain directory agree on what a watcher skips:
// ignored files and directories (also below a nested .gitignore), anything
// in .git, dependency directories, while tracked files and plain source pass.
func TestIgnored(t *testing.T) {
	files := map[string]string{
		".gitignore":        "*.log\nbuild/\n",
		"src/.gitignore":    "gen.go\n",
		"src/main.go":       "package main\n",
		"src/gen.go":        "package main\n",
		"build/out.go":      "package out\n",
		"app.log":           "x\n",
		"node_modules/x.js": "x\n",
	}
	paths := []string{"src/main.go", "src/gen.go", "build", "build/out.go", "app.log", ".git/HEAD",
		"src/new.go", "missing/dir/x.go", "node_modules/x.js"}
	want := []string{".git/HEAD", "app.log", "build", "build/out.go", "src/gen.go"}
	t.Run("git", func(t *testing.T) {
		dir := newRepo(t, files, false)
		gitT(t, dir, "add", "-f", "node_modules/x.js") // tracked: never ignored
		got := ignoredList(t, openT(t, dir), paths)
		if !slices.Equal(got, want) {
			t.Errorf("ignored %v, want %v", got, want)
		}
	})
	t.Run("plain", func(t *testing.T) {
		dir := realTempDir(t)
		writeFiles(t, dir, files)
		got := ignoredList(t, openT(t, dir), paths)
		if w := append(slices.Clone(want), "node_modules/x.js"); !slices.Equal(got, sorted(w)) {
			t.Errorf("ignored %v, want %v", got, sorted(w))
		}
	})
}

func ignoredList(t *testing.T, r *Repo, paths []string) []string {
	t.Helper()
	ig, err := r.Ignored(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, ok := range ig {
		if ok {
			out = append(out, p)
		}
	}
	return sorted(out)
}

func sorted(s []string) []string { slices.Sort(s); return s }

// TestGitDirs: a linked worktree has a git directory of its own and shares
// the main one's common directory.
func TestGitDirs(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"}, true)
	gd, cd, err := openT(t, dir).GitDirs(context.Background())
	if want := filepath.Join(dir, ".git"); err != nil || gd != want || cd != want {
		t.Fatalf("main work tree: %s, %s, %v; want %s twice", gd, cd, err, want)
	}
	wt := filepath.Join(realTempDir(t), "wt")
	gitT(t, dir, "worktree", "add", "-q", wt)
	gd, cd, err = openT(t, wt).GitDirs(context.Background())
	if err != nil || gd != filepath.Join(dir, ".git", "worktrees", "wt") || cd != filepath.Join(dir, ".git") {
		t.Fatalf("linked worktree: %s, %s, %v", gd, cd, err)
	}
	if _, err := os.Stat(filepath.Join(gd, "HEAD")); err != nil {
		t.Fatal(err)
	}
}
