package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitTopLevel finds the work tree as `git rev-parse --show-toplevel` does, from
// any directory below it, including in a linked worktree (whose .git is a file).
func TestGitTopLevelMatchesGit(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(repo, "init", "-q")
	git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
	wt := filepath.Join(root, "wt")
	git(repo, "worktree", "add", "-q", wt)
	for dir, want := range map[string]string{repo: repo, deep: repo, wt: wt, root: root} {
		t.Chdir(dir)
		got, err := gitTopLevel(context.Background())
		if err != nil || got != want {
			t.Errorf("in %s: %q, %v; want %s", dir, got, err, want)
		}
	}
}
