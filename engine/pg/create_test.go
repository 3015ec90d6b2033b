package pg_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// freezingInitdb runs the real initdb in the background and, once it has written
// PG_VERSION, freezes it with SIGSTOP: a creation stopped half-way, deterministically.
const freezingInitdb = `#!/bin/sh
"$SPELUNK_REAL_INITDB" "$@" &
while [ ! -e "$2/PG_VERSION" ]; do sleep 0.01; done
kill -STOP $!
wait
`

// clusterRoot is a directory the postgres user can enter (not t.TempDir, whose
// parent is 0700: as root the server runs as postgres).
func clusterRoot(t *testing.T) string { return pgtest.ClusterDir(t) }

// interruptedStartChild is the spelunk process TestStartRecoversFromKilledCreation
// kills (TestMain runs it in the re-executed test binary): it starts a cluster
// whose initdb freezes half-way.
func interruptedStartChild(dir string) {
	c, err := pg.NewCluster(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c.BinDir = os.Getenv("SPELUNK_TEST_WRAPPER_BIN")
	c.Throwaway = true
	fmt.Fprintln(os.Stderr, c.Start(context.Background())) // never returns: killed while initdb is frozen
	os.Exit(1)
}

// TestStartRecoversFromKilledCreation kills a spelunk process while its initdb is
// half-way (the orphan initdb stays, frozen): the next start removes the remains,
// says so, and creates a working cluster.
func TestStartRecoversFromKilledCreation(t *testing.T) {
	root := clusterRoot(t)
	realBin, _ := pg.FindBinDir()
	wrapperBin := filepath.Join(root, "bin")
	if err := os.Mkdir(wrapperBin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wrapperBin, "initdb"), []byte(freezingInitdb), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "pg")
	t.Cleanup(func() { _ = pg.KillProcessesIn(data + ".creating"); _ = pg.KillProcessesIn(data) })

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SPELUNK_TEST_INTERRUPTED_DIR="+data,
		"SPELUNK_TEST_WRAPPER_BIN="+wrapperBin, "SPELUNK_REAL_INITDB="+filepath.Join(realBin, "initdb"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, func() bool {
		return exists(filepath.Join(data+".creating", "PG_VERSION")) || exists(filepath.Join(data, "PG_VERSION"))
	})
	time.Sleep(200 * time.Millisecond) // let the wrapper freeze initdb
	_ = cmd.Process.Kill()
	_ = cmd.Wait()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pg.NewCluster(data)
	if err != nil {
		t.Fatal(err)
	}
	c.Throwaway = true
	var notes bytes.Buffer
	c.Notes = &notes
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start after an interrupted creation: %v", err)
	}
	want := "removing a half-created cluster at " + data + ".creating left by an interrupted run"
	if !strings.Contains(notes.String(), want) {
		t.Errorf("notes %q, want %q", notes.String(), want)
	}
	if pids := pg.ProcessesIn(data + ".creating"); len(pids) > 0 {
		t.Errorf("processes %v of the interrupted creation survive", pids)
	}
	if exists(data + ".creating") {
		t.Error("the half-created cluster is still there")
	}
	if err := c.EnsureDatabase(ctx, "spelunk"); err != nil {
		t.Fatal(err)
	}
	ping(t, c.URL("spelunk"))
}

// TestStartReapsHalfMadeDataDir covers a cluster an older spelunk left half-made in
// place: PG_VERSION written, no databases, a pid file whose process is gone.
func TestStartReapsHalfMadeDataDir(t *testing.T) {
	data := filepath.Join(clusterRoot(t), "pg")
	for _, d := range []string{data, filepath.Join(data, "global"), filepath.Join(data, "base", "1")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{"PG_VERSION": "16\n", "postmaster.pid": "999999999\n"} {
		if err := os.WriteFile(filepath.Join(data, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := pg.NewCluster(data)
	if err != nil {
		t.Fatal(err)
	}
	if c.Initialized() {
		t.Fatal("a half-made data dir reports initialised")
	}
	c.Throwaway = true
	var notes bytes.Buffer
	c.Notes = &notes
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start over a half-made data dir: %v", err)
	}
	if want := "removing a half-created cluster at " + data + " left by an interrupted run"; !strings.Contains(notes.String(), want) {
		t.Errorf("notes %q, want %q", notes.String(), want)
	}
	ping(t, c.URL("postgres"))
}

// TestStartKeepsForeignDataDir: a data dir holding files initdb never makes is not a
// half-made cluster, and Start refuses rather than deleting them.
func TestStartKeepsForeignDataDir(t *testing.T) {
	data := filepath.Join(clusterRoot(t), "pg")
	if err := os.MkdirAll(filepath.Join(data, "global"), 0o700); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(data, "my-notes.txt")
	if err := os.WriteFile(notes, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := pg.NewCluster(data)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "move it away") {
		t.Fatalf("got %v, want a refusal naming the fix", err)
	}
	if !exists(notes) {
		t.Fatal("Start deleted a file it did not create")
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
