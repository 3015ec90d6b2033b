package index_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// holder is a second process indexing a repository, paused mid-run (files
// committed, the run lock held) until release is called.
type holder struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     strings.Builder
	mu      sync.Mutex
	once    sync.Once
	exited  chan error
	holding chan struct{}
}

// startHolder re-executes the test binary as a child that indexes repo into url and
// pauses once a few files are written; it returns when the child is paused.
func startHolder(t *testing.T, url, repo string) *holder {
	t.Helper()
	h := &holder{exited: make(chan error, 1), holding: make(chan struct{})}
	h.cmd = exec.Command(os.Args[0], "-test.run=^$")
	h.cmd.Env = append(os.Environ(), "SPELUNK_LOCK_CHILD=1", "SPELUNK_LOCK_URL="+url, "SPELUNK_LOCK_REPO="+repo)
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	h.cmd.Stderr = h.cmd.Stdout
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			h.mu.Lock()
			h.out.WriteString(sc.Text() + "\n")
			h.mu.Unlock()
			if sc.Text() == "child: holding" {
				close(h.holding)
			}
		}
		h.exited <- h.cmd.Wait()
	}()
	t.Cleanup(func() { h.release(); _ = h.cmd.Process.Kill() })
	select {
	case <-h.holding:
	case err := <-h.exited:
		t.Fatalf("child ended before pausing: %v\n%s", err, h.output())
	case <-time.After(2 * time.Minute):
		t.Fatalf("child did not pause\n%s", h.output())
	}
	return h
}

func (h *holder) release() { h.once.Do(func() { h.stdin.Close() }) }

func (h *holder) output() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.out.String()
}

// wait releases the child and fails the test unless its run succeeded.
func (h *holder) wait(t *testing.T) {
	t.Helper()
	h.release()
	select {
	case err := <-h.exited:
		if err != nil {
			t.Fatalf("child run failed: %v\n%s", err, h.output())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("child did not finish\n%s", h.output())
	}
}

func lockChild() {
	ctx := context.Background()
	db, err := pg.Open(ctx, pg.Options{URL: os.Getenv("SPELUNK_LOCK_URL")})
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(3)
	}
	opts := index.Options{Workers: 1, ProgressEvery: time.Nanosecond}
	index.SetBatchFiles(&opts, 3)
	var once sync.Once
	opts.Progress = func(p index.Progress) {
		if p.Phase == "indexing" && p.FilesDone >= 6 {
			once.Do(func() {
				fmt.Println("child: holding")
				_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
			})
		}
	}
	sum, err := index.New(db, embed.NewHashing(64)).Index(ctx, os.Getenv("SPELUNK_LOCK_REPO"), opts)
	if err != nil {
		fmt.Println("child: index:", err)
		os.Exit(1)
	}
	fmt.Printf("child: done, %d files indexed\n", sum.FilesIndexed)
	os.Exit(0)
}

// TestSecondProcessWaits runs two index runs of one repository at once, in two
// processes: the second waits for the first (saying so) and both succeed, with
// every row of a clean index.
func TestSecondProcessWaits(t *testing.T) {
	url := pgtest.URL(t)
	repo := fixtureRepo(t)
	h := startHolder(t, url, repo)

	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	var waited atomic.Value
	opts := index.Options{Progress: func(p index.Progress) {
		if strings.HasPrefix(p.Phase, "waiting") && waited.Load() == nil {
			waited.Store(p.Phase)
			h.release() // let the first run finish while this one waits
		}
	}}
	sum, err := index.New(db, hashing()).Index(context.Background(), repo, opts)
	h.release()
	h.wait(t)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	phase, _ := waited.Load().(string)
	if !strings.Contains(phase, "another index of "+repo+" is running") {
		t.Fatalf("the second run did not wait for the first (phase %q); summary %+v\nchild:\n%s", phase, sum, h.output())
	}
	if sum.FilesIndexed != 0 || sum.FilesUnchanged == 0 {
		t.Fatalf("second run %+v: want it to find the first run's complete index", sum)
	}
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("after two concurrent runs the index differs from a clean one:\n%s", diffLines(a, b))
	}
	assertFresh(t, db, repo)
}

// TestSecondProcessNoWait: with NoWait the second run fails at once with ErrBusy,
// a waiting run ends when its context does, and neither leaves the lock behind.
func TestSecondProcessNoWait(t *testing.T) {
	url := pgtest.URL(t)
	repo := fixtureRepo(t)
	h := startHolder(t, url, repo)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	ix := index.New(db, hashing())

	_, err := ix.Index(context.Background(), repo, index.Options{NoWait: true})
	if !errors.Is(err, index.ErrBusy) || !strings.Contains(err.Error(), repo) {
		t.Fatalf("NoWait while another process indexes: %v, want ErrBusy naming %s", err, repo)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = ix.Index(ctx, repo, index.Options{})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting run with an expiring context: %v", err)
	}
	h.wait(t)
	// Every pooled connection must be free of the lock now.
	for range 3 {
		if _, err := ix.Index(context.Background(), repo, index.Options{NoWait: true}); err != nil {
			t.Fatalf("after the first run ended: %v", err)
		}
	}
	want := strings.Fields(git(t, repo, "ls-files"))
	rows, err := db.Pool.Query(context.Background(), `SELECT path FROM files ORDER BY path`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var p string
		_ = rows.Scan(&p)
		got = append(got, p)
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("indexed files differ from the repository's:\n%s", diffLines(strings.Join(got, "\n"), strings.Join(want, "\n")))
	}
	assertFresh(t, db, repo)
}

func assertFresh(t *testing.T, db *pg.DB, repo string) {
	t.Helper()
	rec, err := db.RepositoryByRoot(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	st, err := index.RepoStatus(context.Background(), db, rec)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stale || st.Interrupted {
		t.Fatalf("status after the runs: stale %v (%s), interrupted %v", st.Stale, st.StaleReason, st.Interrupted)
	}
}
