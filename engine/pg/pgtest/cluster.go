package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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
