package watch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// BenchmarkBranchSwitch measures what issue 14 asks of a branch switch: the
// index matches a clean index of the new HEAD, with the same rows, within
// the time of one incremental run. The watched repository is indexed clean
// at FROM (its rows kept as the reference for the way back), the watcher
// started, then `git checkout TO` and back to FROM. Reported per direction:
// switch-ms, from the checkout's start until the watcher's run has finished;
// run-ms, that run alone; and clean-ms, a clean index of the same commit
// (TO: a clone under another repository key; FROM: the first index). After
// each switch every row (indextest.Rows) is compared with the clean index's
// and any difference fails the benchmark.
//
// The repository is the fixture with two branches, or
// SPELUNK_BENCH_SWITCH_REPO (a git repository, cloned with --shared) between
// SPELUNK_BENCH_SWITCH_FROM and SPELUNK_BENCH_SWITCH_TO (commits or tags).
func BenchmarkBranchSwitch(b *testing.B) {
	root, from, to := switchRepo(b)
	ctx := context.Background()
	db := pgtest.Open(b)
	t0 := time.Now()
	first, err := index.New(db, hashing()).Index(ctx, root, index.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cleanFrom := time.Since(t0)
	b.Logf("clean index at %.12s: %d files, %d symbols, %d edges in %s", from, first.FilesIndexed, first.Symbols, first.Edges, cleanFrom.Round(time.Millisecond))
	fromRows := indextest.Rows(b, db, first.RepositoryID)
	w := start(b, db, root, Options{})
	waitRuns(b, w.rec, 1)
	for b.Loop() {
		sw, run := switchTo(b, db, w, root, to)
		t0 := time.Now()
		clean, err := index.New(db, hashing()).Index(ctx, indextest.CloneAt(b, root, to), index.Options{})
		if err != nil {
			b.Fatal(err)
		}
		cleanTo := time.Since(t0)
		sameRows(b, indextest.Rows(b, db, first.RepositoryID), indextest.Rows(b, db, clean.RepositoryID), to)
		b.ReportMetric(ms(sw), "to-switch-ms")
		b.ReportMetric(ms(run), "to-run-ms")
		b.ReportMetric(ms(cleanTo), "to-clean-ms")

		sw, run = switchTo(b, db, w, root, from)
		sameRows(b, indextest.Rows(b, db, first.RepositoryID), fromRows, from)
		b.ReportMetric(ms(sw), "back-switch-ms")
		b.ReportMetric(ms(run), "back-run-ms")
		b.ReportMetric(ms(cleanFrom), "back-clean-ms")
	}
	b.ReportMetric(0, "ns/op") // one op is two switches and a clean index: its time says nothing
}

// switchTo checks out commit and waits for the watcher's run: the time from
// the checkout's start to the run's end, and the run's own.
func switchTo(b *testing.B, db *pg.DB, w *watching, root, commit string) (total, run time.Duration) {
	b.Helper()
	before := len(waitRuns(b, w.rec, 1))
	t0 := time.Now()
	git(b, root, "checkout", "-q", "--detach", commit)
	// A real repository's switch may take longer than patience on a loaded machine.
	for deadline := t0.Add(benchPatience); ; time.Sleep(10 * time.Millisecond) {
		if c, wt := commitOf(b, db, root); c == commit && !wt && len(w.rec.runs()) > before {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the switch to %s not followed after %s; events:\n%s", commit, benchPatience, w.rec)
		}
	}
	total = time.Since(t0)
	runs := writing(waitRuns(b, w.rec, before+1)[before:])
	if len(runs) != 1 {
		b.Fatalf("the switch to %s took %d runs that wrote files; want 1; events:\n%s", commit, len(runs), w.rec)
	}
	return total, runs[0].Duration
}

func sameRows(b *testing.B, got, want []string, commit string) {
	b.Helper()
	if d := indextest.DiffRows(got, want, 60); d != "" {
		if out := os.Getenv("SPELUNK_BENCH_SWITCH_DIFF"); out != "" {
			_ = os.WriteFile(out, []byte(indextest.DiffRows(got, want, len(got)+len(want))), 0o644)
		}
		b.Fatalf("at %s the watched index differs from a clean one (%d vs %d rows): %s", commit, len(got), len(want), d)
	}
	b.Logf("at %.12s: %d rows, the same as a clean index's", commit, len(got))
}

// benchPatience bounds the wait for a switch of a real repository.
const benchPatience = 30 * time.Minute

// switchRepo is the repository to switch and its two commits, FROM checked out.
func switchRepo(b *testing.B) (root, from, to string) {
	src := os.Getenv("SPELUNK_BENCH_SWITCH_REPO")
	if src == "" {
		root, from, to = indextest.Branches(b)
		git(b, root, "checkout", "-q", "--detach", from)
		return root, from, to
	}
	dst := filepath.Join(b.TempDir(), filepath.Base(src))
	git(b, b.TempDir(), "clone", "-q", "--shared", "--no-checkout", src, dst)
	from = present(b, dst, os.Getenv("SPELUNK_BENCH_SWITCH_FROM"), "")
	to = present(b, dst, os.Getenv("SPELUNK_BENCH_SWITCH_TO"), from)
	git(b, dst, "checkout", "-q", "--detach", from)
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		b.Fatal(err)
	}
	return real, from, to
}

// present makes a commit (on parent, if any) of ref's tree without the blobs
// the repository lacks: the clones under /work/repos leave out a few of their
// largest files, which a checkout cannot write, so the working tree would
// never be clean. With them, the tree is ref's as it is.
func present(b *testing.B, dir, ref, parent string) string {
	b.Helper()
	index := filepath.Join(b.TempDir(), "index")
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=spelunk", "-c", "user.email=spelunk@example.com"}, args...)...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	run("", "read-tree", ref+"^{tree}")
	var oids, paths []string
	for _, l := range strings.Split(run("", "ls-files", "-s"), "\n") {
		meta, path, _ := strings.Cut(l, "\t")
		if f := strings.Fields(meta); len(f) == 3 && f[0] != "160000" {
			oids, paths = append(oids, f[1]), append(paths, path)
		}
	}
	var gone []string
	for i, l := range strings.Split(run(strings.Join(oids, "\n")+"\n", "cat-file", "--batch-check"), "\n") {
		if strings.HasSuffix(l, " missing") {
			gone = append(gone, paths[i])
		}
	}
	if len(gone) > 0 {
		run("", append([]string{"update-index", "--force-remove", "--"}, gone...)...)
		b.Logf("%s: %d files whose blobs the repository lacks left out: %s", ref, len(gone), strings.Join(gone, ", "))
	}
	args := []string{"commit-tree", run("", "write-tree"), "-m", fmt.Sprintf("%s without the blobs this clone lacks", ref)}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	return run("", args...)
}
