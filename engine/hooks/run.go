package hooks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The run side: what `spelunk hooks run`, started by an installed hook, uses
// before it indexes. The files live in the working tree's own git dir, since
// each worktree is indexed as a repository of its own.
const (
	LogFile   = "spelunk-hook.log"
	runLock   = "spelunk-hook.lock"  // held by the run that is indexing
	queueLock = "spelunk-hook.queue" // held by the one run waiting behind it
	maxLog    = 1 << 20              // the log is rotated past this size
)

// Skip says why a hook firing needs no index run, or "" when it does.
func Skip(loc Location, hook string, args []string) string {
	switch hook {
	case "post-checkout":
		// post-checkout PREV NEW FLAG: FLAG 0 is a checkout of files, which
		// leaves HEAD, the revision the index reads, where it was.
		if len(args) == 3 && args[2] == "0" {
			return "a checkout of files: HEAD did not move"
		}
		if len(args) == 3 && args[0] == args[1] {
			return "HEAD did not move"
		}
	case "post-commit":
		// A rebase fires post-commit for every commit it picks and post-rewrite
		// once at the end (also while its state directory is still there), so
		// the intermediate commits need no run of their own.
		for _, d := range []string{"rebase-merge", "rebase-apply"} {
			if fi, err := os.Stat(filepath.Join(loc.GitDir, d)); err == nil && fi.IsDir() {
				return "a rebase is in progress: its post-rewrite indexes the result"
			}
		}
	}
	return ""
}

// ClearGitEnv removes the variables git sets for a hook that name the
// repository's files (GIT_DIR, GIT_INDEX_FILE, ...): a commit of chosen paths
// points GIT_INDEX_FILE at a temporary index that is gone by the time the
// background run reads the repository.
func ClearGitEnv(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--local-env-vars").Output()
	if err != nil {
		return fmt.Errorf("git rev-parse --local-env-vars: %w", err)
	}
	for _, name := range strings.Fields(string(out)) {
		if err := os.Unsetenv(name); err != nil {
			return fmt.Errorf("unset %s: %w", name, err)
		}
	}
	return nil
}

// OpenLog opens gitDir's hook log for appending. Past maxLog it is renamed to
// a .1 file first (replacing the previous one), so the log never grows without
// bound however many commits run the hooks.
func OpenLog(gitDir string) (*os.File, error) {
	p := filepath.Join(gitDir, LogFile)
	if fi, err := os.Stat(p); err == nil && fi.Size() > maxLog {
		_ = os.Rename(p, p+".1") // at worst the log grows once more
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("hook log: %w", err)
	}
	return f, nil
}

// Coalesce runs fn for gitDir, one run at a time, and drops a run that is not
// needed. A burst of hooks (a rebase, a pull) asks for many runs; only two
// matter: the one indexing, and one that starts after it. So a call takes the
// queue lock (or, when another call waits there already, returns false without
// running: that waiting call starts later than this one and sees the same
// commit), waits for the run lock, lets go of the queue lock and runs fn. Both
// are flock locks, released by the kernel when a run dies, so nothing stale
// is ever left to clean up. Without flock (not unix) every call runs fn; the
// index's own lock still serialises them.
func Coalesce(gitDir string, fn func() error) (bool, error) {
	queue, err := lockFile(filepath.Join(gitDir, queueLock), false)
	if err != nil {
		return false, fmt.Errorf("hook queue lock: %w", err)
	}
	if queue == nil {
		return false, nil
	}
	run, err := lockFile(filepath.Join(gitDir, runLock), true)
	queue.Close() // a later hook may queue now: this run has not read HEAD yet
	if err != nil {
		return false, fmt.Errorf("hook run lock: %w", err)
	}
	defer run.Close()
	return true, fn()
}
