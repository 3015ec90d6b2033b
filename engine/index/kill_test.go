package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestKilledIndexEqualsClean is the differential test with real kills (issue
// 36): random changes to the fixture (indextest.Ops), each followed by a real
// `spelunk index` process (the binary built from this tree) that is sent
// SIGKILL or SIGINT, in turn, at a random point of its run, then run again to
// the end; after every step the index is compared row for row with a clean
// one of the same tree. A signal that lands after the run finished is counted
// apart: the step still checks the run that follows.
//
// make test runs one seed of 6 steps; SPELUNK_SOAK=steps (make soak) runs
// SPELUNK_SOAK_SEEDS seeds (default 5) of that many steps.
func TestKilledIndexEqualsClean(t *testing.T) {
	seeds, steps := []uint64{7}, 6
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK")); err == nil && n > 0 {
		count, _ := strconv.Atoi(os.Getenv("SPELUNK_SOAK_SEEDS"))
		seeds, steps = nil, n
		for s := range max(count, 5) {
			seeds = append(seeds, uint64(300+s))
		}
	}
	bin := spelunkBinary(t)
	var total killTally
	for _, seed := range seeds {
		k, err := replayKilled(t, bin, seed, indextest.Ops(seed, steps), nil)
		total.add(k)
		if err != nil {
			t.Fatalf("seed %d: %v (after %s)", seed, err, k)
		}
	}
	t.Logf("%d seeds, %d steps: %s, 0 rows differ", len(seeds), total.steps, total)
}

// TestPostmasterKilledIndexEqualsClean is TestKilledIndexEqualsClean with
// the server crashed under the run instead (issue 36): on a cluster of the
// test's own, the postmaster is killed (SIGKILL) or shut down immediately
// (SIGQUIT), in turn, at a random point of a real `spelunk index` process's
// run; the server is started again (crash recovery: by the test, or, every
// other pair of steps, by the next `spelunk index` itself, its embedded
// cluster being this one) and the run made again to the end, then compared
// row for row with a clean index. make test runs
// one seed of 6 steps; SPELUNK_SOAK as for TestKilledIndexEqualsClean.
func TestPostmasterKilledIndexEqualsClean(t *testing.T) {
	seeds, steps := []uint64{11}, 6
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK")); err == nil && n > 0 {
		count, _ := strconv.Atoi(os.Getenv("SPELUNK_SOAK_SEEDS"))
		seeds, steps = nil, n
		for s := range max(count, 5) {
			seeds = append(seeds, uint64(500+s))
		}
	}
	bin := spelunkBinary(t)
	var total killTally
	for _, seed := range seeds {
		k, err := replayKilled(t, bin, seed, indextest.Ops(seed, steps), startOwnServer(t))
		total.add(k)
		if err != nil {
			t.Fatalf("seed %d: %v (after %s)", seed, err, k)
		}
	}
	if total.crashed+total.quit == 0 {
		t.Errorf("no crash landed within a run: %s", total)
	}
	t.Logf("%d seeds, %d steps: %s, 0 rows differ", len(seeds), total.steps, total)
}

// killTally counts the signals sent and where they landed.
type killTally struct {
	steps, killed, interrupted, late int
	crashed, quit                    int // servers crashed under a run: postmaster SIGKILL, immediate shutdown
}

func (k *killTally) add(o killTally) {
	k.steps, k.killed, k.interrupted, k.late = k.steps+o.steps, k.killed+o.killed, k.interrupted+o.interrupted, k.late+o.late
	k.crashed, k.quit = k.crashed+o.crashed, k.quit+o.quit
}

func (k killTally) String() string {
	return fmt.Sprintf("%d runs killed (SIGKILL), %d interrupted (SIGINT), %d servers crashed under a run (%d postmaster SIGKILL, %d immediate shutdown), %d after the run finished",
		k.killed, k.interrupted, k.crashed+k.quit, k.crashed, k.quit, k.late)
}

// replayKilled applies ops to a fresh copy of the fixture; after each, a run
// of the binary is signalled at a random point (or, with srv, srv's server
// crashed under it) and run again, and the index compared with a clean one.
func replayKilled(t *testing.T, bin string, seed uint64, ops []indextest.Op, srv *ownServer) (killTally, error) {
	t.Helper()
	var k killTally
	tree := indextest.NewTree(t, indextest.Repo(t))
	url := pgtest.URL(t)
	if srv != nil {
		url = srv.url
	}
	db, cleanDB := pgtest.OpenTenant(t, url, pg.DefaultTenant), pgtest.Open(t)
	start := time.Now()
	if out, err := indexCmd(bin, url, tree.Root, false).CombinedOutput(); err != nil {
		return k, fmt.Errorf("first run: %v\n%s", err, out)
	}
	last := time.Since(start) // how long the last run took: the next signal lands within it
	rng := rand.New(rand.NewPCG(seed, 0x6b111))
	for i, o := range ops {
		did := tree.Apply(o)
		wt := o.R[4] < 0.6
		sig := []syscall.Signal{syscall.SIGKILL, syscall.SIGINT}[i%2]
		delay := time.Duration(rng.Float64() * float64(last))
		var landed bool
		var err error
		how := sig.String()
		// Every other pair of crashes, the next run starts the server itself.
		selfStart := srv != nil && i%4 >= 2
		if srv != nil {
			sig = crashKinds[i%2]
			how = crashName(sig)
			// Within the first 60 % of the run: a crash after it ended
			// tests nothing, and the test wants some to land.
			landed, err = srv.crashProcess(bin, tree.Root, wt, sig, delay*6/10, !selfStart)
			db.Pool.Reset() // its connections died with the server
			k.countCrash(sig, landed)
		} else {
			landed, err = signalRun(bin, url, tree.Root, wt, sig, delay)
			k.count(sig, landed)
		}
		if err != nil {
			return k, fmt.Errorf("step %d (%s): %v", i, did, err)
		}
		start = time.Now()
		rerun := indexCmd(bin, url, tree.Root, wt)
		if selfStart {
			rerun, how = srv.selfStartCmd(bin, tree.Root, wt), how+" (restarted by spelunk index)"
		}
		if out, err := rerun.CombinedOutput(); err != nil {
			return k, fmt.Errorf("step %d (%s): run after %s: %v\n%s", i, did, how, err, out)
		}
		last = time.Since(start)
		k.steps++
		tree.ResetTouched()
		want := cleanRows(t, cleanDB, tree.Root, index.Options{WorkingTree: wt})
		if d := indextest.DiffRows(indextest.Rows(t, db, repoID(t, db, tree.Root)), want, 30); d != "" {
			return k, fmt.Errorf("step %d (%s), run %s (landed %v), then a %s run: %s", i, did, how, landed, runName(wt), d)
		}
	}
	return k, nil
}

func (k *killTally) count(sig syscall.Signal, landed bool) {
	switch {
	case !landed:
		k.late++
	case sig == syscall.SIGKILL:
		k.killed++
	default:
		k.interrupted++
	}
}

// countCrash counts a server crashed under a run (how: crashKinds).
func (k *killTally) countCrash(how syscall.Signal, landed bool) {
	switch {
	case !landed:
		k.late++
	case how == syscall.SIGKILL:
		k.crashed++
	default:
		k.quit++
	}
}

func runName(workingTree bool) string {
	if workingTree {
		return "working-tree"
	}
	return "HEAD"
}

// signalRun starts an index run, sends it sig after delay and waits for it;
// landed says whether the signal stopped it (else it had finished first). A
// run that fails without being signalled is an error.
func signalRun(bin, url, root string, workingTree bool, sig syscall.Signal, delay time.Duration) (bool, error) {
	cmd := indexCmd(bin, url, root, workingTree)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return false, fmt.Errorf("run before the signal: %v\n%s", err, out)
		}
		return false, nil
	case <-time.After(delay):
	}
	_ = cmd.Process.Signal(sig)
	err := <-done
	var exit *exec.ExitError
	if err == nil || !errors.As(err, &exit) {
		return false, nil // finished before the signal was handled
	}
	return true, nil
}

// indexCmd is `spelunk index root` into url with the tests' hashing embedder.
func indexCmd(bin, url, root string, workingTree bool) *exec.Cmd {
	args := []string{"index", root, "--db", url}
	if workingTree {
		args = append(args, "--working-tree")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash", "SPELUNK_EMBED_DIMS="+strconv.Itoa(hashing().Dims()), "SPELUNK_CACHE=off")
	return cmd
}

func repoID(t *testing.T, db *pg.DB, root string) int64 {
	t.Helper()
	rec, err := db.RepositoryByRoot(context.Background(), root)
	if err != nil {
		t.Fatalf("repository of %s: %v", root, err)
	}
	return rec.ID
}

// spelunkBinary builds cmd/spelunk from this tree, as cmd/spelunk's tests
// build theirs: the process killed is the real one.
func spelunkBinary(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "spelunk")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/spelunk")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lockedBuffer collects a process's output, written from its copy goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
