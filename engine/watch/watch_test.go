package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestFollowsTheWorkingTree: a new file becomes searchable, an edit replaces
// its rows, a deletion removes them; ignored files and directories never get
// rows (nor a run); files in a directory created after the start are seen.
func TestFollowsTheWorkingTree(t *testing.T) {
	root := repoWith(t, map[string]string{".gitignore": "*.gen.go\nnode_modules/\n"})
	db := pgtest.Open(t)
	w := start(t, db, root, Options{})
	waitRuns(t, w.rec, 1) // the catch-up run: a first index here

	write(t, root, "cart/wishlist.go", "package cart\n\n// AddToWishlist keeps an item for later.\nfunc AddToWishlist(id string) {}\n")
	waitFor(t, "AddToWishlist indexed", func() bool { return symbols(t, db, "AddToWishlist") == 1 }, w.rec)
	if rev := revisionOf(t, db, "cart/wishlist.go"); rev != "working-tree" {
		t.Errorf("a new file's revision: %q", rev)
	}

	write(t, root, "cart/wishlist.go", "package cart\n\n// DropFromWishlist forgets an item.\nfunc DropFromWishlist(id string) {}\n")
	waitFor(t, "the edit indexed", func() bool {
		return symbols(t, db, "DropFromWishlist") == 1 && symbols(t, db, "AddToWishlist") == 0
	}, w.rec)

	if err := os.Remove(filepath.Join(root, "cart/wishlist.go")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deletion indexed", func() bool {
		return count(t, db, `SELECT count(*) FROM files WHERE path = 'cart/wishlist.go'`) == 0 &&
			symbols(t, db, "DropFromWishlist") == 0
	}, w.rec)

	write(t, root, "cart/hidden.gen.go", "package cart\n\nfunc Hidden() {}\n")
	write(t, root, "node_modules/left-pad/index.js", "function leftPad() {}\n")
	write(t, root, "newpkg/deep/deep.go", "package deep\n\nfunc Deep() {}\n")
	waitFor(t, "a file in a new directory indexed", func() bool { return symbols(t, db, "Deep") == 1 }, w.rec)
	write(t, root, "newpkg/deep/deeper.go", "package deep\n\nfunc Deeper() {}\n")
	waitFor(t, "a second file in the new directory indexed", func() bool { return symbols(t, db, "Deeper") == 1 }, w.rec)

	if n := symbols(t, db, "Hidden") + symbols(t, db, "leftPad"); n != 0 {
		t.Errorf("%d symbols of ignored files indexed", n)
	}
	for _, r := range w.rec.runs() {
		for _, p := range r.Paths {
			if strings.HasSuffix(p, ".gen.go") || strings.HasPrefix(p, "node_modules") {
				t.Errorf("run %q was given the ignored path %s", r.Reason, p)
			}
		}
		if r.Paths == nil && r.Reason != "start" {
			t.Errorf("a run of the whole tree for %q: saves should run over their paths", r.Reason)
		}
	}
	matchesClean(t, db, root, index.Options{WorkingTree: true})
}

// TestBurstIsOneRun: many files written at once are one incremental run of
// the whole tree, not one run each.
func TestBurstIsOneRun(t *testing.T) {
	root := repoWith(t, nil)
	db := pgtest.Open(t)
	// A long quiet time, so that however slowly a loaded machine writes the
	// files, they arrive as one burst (at load 20 on 2 cores, 1 s was not).
	w := start(t, db, root, Options{Debounce: 6 * patienceUnit, MaxDelay: patience, MaxPaths: 100})
	waitRuns(t, w.rec, 1)
	const n = 300
	for i := range n {
		write(t, root, fmt.Sprintf("gen/d%02d/f%03d.go", i%10, i), fmt.Sprintf("package d%02d\n\nfunc Gen%03d() {}\n", i%10, i))
	}
	waitFor(t, "the burst indexed", func() bool {
		return count(t, db, `SELECT count(*) FROM symbols WHERE name LIKE 'Gen%'`) == n
	}, w.rec)
	runs := writing(waitRuns(t, w.rec, 2)[1:])
	if len(runs) != 1 || runs[0].Paths != nil || runs[0].Summary.FilesIndexed != n {
		t.Errorf("want one run of the whole tree writing %d files after the start; events:\n%s", n, w.rec)
	}
}

// TestFollowsHead: a commit relabels the committed rows with the commit; a
// branch switch of many files is one run; a stash takes the edit away and
// pop brings it back. After each, the index is the one a clean run makes.
func TestFollowsHead(t *testing.T) {
	root := repoWith(t, nil)
	git(t, root, "checkout", "-q", "-b", "big")
	for i := range 600 {
		write(t, root, fmt.Sprintf("gen/d%02d/f%03d.go", i%12, i), fmt.Sprintf("package d%02d\n\nfunc Gen%03d() {}\n", i%12, i))
	}
	write(t, root, "cart/extra.go", "package cart\n\nfunc Extra() {}\n")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "big")
	git(t, root, "checkout", "-q", "main")
	db := pgtest.Open(t)
	w := start(t, db, root, Options{Debounce: patienceUnit})
	waitRuns(t, w.rec, 1)

	// A saved file, then committed: its rows now carry the commit.
	write(t, root, "cart/wish.go", "package cart\n\nfunc Wish() {}\n")
	waitFor(t, "Wish indexed", func() bool { return symbols(t, db, "Wish") == 1 }, w.rec)
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "wish")
	head := git(t, root, "rev-parse", "HEAD")
	waitFor(t, "the commit followed", func() bool {
		c, wt := lastCommit(t, db)
		return c == head && !wt && revisionOf(t, db, "cart/wish.go") == head
	}, w.rec)
	matchesClean(t, db, root, index.Options{})

	// A branch switch: hundreds of files, one run.
	before := len(waitRuns(t, w.rec, 1))
	git(t, root, "checkout", "-q", "big")
	big := git(t, root, "rev-parse", "HEAD")
	waitFor(t, "the checkout followed", func() bool {
		c, _ := lastCommit(t, db)
		return c == big && symbols(t, db, "Gen599") == 1 && symbols(t, db, "Wish") == 0
	}, w.rec)
	runs := waitRuns(t, w.rec, before+1)
	if extra := writing(runs[before:]); len(extra) != 1 || extra[0].Paths != nil {
		t.Errorf("the checkout took %d runs; want one of the whole tree; events:\n%s", len(extra), w.rec)
	}
	matchesClean(t, db, root, index.Options{})

	// A stash takes an edit away; pop brings it back.
	appendTo(t, root, "cart/cart.go", "\nfunc Stashed() {}\n")
	waitFor(t, "the edit indexed", func() bool { return symbols(t, db, "Stashed") == 1 }, w.rec)
	git(t, root, "stash", "-q")
	waitFor(t, "the stash followed", func() bool {
		return symbols(t, db, "Stashed") == 0 && revisionOf(t, db, "cart/cart.go") == big
	}, w.rec)
	git(t, root, "stash", "pop", "-q")
	waitFor(t, "the pop followed", func() bool {
		return symbols(t, db, "Stashed") == 1 && revisionOf(t, db, "cart/cart.go") == "working-tree"
	}, w.rec)
	matchesClean(t, db, root, index.Options{WorkingTree: true})

	// Back: hundreds of files and their directories removed, one run; the
	// uncommitted edit stays.
	before = len(waitRuns(t, w.rec, 1))
	git(t, root, "checkout", "-q", "main")
	waitFor(t, "the way back followed", func() bool {
		c, wt := lastCommit(t, db)
		return c == head && wt && symbols(t, db, "Gen000") == 0 && symbols(t, db, "Wish") == 1
	}, w.rec)
	runs = waitRuns(t, w.rec, before+1)
	if extra := writing(runs[before:]); len(extra) != 1 || extra[0].Paths != nil {
		t.Errorf("the checkout back took %d runs; want one of the whole tree; events:\n%s", len(extra), w.rec)
	}
	matchesClean(t, db, root, index.Options{WorkingTree: true})
}

// TestGitLockHoldsTheRun: while git holds index.lock, files written into
// directories created meanwhile (as a checkout writes them) keep the watcher
// waiting, however long the writing takes; one run follows the lock's removal.
func TestGitLockHoldsTheRun(t *testing.T) {
	root := repoWith(t, nil)
	db := pgtest.Open(t)
	const quiet = 2 * time.Second
	w := start(t, db, root, Options{Debounce: 100 * time.Millisecond, gitQuiet: quiet})
	waitRuns(t, w.rec, 1)
	lock := filepath.Join(root, ".git", "index.lock")
	write(t, root, ".git/index.lock", "")
	// Longer than the quiet time in all, never quiet that long.
	const n = 40
	for i := range n {
		write(t, root, fmt.Sprintf("gen/d%d/f%02d.go", i/10, i), fmt.Sprintf("package d%d\n\nfunc Locked%02d() {}\n", i/10, i))
		time.Sleep(3 * quiet / n)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the files indexed", func() bool {
		return len(writing(w.rec.runs()[1:])) > 0 && count(t, db, `SELECT count(*) FROM symbols WHERE name LIKE 'Locked%'`) == n
	}, w.rec)
	if runs := writing(w.rec.runs()[1:]); len(runs) != 1 {
		t.Errorf("%d runs wrote files while and after git held the lock; want 1; events:\n%s", len(runs), w.rec)
	}
}

// TestOneWatcherPerRepository: a second watcher of the repository stands by
// and runs nothing while the first leads, and takes over when it stops.
func TestOneWatcherPerRepository(t *testing.T) {
	root := repoWith(t, nil)
	db := pgtest.Open(t)
	leading := func() bool {
		on, err := Leading(context.Background(), db, mustRepoID(t, db))
		if err != nil {
			t.Fatal(err)
		}
		return on
	}
	a := start(t, db, root, Options{})
	waitRuns(t, a.rec, 1)
	if !leading() {
		t.Error("Leading is false while a watcher leads")
	}
	b := start(t, db, root, Options{})
	waitFor(t, "the second watcher standing by", func() bool { return len(b.rec.of(Standby)) == 1 }, b.rec)

	write(t, root, "cart/one.go", "package cart\n\nfunc One() {}\n")
	waitFor(t, "One indexed", func() bool { return symbols(t, db, "One") == 1 }, a.rec)
	if n := len(b.rec.of(Indexing)) + len(b.rec.of(Watching)); n != 0 {
		t.Fatalf("the standby watcher was active; events:\n%s", b.rec)
	}

	a.stop()
	waitRuns(t, b.rec, 1) // its catch-up run, as the new leader
	write(t, root, "cart/two.go", "package cart\n\nfunc Two() {}\n")
	waitFor(t, "Two indexed by the second watcher", func() bool {
		return slices.ContainsFunc(b.rec.runs(), func(ev Event) bool { return slices.Contains(ev.Paths, "cart/two.go") })
	}, b.rec)
	if symbols(t, db, "Two") != 1 {
		t.Errorf("Two not indexed by the new leader's run; events:\n%s", b.rec)
	}
	b.stop()
	if leading() {
		t.Error("Leading is true with no watcher left")
	}
}

// TestPlainDirectory: outside git the watcher follows the files too, with
// the directory's .gitignore applied.
func TestPlainDirectory(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, ".gitignore", "out/\n")
	write(t, root, "main.go", "package main\n\nfunc main() {}\n")
	db := pgtest.Open(t)
	w := start(t, db, root, Options{})
	waitRuns(t, w.rec, 1)
	write(t, root, "out/gen.go", "package out\n\nfunc Generated() {}\n")
	write(t, root, "lib/lib.go", "package lib\n\nfunc Lib() {}\n")
	waitFor(t, "Lib indexed", func() bool { return symbols(t, db, "Lib") == 1 }, w.rec)
	if symbols(t, db, "Generated") != 0 {
		t.Error("a file of an ignored directory was indexed")
	}
}

func appendTo(t testing.TB, root, rel, content string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(rel)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

func mustRepoID(t testing.TB, db *pg.DB) int64 {
	t.Helper()
	var id int64
	if err := db.Pool.QueryRow(context.Background(), `SELECT id FROM repositories`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}
