package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) {
	// The machine's git configuration (a global excludes file, hooks) stays
	// out of the tests.
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	pgtest.Main(m)
}

// patience bounds every wait: generous, since a loaded machine is slow, and
// never part of what a test asserts.
const patience = 60 * time.Second

// patienceUnit scales the debounce of the tests that count runs: long enough
// for a slow machine to write a burst of files within one quiet time.
const patienceUnit = 500 * time.Millisecond

// writing keeps the runs that wrote or deleted files.
func writing(runs []Event) []Event {
	var out []Event
	for _, r := range runs {
		if r.Summary.FilesIndexed+r.Summary.FilesDeleted+r.Summary.SkippedNow > 0 {
			out = append(out, r)
		}
	}
	return out
}

func hashing() *embed.Hashing { return embed.NewHashing(64) }

// recorder keeps a watcher's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) add(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) of(kind Kind) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, ev := range r.events {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// runs are the finished runs, failed ones included.
func (r *recorder) runs() []Event { return r.of(Indexed) }

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, ev := range r.events {
		fmt.Fprintf(&b, "  %s %q paths=%d err=%v files=%d/%d\n", ev.Kind, ev.Reason, len(ev.Paths), ev.Err,
			ev.Summary.FilesIndexed, ev.Summary.FilesDeleted)
	}
	return b.String()
}

// watching is a watcher running in the background.
type watching struct {
	rec  *recorder
	stop func() // cancels Run and waits for it; idempotent
}

// start runs a watcher of root until the test ends (or stop).
func start(t testing.TB, db *pg.DB, root string, opts Options) *watching {
	t.Helper()
	rec := &recorder{}
	opts.OnEvent = rec.add
	w := New(db, hashing(), root, opts)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- w.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-errc:
				if err != nil {
					t.Errorf("watcher: %v", err)
				}
			case <-time.After(patience):
				t.Errorf("the watcher did not stop")
			}
		})
	}
	t.Cleanup(stop)
	return &watching{rec: rec, stop: stop}
}

// waitFor polls cond until it holds, failing the test after patience.
func waitFor(t testing.TB, what string, cond func() bool, rec *recorder) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; events:\n%s", what, rec)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitRuns waits for n finished runs and fails on a failed one.
func waitRuns(t testing.TB, rec *recorder, n int) []Event {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d runs", n), func() bool { return len(rec.runs()) >= n }, rec)
	runs := rec.runs()
	for _, r := range runs {
		if r.Err != nil {
			t.Fatalf("a run failed: %v; events:\n%s", r.Err, rec)
		}
	}
	return runs
}

func count(t testing.TB, db *pg.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func symbols(t testing.TB, db *pg.DB, name string) int {
	return count(t, db, `SELECT count(*) FROM symbols WHERE name = $1`, name)
}

func revisionOf(t testing.TB, db *pg.DB, path string) string {
	t.Helper()
	var rev string
	err := db.Pool.QueryRow(context.Background(), `SELECT revision FROM files WHERE path = $1`, path).Scan(&rev)
	if err != nil {
		return ""
	}
	return rev
}

func lastCommit(t testing.TB, db *pg.DB) (commit string, workingTree bool) {
	t.Helper()
	err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(last_commit, ''), working_tree FROM repositories`).
		Scan(&commit, &workingTree)
	if err != nil {
		t.Fatal(err)
	}
	return commit, workingTree
}

// matchesClean compares every row of db's repository with a clean index of
// root as it is now, in another database (indextest.Rows: files, symbols,
// edges and their decisions, postings, vectors).
func matchesClean(t testing.TB, db *pg.DB, root string, opts index.Options) {
	t.Helper()
	clean := pgtest.Open(t)
	sum, err := index.New(clean, hashing()).Index(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, want := indextest.Rows(t, db, mustRepoID(t, db)), indextest.Rows(t, clean, sum.RepositoryID)
	if d := indextest.DiffRows(got, want, 40); d != "" {
		t.Fatalf("the watched index differs from a clean one (%d vs %d rows): %s", len(got), len(want), d)
	}
}

func write(t testing.TB, root, rel, content string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t testing.TB, dir string, args ...string) string { return indextest.Git(t, dir, args...) }

// repoWith is the fixture repository plus files, committed.
func repoWith(t testing.TB, files map[string]string) string {
	t.Helper()
	root := indextest.Repo(t)
	for p, c := range files {
		write(t, root, p, c)
	}
	if len(files) > 0 {
		git(t, root, "add", "-A")
		git(t, root, "commit", "-q", "-m", "more")
	}
	return root
}
