package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// errStopped is the cause a test's cancel gives a run it stops.
var errStopped = errors.New("stopped by the test")

// stopAt is options for a run cancelled at its n-th progress report (1-based;
// a report comes at every phase boundary and every batch of one file), and
// the phase it was in then, once it stopped. A run with fewer reports
// completes.
func stopAt(n int) (index.Options, context.Context, func() string) {
	ctx, cancel := context.WithCancelCause(context.Background())
	opts := index.Options{Workers: 1, ProgressEvery: time.Nanosecond}
	index.SetBatchFiles(&opts, 1)
	seen, at := 0, ""
	opts.Progress = func(p index.Progress) {
		seen++
		if seen == n {
			at = fmt.Sprintf("%s after %d files", p.Phase, p.FilesDone)
			cancel(errStopped)
		}
	}
	return opts, ctx, func() string { return at }
}

// TestInterruptedRunIsRepaired: an incremental run stopped at any point (a
// context cancelled at every progress report of a branch switch: between
// any two files, at every phase boundary, in the resolution) leaves rows the
// next run brings exactly to a clean index's, both ways. The killed run's
// deletions and rewrites, whose consequences for other files' edges only it
// knew, were never reconsidered (issue 36, 2).
func TestInterruptedRunIsRepaired(t *testing.T) {
	root, mainHead, switchHead := indextest.Branches(t)
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	first, err := ix.Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clean := map[string][]string{}
	for _, head := range []string{mainHead, switchHead} {
		sum, err := ix.Index(ctx, indextest.CloneAt(t, root, head), index.Options{})
		if err != nil {
			t.Fatal(err)
		}
		clean[head] = indextest.Rows(t, db, sum.RepositoryID)
	}
	// Every sixth report in make test (a few seconds); every one under
	// SPELUNK_SOAK (make soak).
	stride := 6
	if soaking() {
		stride = 1
	}
	stops := 0
	for n := 1; ; n += stride {
		done := false
		for _, to := range []struct{ ref, head string }{{indextest.SwitchBranch, switchHead}, {"main", mainHead}} {
			git(t, root, "checkout", "-q", to.ref)
			opts, sctx, at := stopAt(n)
			_, err := ix.Index(sctx, root, opts)
			switch {
			case err == nil:
				done = true
			case !errors.Is(context.Cause(sctx), errStopped):
				t.Fatalf("run %d to %s: %v", n, to.ref, err)
			default:
				stops++
			}
			if _, err := ix.Index(ctx, root, index.Options{}); err != nil {
				t.Fatalf("the run after stopping at report %d: %v", n, err)
			}
			got := indextest.Rows(t, db, first.RepositoryID)
			if d := indextest.DiffRows(got, clean[to.head], 40); d != "" {
				t.Fatalf("to %s, stopped at report %d (%s), then run again: %s", to.ref, n, at(), d)
			}
		}
		if done {
			break
		}
	}
	t.Logf("%d runs stopped, each repaired by the next", stops)
}

// TestSaveAfterInterruptedRunFinishesIt: a one-file run (a watcher's save)
// after a run stopped half way through a branch switch brings the whole
// working tree up to date, rather than writing its file and marking an
// index complete that still holds the stopped run's mix of both branches.
func TestSaveAfterInterruptedRunFinishesIt(t *testing.T) {
	root, _, _ := indextest.Branches(t)
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	first, err := ix.Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	git(t, root, "checkout", "-q", indextest.SwitchBranch)
	opts, sctx, _ := stopAt(12)
	if _, err := ix.Index(sctx, root, opts); !errors.Is(context.Cause(sctx), errStopped) {
		t.Fatalf("the run was not stopped: %v", err)
	}
	appendFile(t, root+"/cart/cart.go", "\n// Saved by an editor.\n")
	if _, err := ix.Index(ctx, root, index.Options{Paths: []string{"cart/cart.go"}}); err != nil {
		t.Fatal(err)
	}
	assertSameAsClean(t, db, first.RepositoryID, root, index.Options{WorkingTree: true})
}

// soaking reports whether the long forms of the differential tests run
// (SPELUNK_SOAK set, as make soak does).
func soaking() bool { return os.Getenv("SPELUNK_SOAK") != "" }
