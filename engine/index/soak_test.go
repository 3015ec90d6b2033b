package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestSoakRepos is the differential soak over real trees (issue 36): seeded
// sequences of the changes a developer makes (indextest.RealOps: bodies
// edited, signatures, names, bases and imports changed, definitions moved
// between files, files added, deleted, renamed and moved, commits, branch
// switches, the working tree reverted) to a clone of each repository, taken
// in turn. After each change one run (at HEAD, of the working tree, or over
// the changed paths as a watcher names them), which is first stopped part
// way in 37 % of the steps: in this process at a progress report, as a
// real `spelunk index` process sent SIGKILL or SIGINT at a random point, or
// by the server crashing under it (its postmaster killed, or shut down
// immediately; each sequence has a server of its own), restarted; then
// every row (files, symbols with their hashes, edges with confidence and
// candidates, postings, vectors, and the anchors of memories pinned to
// definitions along the way) is compared with a clean index of the same
// tree, cached by tree so a tree seen before is not indexed again.
//
// SPELUNK_SOAK_REPOS (repository paths separated by ":"; they are cloned,
// never changed) with SPELUNK_SOAK_STEPS (total, default 5000),
// SPELUNK_SOAK_SEQ (steps of one seed, default 100) and
// SPELUNK_SOAK_MINUTES (default 600), SPELUNK_SOAK_PARALLEL (seeds at once,
// default 1) and SPELUNK_SOAK_SEED (the first seed, default 1000) is
// `make soak SOAK_REPOS=...`; unset, it runs
// 16 steps on the fixture, as make test does. It reports steps, runs stopped,
// rows that differ and the first failing seed, shrunk and replayable with
// SPELUNK_SOAK_REPLAY=repo@seed:i,j,...
func TestSoakRepos(t *testing.T) {
	p := soakPlanFromEnv(t)
	s := &soak{bin: spelunkBinary(t), cache: newCleanCache(24), deadline: time.Now().Add(p.limit)}
	if p.replay != "" {
		s.replay(t, p)
		return
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range p.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, n := s.next(p)
				if n == 0 {
					return
				}
				s.runSeed(t, p.repos[k%len(p.repos)], uint64(p.seed0+k), n)
				s.mu.Lock()
				t.Logf("after %s: %s, clean runs %d (cache hits %d), %d seeds failed",
					time.Since(start).Round(time.Second), s.total, s.cleanRuns, s.cache.hits, len(s.failures))
				s.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("SOAK %d repositories, %d seeds, %s, clean runs %d (cache hits %d), %d rows differ, %s",
		len(p.repos), s.total.seeds, s.total, s.cleanRuns, s.cache.hits, s.rowsDiffer, time.Since(start).Round(time.Second))
	if len(s.failures) > 0 {
		f := s.failures[0]
		if f.shrunk == nil {
			f.shrunk = s.shrink(t, f, f.ops)
		}
		t.Fatalf("%d seeds failed; the first: %s@%d at step %d: %s\nshrunk to %d changes, replay with SPELUNK_SOAK_REPLAY=%s@%d:%s\n%s",
			len(s.failures), f.repo, f.seed, f.step, f.what, len(f.shrunk), f.repo, f.seed, joinInts(f.shrunk), describe(f.ops, f.shrunk))
	}
}

// next hands out the next seed and its length (0: the soak is done).
func (s *soak) next(p soakPlan) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := min(p.seq, p.steps-s.planned)
	if n <= 0 || time.Now().After(s.deadline) {
		return 0, 0
	}
	k := s.seeds
	s.seeds, s.planned = s.seeds+1, s.planned+n
	return k, n
}

// runSeed runs one seed's sequence in a subtest of its own (its databases
// and clone go with it) and records its figures and failure.
func (s *soak) runSeed(t *testing.T, repo string, seed uint64, n int) {
	ops := indextest.RealOps(seed, n)
	t.Run(fmt.Sprintf("%s@%d", filepath.Base(repo), seed), func(t *testing.T) {
		tally, f := s.sequence(t, repo, seed, ops)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.total.add(tally)
		if f != nil {
			s.failures = append(s.failures, f)
			s.rowsDiffer += f.rows
			t.Logf("%s seed %d FAILED at step %d: %s", repo, seed, f.step, f.what)
		}
		t.Logf("%s seed %d: %s", repo, seed, tally)
	})
}

// soakPlan is what the soak runs.
type soakPlan struct {
	repos                       []string
	steps, seq, parallel, seed0 int
	limit                       time.Duration
	replay                      string
}

func soakPlanFromEnv(t *testing.T) soakPlan {
	p := soakPlan{steps: 16, seq: 8, parallel: 1, seed0: 1000, limit: 600 * time.Minute, replay: os.Getenv("SPELUNK_SOAK_REPLAY")}
	spec := os.Getenv("SPELUNK_SOAK_REPOS")
	if spec == "" {
		p.repos = []string{indextest.Repo(t)}
	} else {
		p.repos, p.steps, p.seq = strings.Split(spec, ":"), 5000, 100
	}
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK_STEPS")); err == nil && n > 0 {
		p.steps = n
	}
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK_SEQ")); err == nil && n > 0 {
		p.seq = n
	}
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK_SEED")); err == nil && n > 0 {
		p.seed0 = n
	}
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK_PARALLEL")); err == nil && n > 0 {
		p.parallel = n
	}
	if n, err := strconv.Atoi(os.Getenv("SPELUNK_SOAK_MINUTES")); err == nil && n > 0 {
		p.limit = time.Duration(n) * time.Minute
	}
	return p
}

// soak is the state of one soak: the binary it kills, the clean snapshots.
type soak struct {
	bin      string
	deadline time.Time
	mu       sync.Mutex // guards what follows
	cache    *cleanCache
	seeds    int // handed out
	planned  int // steps handed out
	total    soakTally
	// cleanRuns counts the clean indexes made; rowsDiffer the rows that
	// differed at the failing steps.
	cleanRuns, rowsDiffer int
	failures              []*soakFailure
}

// soakTally counts a soak's steps and how their runs were stopped.
type soakTally struct {
	seeds, steps, stopped, killed, interrupted, late, memories int
	crashed, quit                                              int // servers crashed under a run: postmaster SIGKILL, immediate shutdown
}

func (a *soakTally) add(b soakTally) {
	a.seeds, a.steps, a.stopped = a.seeds+1, a.steps+b.steps, a.stopped+b.stopped
	a.killed, a.interrupted, a.late, a.memories = a.killed+b.killed, a.interrupted+b.interrupted, a.late+b.late, a.memories+b.memories
	a.crashed, a.quit = a.crashed+b.crashed, a.quit+b.quit
}

// Interrupted counts the runs stopped part way, by any means.
func (a soakTally) Interrupted() int {
	return a.stopped + a.killed + a.interrupted + a.crashed + a.quit
}

func (a soakTally) String() string {
	return fmt.Sprintf("%d steps, %d runs interrupted (%d stopped in process, %d SIGKILL, %d SIGINT, %d postmaster SIGKILL, %d immediate shutdown; %d signals or crashes after the run ended), %d anchored memories",
		a.steps, a.Interrupted(), a.stopped, a.killed, a.interrupted, a.crashed, a.quit, a.late, a.memories)
}

// soakFailure is the first difference of one seed.
type soakFailure struct {
	repo   string
	seed   uint64
	step   int
	what   string
	ops    []indextest.Op
	shrunk []int
	rows   int // how many rows differed
}

// soakRun is the state of one sequence: its clone, databases, last run.
type soakRun struct {
	root       string
	srv        *ownServer // the server of the index under test, crashed now and then
	url        string
	db, clean  *pg.DB
	ix         *index.Indexer
	repoID     int64
	tree       *indextest.Tree
	rng        *rand.Rand
	proc       time.Duration // how long the last process that ran to its end took
	workingDir bool          // the last run's kind, which a paths run must follow
}

// sequence applies ops to a fresh clone of repo, one run after each, and
// compares every step with a clean index.
func (s *soak) sequence(t *testing.T, repo string, seed uint64, ops []indextest.Op) (soakTally, *soakFailure) {
	ctx := context.Background()
	var k soakTally
	r := &soakRun{root: cloneRepo(t, repo), srv: startOwnServer(t), clean: pgtest.Open(t), rng: rand.New(rand.NewPCG(seed, 0x50a6))}
	r.url = r.srv.url
	r.db = pgtest.OpenTenant(t, r.url, pg.DefaultTenant)
	r.ix = index.New(r.db, hashing())
	start := time.Now()
	first, err := r.ix.Index(ctx, r.root, index.Options{})
	if err != nil {
		t.Fatalf("first run of %s: %v", repo, err)
	}
	r.repoID, r.proc = first.RepositoryID, time.Since(start)+time.Second
	r.tree = indextest.NewRealTree(t, r.root)
	k.memories += addAnchored(t, r, 6)
	for i, o := range ops {
		if time.Now().After(s.deadline) {
			break
		}
		did := r.tree.Apply(o)
		opts, kind := runKind(o, r.tree, r.workingDir)
		how, err := s.interrupt(r, o, i, opts, &k)
		if err != nil {
			return k, &soakFailure{repo, seed, i, fmt.Sprintf("step %d (%s), %s: %v", i, did, how, err), ops, nil, 0}
		}
		start := time.Now()
		if _, err := r.ix.Index(ctx, r.root, opts); err != nil {
			return k, &soakFailure{repo, seed, i, fmt.Sprintf("step %d (%s),%s %s run: %v", i, did, how, kind, err), ops, nil, 0}
		}
		r.workingDir = opts.WorkingTree
		r.tree.ResetTouched()
		k.steps++
		runDone := time.Since(start)
		d := s.compare(t, r, opts.WorkingTree)
		if testing.Verbose() && os.Getenv("SPELUNK_SOAK_TRACE") != "" {
			t.Logf("step %d %s:%s %s run %v, compared in %v", i, did, how, kind, runDone.Round(time.Millisecond), (time.Since(start) - runDone).Round(time.Millisecond))
		}
		if d != "" {
			f := &soakFailure{repo, seed, i, fmt.Sprintf("step %d (%s),%s %s run: %s", i, did, how, kind, d), ops, nil, 0}
			fmt.Sscan(d, &f.rows)
			return k, f
		}
		if o.R[3] > 0.95 {
			k.memories += addAnchored(t, r, 1)
		}
	}
	return k, nil
}

// interrupt stops a run part way before the step's run, in 37 % of the
// steps: in process at a progress report, a real process signalled at a
// random point (a paths run is only stopped in process), or the server
// crashed under a run (crash). It says what it did.
func (s *soak) interrupt(r *soakRun, o indextest.Op, i int, opts index.Options, k *soakTally) (string, error) {
	u := o.R[5]
	switch {
	case u < 0.12 || u < 0.25 && len(opts.Paths) > 0:
		sopts, sctx, at := stopAt(1 + int(u*100)%16)
		sopts.WorkingTree, sopts.Paths = opts.WorkingTree, opts.Paths
		_, err := r.ix.Index(sctx, r.root, sopts)
		if err != nil && !errors.Is(context.Cause(sctx), errStopped) {
			return "stopped run", err
		}
		if err == nil {
			return " a run not stopped (it ended first), then", nil
		}
		k.stopped++
		return " stopped at " + at() + " then", nil
	case u < 0.25:
		sig := []syscall.Signal{syscall.SIGKILL, syscall.SIGINT}[i%2]
		delay := time.Duration(r.rng.Float64() * 1.2 * float64(r.proc))
		began := time.Now()
		landed, err := signalRun(s.bin, r.url, r.root, opts.WorkingTree, sig, delay)
		if err != nil {
			return "signalled run", err
		}
		if !landed {
			r.proc = time.Since(began) // the whole process's run: the next signal lands within it
		}
		k.count(sig, landed)
		return fmt.Sprintf(" a process sent %v after %v (landed %v), then", sig, delay.Round(time.Millisecond), landed), nil
	case u < 0.37:
		return s.crash(r, i, opts, k)
	}
	return "", nil
}

// crash crashes the server under a run at a random point (crashKinds in
// turn): under a real process, or under a run in this process for a paths
// run; the server is then started again. It says what it did.
func (s *soak) crash(r *soakRun, i int, opts index.Options, k *soakTally) (string, error) {
	how := crashKinds[i%2]
	delay := time.Duration(r.rng.Float64() * float64(r.proc))
	began := time.Now()
	var landed bool
	var err error
	if len(opts.Paths) == 0 {
		landed, err = r.srv.crashProcess(s.bin, r.root, opts.WorkingTree, how, delay, true)
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		run := func() error { _, err := r.ix.Index(ctx, r.root, opts); return err }
		landed, err = r.srv.crashUnder(how, delay, true, run, cancel, &lockedBuffer{})
	}
	r.db.Pool.Reset() // its connections died with the server
	if err != nil {
		return crashName(how) + " run", err
	}
	if !landed && len(opts.Paths) == 0 {
		r.proc = time.Since(began)
	}
	k.countCrash(how, landed)
	return fmt.Sprintf(" the server's %s after %v (landed %v), then", crashName(how), delay.Round(time.Millisecond), landed), nil
}

// compare diffs the index under test with a clean index of the tree.
func (s *soak) compare(t *testing.T, r *soakRun, workingTree bool) string {
	snap := s.cleanFor(t, r, workingTree)
	got := indextest.Rows(t, r.db, r.repoID)
	gotA, wantA := indextest.AnchorLines(t, r.db, r.repoID, snap.hashes)
	return indextest.DiffRows(append(got, gotA...), append(append([]string{}, snap.rows...), wantA...), 30)
}

// cloneRepo clones repo (never changing it) onto branch main and returns the
// clone's root, symlinks resolved.
func cloneRepo(t *testing.T, repo string) string {
	dir := filepath.Join(t.TempDir(), filepath.Base(repo))
	indextest.Git(t, filepath.Dir(dir), "clone", "-q", "--no-hardlinks", repo, dir)
	indextest.Git(t, dir, "checkout", "-q", "-B", "main")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func (a *soakTally) countCrash(how syscall.Signal, landed bool) {
	switch {
	case !landed:
		a.late++
	case how == syscall.SIGKILL:
		a.crashed++
	default:
		a.quit++
	}
}

func (a *soakTally) count(sig syscall.Signal, landed bool) {
	switch {
	case !landed:
		a.late++
	case sig == syscall.SIGKILL:
		a.killed++
	default:
		a.interrupted++
	}
}

// cleanFor is the clean snapshot of r's tree: kept, or made now (outside
// the lock: the workers' clean indexes run at once).
func (s *soak) cleanFor(t *testing.T, r *soakRun, workingTree bool) cleanSnap {
	key := treeKey(t, r.root, workingTree)
	s.mu.Lock()
	snap, ok := s.cache.get(key)
	s.mu.Unlock()
	if ok {
		return snap
	}
	snap = cleanSnapshot(t, r.clean, r.root, workingTree)
	s.mu.Lock()
	s.cache.put(key, snap)
	s.cleanRuns++
	s.mu.Unlock()
	return snap
}
