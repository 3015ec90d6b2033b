package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestIncrementalEqualsClean is the differential test of issue 36: random
// sequences of changes to the fixture (indextest.Ops: definitions added,
// removed, moved between files and changed; files added, deleted, renamed
// and moved; commits; branch switches), each followed by a run of a random
// kind (at HEAD, of the working tree, over the paths changed as a watcher
// would name them), a quarter of them stopped part way and run again; after
// every step the incremental index is compared row for row (files, symbols
// with their hashes, edges with confidence and candidates, postings,
// vectors) with a clean index of the same tree. A failing sequence is shrunk
// by leaving changes out and reported with its seed and the changes kept,
// replayable with SPELUNK_DIFF_REPLAY=seed:i,j,...
//
// make test runs two seeds of 12 steps; SPELUNK_SOAK=steps (make soak) runs
// SPELUNK_SOAK_SEEDS seeds (default 5) of that many steps.
func TestIncrementalEqualsClean(t *testing.T) {
	seeds, steps := []uint64{1, 2}, 12
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK")); err == nil && n > 0 {
		count, _ := strconv.Atoi(os.Getenv("SPELUNK_SOAK_SEEDS"))
		seeds, steps = nil, n
		for s := range max(count, 5) {
			seeds = append(seeds, uint64(100+s))
		}
	}
	if spec := os.Getenv("SPELUNK_DIFF_REPLAY"); spec != "" {
		seed, keep := parseReplay(t, spec)
		ops := indextest.Ops(seed, maxKept(keep)+1)
		if f := replay(t, pick(ops, keep)); f != nil {
			t.Fatal(f)
		}
		return
	}
	total, stopped := 0, 0
	for _, seed := range seeds {
		ops := indextest.Ops(seed, steps)
		f := replay(t, ops)
		if f == nil {
			total += len(ops)
			stopped += countStops(ops)
			continue
		}
		keep := shrink(t, ops, f.step)
		t.Fatalf("seed %d fails at step %d of %d: %v\nshrunk to %d changes, replay with SPELUNK_DIFF_REPLAY=%d:%s\n%s",
			seed, f.step, len(ops), f, len(keep), seed, joinInts(keep), describe(ops, keep))
	}
	t.Logf("%d seeds, %d steps (%d runs stopped part way), 0 rows differ", len(seeds), total, stopped)
}

// failure is where a replay first differed from a clean index.
type failure struct {
	step int
	what string
}

func (f *failure) Error() string { return f.what }

// replay applies ops to a fresh copy of the fixture, indexing after each,
// and returns the first difference from a clean index (nil: none).
func replay(t *testing.T, ops []indextest.Op) *failure {
	t.Helper()
	ctx := context.Background()
	tree := indextest.NewTree(t, indextest.Repo(t))
	db, cleanDB := pgtest.Open(t), pgtest.Open(t)
	ix := index.New(db, hashing())
	first, err := ix.Index(ctx, tree.Root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	workingTree := false // the last run's kind, which a paths run must follow
	for i, o := range ops {
		did := tree.Apply(o)
		opts, kind := runKind(o, tree, workingTree)
		stopped := ""
		if stops(o) {
			sopts, sctx, at := stopAt(1 + int(o.R[5]*160))
			sopts.WorkingTree, sopts.Paths = opts.WorkingTree, opts.Paths
			_, err := ix.Index(sctx, tree.Root, sopts)
			if err != nil && !errors.Is(context.Cause(sctx), errStopped) {
				return &failure{i, fmt.Sprintf("step %d (%s), stopped %s run: %v", i, did, kind, err)}
			}
			stopped = " stopped at " + at() + " then"
		}
		if _, err := ix.Index(ctx, tree.Root, opts); err != nil {
			return &failure{i, fmt.Sprintf("step %d (%s),%s %s run: %v", i, did, stopped, kind, err)}
		}
		workingTree = opts.WorkingTree
		tree.ResetTouched()
		want := cleanRows(t, cleanDB, tree.Root, index.Options{WorkingTree: opts.WorkingTree})
		if d := indextest.DiffRows(indextest.Rows(t, db, first.RepositoryID), want, 30); d != "" {
			return &failure{i, fmt.Sprintf("step %d (%s),%s %s run: %s", i, did, stopped, kind, d)}
		}
	}
	return nil
}

// runKind is the run that follows o: over the paths changed (as a watcher
// names them) when the last run was of the working tree and nothing was
// committed since, else of the working tree or at HEAD.
func runKind(o indextest.Op, tree *indextest.Tree, workingTree bool) (index.Options, string) {
	r := o.R[4]
	switch {
	case r < 0.35 && workingTree && !tree.Committed && len(tree.Touched()) > 0:
		return index.Options{Paths: tree.Touched(), WorkingTree: true}, "paths"
	case r < 0.7:
		return index.Options{WorkingTree: true}, "working-tree"
	}
	return index.Options{}, "HEAD"
}

// stops reports whether the run after o is first stopped part way.
func stops(o indextest.Op) bool { return o.R[5] < 0.25 }

func countStops(ops []indextest.Op) int {
	n := 0
	for _, o := range ops {
		if stops(o) {
			n++
		}
	}
	return n
}

// cleanRows indexes root from scratch into db (under a key of its own,
// dropped after) and returns its rows.
func cleanRows(t *testing.T, db *pg.DB, root string, opts index.Options) []string {
	t.Helper()
	ctx := context.Background()
	opts.StoreAs = "clean:" + root
	sum, err := index.New(db, hashing()).Index(ctx, root, opts)
	if err != nil {
		t.Fatalf("clean index: %v", err)
	}
	rows := indextest.Rows(t, db, sum.RepositoryID)
	for _, table := range []string{"edges", "postings", "symbol_embeddings", "symbols", "files"} {
		if _, err := db.Pool.Exec(ctx, `DELETE FROM `+table+` WHERE repository_id = $1`, sum.RepositoryID); err != nil {
			t.Fatalf("drop the clean index: %v", err)
		}
	}
	if _, err := db.Pool.Exec(ctx, `DELETE FROM repositories WHERE id = $1`, sum.RepositoryID); err != nil {
		t.Fatalf("drop the clean index: %v", err)
	}
	return rows
}

// shrink leaves changes out of a failing sequence while it still fails
// (halves, then quarters, down to single changes), within a budget of
// replays, and returns the indexes of the changes kept.
func shrink(t *testing.T, ops []indextest.Op, failedAt int) []int {
	keep := make([]int, failedAt+1)
	for i := range keep {
		keep[i] = i
	}
	budget := 24
	for chunk := len(keep) / 2; chunk >= 1 && budget > 0; chunk /= 2 {
		for start := 0; start < len(keep) && budget > 0; {
			try := append(append([]int{}, keep[:start]...), keep[min(start+chunk, len(keep)):]...)
			budget--
			if len(try) > 0 && replayQuiet(t, pick(ops, try)) {
				keep = try
				continue
			}
			start += chunk
		}
	}
	return keep
}

// replayQuiet reports whether ops fail, in a subtest whose failure is not
// the parent's.
func replayQuiet(t *testing.T, ops []indextest.Op) bool {
	failed := false
	t.Run("shrink", func(t *testing.T) { failed = replay(t, ops) != nil })
	return failed
}

func pick(ops []indextest.Op, keep []int) []indextest.Op {
	out := make([]indextest.Op, 0, len(keep))
	for _, i := range keep {
		out = append(out, ops[i])
	}
	return out
}

func describe(ops []indextest.Op, keep []int) string {
	var b strings.Builder
	for _, i := range keep {
		fmt.Fprintf(&b, "  %d: %v\n", i, ops[i])
	}
	return b.String()
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

func maxKept(keep []int) int {
	m := 0
	for _, k := range keep {
		m = max(m, k)
	}
	return m
}

func parseReplay(t *testing.T, spec string) (uint64, []int) {
	seedText, list, _ := strings.Cut(spec, ":")
	seed, err := strconv.ParseUint(seedText, 10, 64)
	if err != nil {
		t.Fatalf("SPELUNK_DIFF_REPLAY=%s: want seed:i,j,...", spec)
	}
	var keep []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("SPELUNK_DIFF_REPLAY=%s: want seed:i,j,...", spec)
		}
		keep = append(keep, n)
	}
	return seed, keep
}
