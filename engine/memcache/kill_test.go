package memcache_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// The child process of TestKill9MidSync: this test binary re-executed with these
// variables set syncs the cache with the core, and is killed while it does.
const (
	childCache   = "SPELUNK_MEMCACHE_CHILD_CACHE"
	childURL     = "SPELUNK_MEMCACHE_CHILD_URL"
	childProject = "SPELUNK_MEMCACHE_CHILD_PROJECT"
)

// syncChild runs in the child: one sync, then exit. It never returns.
func syncChild() {
	ctx := context.Background()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "sync child:", err)
		os.Exit(3)
	}
	project, err := strconv.ParseInt(os.Getenv(childProject), 10, 64)
	if err != nil {
		fail(err)
	}
	db, err := pg.Open(ctx, pg.Options{URL: os.Getenv(childURL)})
	if err != nil {
		fail(err)
	}
	c, err := memcache.Open(ctx, memcache.Options{Path: os.Getenv(childCache), Embedder: embed.NewHashing(0)})
	if err != nil {
		fail(err)
	}
	core := memcache.Core{DB: db, Store: memory.New(db, project, memory.Options{Embedder: embed.NewHashing(0)})}
	if _, err := c.Sync(ctx, core); err != nil {
		fail(err)
	}
	os.Exit(0)
}

// TestKill9MidSync kills a real process with SIGKILL in the middle of its sync
// (after some of the queued writes reached the core, before the rest), then syncs
// again from the file it left: every write is on the core exactly once.
func TestKill9MidSync(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	core := newCore(t, db, nil)
	path := filepath.Join(t.TempDir(), "cache.db")
	c, err := memcache.Open(ctx, memcache.Options{Path: path, Embedder: embed.NewHashing(0)})
	if err != nil {
		t.Fatal(err)
	}
	writeOffline(t, c)
	c.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childCache+"="+path, childURL+"="+url,
		childProject+"="+strconv.FormatInt(core.Store.Project(), 10))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for coreCount(t, core, `SELECT count(*) FROM memories WHERE repository_id = $1`) < 20 {
		select {
		case err := <-done:
			t.Fatalf("the sync child ended before it was killed: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the sync child pushed nothing in a minute")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = <-done
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed by SIGKILL", err)
	}
	atKill := coreCount(t, core, `SELECT count(*) FROM memories WHERE repository_id = $1`)
	nuggetsAtKill := coreCount(t, core, `SELECT count(*) FROM nuggets WHERE repository_id = $1`)
	t.Logf("killed with %d of 100 memories and %d of 20 nuggets on the core", atKill, nuggetsAtKill)
	if atKill == 100 && nuggetsAtKill == 20 {
		t.Fatal("the child had finished pushing when it was killed: not a kill mid-sync")
	}

	c = openCache(t, path)
	r, err := c.Sync(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pushed < 120-atKill-nuggetsAtKill {
		t.Errorf("second sync pushed %d, want at least the %d writes not yet on the core", r.Pushed, 120-atKill-nuggetsAtKill)
	}
	checkDrained(t, c, core)
}
