package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestIndexNoWait: `spelunk index --no-wait` while another run indexes the same
// repository exits 1 saying so; without the flag it waits and succeeds.
func TestIndexNoWait(t *testing.T) {
	url := pgtest.URL(t)
	t.Setenv("SPELUNK_DATABASE_URL", url)
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo := indextest.Repo(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)

	holding, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	opts := index.Options{Workers: 1, ProgressEvery: time.Nanosecond}
	opts.Progress = func(p index.Progress) {
		if p.Phase == "resolving" { // mid-run: files written, not yet marked fresh
			once.Do(func() { close(holding); <-release })
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := index.New(db, indextest.Embedder()).Index(context.Background(), repo, opts)
		done <- err
	}()
	select {
	case <-holding:
	case err := <-done:
		t.Fatalf("the first run ended before pausing: %v", err)
	}

	code, _, errOut := spelunk(t, "index", repo, "--no-wait")
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first run: %v", err)
	}
	if code != 1 || !strings.Contains(errOut, "another index of the repository is running") || !strings.Contains(errOut, repo) {
		t.Fatalf("index --no-wait during another run: exit %d %q; want 1 naming the repository", code, errOut)
	}
	if code, _, errOut := spelunk(t, "index", repo, "--no-wait"); code != 0 {
		t.Fatalf("index --no-wait once the other run ended: exit %d %s", code, errOut)
	}
}
