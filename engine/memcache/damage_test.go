package memcache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// addEpisodes adds n episodes through the cache (no core: they stay queued).
func addEpisodes(t testing.TB, c *memcache.Cache, prefix string, n int) {
	t.Helper()
	for i := range n {
		if _, err := c.Add(context.Background(), memory.NewMemory{Kind: memory.KindEpisode, Author: "agent:a",
			Text: fmt.Sprintf("%s episode %d about the retry loop", prefix, i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func removeCache(t testing.TB, path string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// TestDeletedCacheThenWrites: the cache file (with its -wal and -shm) deleted
// under a running process, three writes with the core down are each on disk at
// the path once acknowledged, with the write queued before the deletion; after a
// restart they all reach the core.
func TestDeletedCacheThenWrites(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	path := filepath.Join(t.TempDir(), "cache.db")
	c := openCache(t, path)
	addEpisodes(t, c, "before", 1)
	removeCache(t, path)
	addEpisodes(t, c, "after", 3)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("after three acknowledged writes the cache is not on disk: %v", err)
	}
	c.Close()

	c = openCache(t, path)
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != 4 {
		t.Errorf("queued after the restart = %d, want 4", st.Queued)
	}
	r, err := c.Sync(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pushed != 4 {
		t.Errorf("pushed %d, want 4", r.Pushed)
	}
	if n := coreCount(t, core, `SELECT count(*) FROM memories WHERE repository_id = $1`); n != 4 {
		t.Errorf("core memories = %d, want 4", n)
	}
}

// TestReplacedCacheThenWrite: the path replaced by another file under a running
// process: the next write lands in the file at the path.
func TestReplacedCacheThenWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.db")
	c := openCache(t, path)
	addEpisodes(t, c, "before", 2)
	other := openCache(t, filepath.Join(dir, "other.db"))
	other.Close()
	removeCache(t, path)
	if err := os.Rename(filepath.Join(dir, "other.db"), path); err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, c, "after", 1)
	c.Close()
	c = openCache(t, path)
	if st, err := c.Status(ctx); err != nil || st.Queued != 3 {
		t.Errorf("queued at the path = %d (%v), want 3", st.Queued, err)
	}
}

// damageCache makes a synced cache of five memories, closes it and damages its
// file with damage.
func damageCache(t *testing.T, damage func(path string, b []byte) []byte) (string, memcache.Core) {
	t.Helper()
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	path := filepath.Join(t.TempDir(), "cache.db")
	c := openCache(t, path)
	addEpisodes(t, c, "synced", 5)
	addEpisodes(t, c, "filler", 200) // pages enough for a truncation to cut
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the closed cache still has a WAL; the test damages the main file only")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, damage(path, b), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, core
}

// checkRecovered opens a damaged cache: it is set aside, reported, started
// empty and rebuilt from the core.
func checkRecovered(t *testing.T, path string, core memcache.Core) {
	t.Helper()
	ctx := context.Background()
	c, err := memcache.Open(ctx, memcache.Options{Path: path})
	if err != nil {
		t.Fatalf("open a damaged cache: %v", err)
	}
	defer c.Close()
	if !strings.Contains(c.Recovery(), "set aside") {
		t.Errorf("recovery note %q, want one saying where the file was set aside", c.Recovery())
	}
	aside, _ := filepath.Glob(path + ".corrupt-*")
	if len(aside) == 0 {
		t.Errorf("no %s.corrupt-* beside the cache: the damaged file must be kept", filepath.Base(path))
	}
	addEpisodes(t, c, "new", 1)
	r, err := c.Sync(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	if r.Memories != 206 {
		t.Errorf("memories after the rebuild = %d, want 206", r.Memories)
	}
}

// TestTruncatedCache: a cache cut to half its size is set aside and rebuilt,
// whether quick_check reads it whole or, a large file, only its header does.
func TestTruncatedCache(t *testing.T) {
	for _, max := range []int64{8 << 20, 0} {
		undo := memcache.SetQuickCheckMax(max)
		path, core := damageCache(t, func(_ string, b []byte) []byte { return b[:len(b)/2] })
		checkRecovered(t, path, core)
		undo()
	}
}

// TestGarbagePrefixedCache: a cache with garbage over its start is set aside
// and rebuilt (quick_check or the header check alone).
func TestGarbagePrefixedCache(t *testing.T) {
	for _, max := range []int64{8 << 20, 0} {
		undo := memcache.SetQuickCheckMax(max)
		path, core := damageCache(t, func(_ string, b []byte) []byte {
			return append([]byte(strings.Repeat("garbage!", 64)), b[512:]...)
		})
		checkRecovered(t, path, core)
		undo()
	}
}

// TestLargeCacheOpensWithTheHeaderCheck: a sound file past the quick_check
// bound opens as it is, its memories kept.
func TestLargeCacheOpensWithTheHeaderCheck(t *testing.T) {
	defer memcache.SetQuickCheckMax(0)()
	path, _ := damageCache(t, func(_ string, b []byte) []byte { return b })
	c, err := memcache.Open(context.Background(), memcache.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Recovery() != "" {
		t.Fatalf("a sound cache was set aside: %s", c.Recovery())
	}
	st, err := c.Status(context.Background())
	if err != nil || st.Memories != 205 {
		t.Fatalf("status %+v %v, want 205 memories", st, err)
	}
}
