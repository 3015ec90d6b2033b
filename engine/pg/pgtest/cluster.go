package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/internal/proccpu"
)

// ClusterDir is a fresh directory a cluster can live in: not t.TempDir, whose
// parent is 0700 while, as root, the server runs as postgres. Where no
// PostgreSQL is installed the test skips, or fails with CI=true.
func ClusterDir(t testing.TB) string {
	t.Helper()
	if _, err := pg.FindBinDir(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	root, err := os.MkdirTemp("", "spelunk-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// Cluster is a throwaway cluster of the test's own, not started, stopped when
// the test ends: for tests that stop and start a server (the shared one must
// never be stopped).
func Cluster(t testing.TB) *pg.Cluster {
	t.Helper()
	c, err := pg.NewCluster(filepath.Join(ClusterDir(t), "pg"))
	if err != nil {
		t.Fatal(err)
	}
	c.Throwaway = true
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

// StartedCluster is a [Cluster] started, with a "spelunk" database: for tests
// that crash or stop its server under a run.
func StartedCluster(t testing.TB) *pg.Cluster {
	t.Helper()
	c := Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.EnsureDatabase(ctx, "spelunk"); err != nil {
		t.Fatal(err)
	}
	return c
}

// Postmaster is the process id of the server db's pool talks to (the parent of
// one of its backends), for benchmarks that read the cluster's CPU time
// (internal/proccpu).
func Postmaster(t testing.TB, db *pg.DB) int {
	t.Helper()
	var backend int
	if err := db.Pool.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		t.Fatal(err)
	}
	pid, err := proccpu.Postmaster(backend)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// Crash stops c's server the way a crash does and waits until no process of
// it is left: how is syscall.SIGKILL (the postmaster killed; its backends
// notice its death and exit, one running a statement when that ends) or
// syscall.SIGQUIT (PostgreSQL's immediate shutdown, what `pg_ctl stop -m
// immediate` sends: every backend quits at once, nothing is checkpointed).
// Backends still there after orphanWait are killed too, as a machine's crash
// would. The next Start (Restart) runs PostgreSQL's crash recovery.
func Crash(ctx context.Context, c *pg.Cluster, how syscall.Signal) error {
	st, err := c.Status(ctx)
	if err != nil {
		return fmt.Errorf("crash %s: %w", c.DataDir, err)
	}
	if !st.Running {
		return fmt.Errorf("crash %s: the server is not running", c.DataDir)
	}
	kids := childrenOf(st.PID)
	if err := syscall.Kill(st.PID, how); err != nil {
		return fmt.Errorf("crash %s: signal the postmaster %d: %w", c.DataDir, st.PID, err)
	}
	if err := waitExit(ctx, []int{st.PID}, time.Minute); err != nil {
		return fmt.Errorf("crash %s: %w", c.DataDir, err)
	}
	if waitExit(ctx, kids, orphanWait) != nil {
		for _, pid := range kids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if err := waitExit(ctx, kids, time.Minute); err != nil {
			return fmt.Errorf("crash %s: backends left by the postmaster: %w", c.DataDir, err)
		}
	}
	return nil
}

// orphanWait is how long Crash lets a backend orphaned by its postmaster's
// death finish its statement.
const orphanWait = 20 * time.Second

// Restart starts c again after Crash and returns once it accepts connections
// (pg_ctl start -w waits for crash recovery; a connection proves it). A start
// refused while the old server's shared memory is still attached is tried
// again.
func Restart(ctx context.Context, c *pg.Cluster) error {
	var err error
	for try := 0; try < 20; try++ {
		if err = c.Start(ctx); err == nil {
			var conn *pgx.Conn
			if conn, err = pg.ConnectOwner(ctx, c.URL("postgres")); err == nil {
				return conn.Close(ctx)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("restart %s: %w (last: %v)", c.DataDir, ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("restart %s: %w", c.DataDir, err)
}

// childrenOf lists the processes whose parent is pid (from /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procFields(p); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, p)
		}
	}
	return kids
}

// procFields are the fields of /proc/PID/stat after the command name (state
// first, then the parent's pid); nil when the process is gone.
func procFields(pid int) []string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// waitExit waits until every process of pids has exited (a zombie nobody
// reaps counts as exited) or limit passes.
func waitExit(ctx context.Context, pids []int, limit time.Duration) error {
	end := time.Now().Add(limit)
	for {
		left := 0
		for _, pid := range pids {
			if f := procFields(pid); f != nil && f[0] != "Z" && f[0] != "X" {
				left++
			}
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("%d of processes %v still running after %v", left, pids, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
