package memcache_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// briefed reports whether the cache's briefing holds the memory.
func briefed(t *testing.T, c *memcache.Cache, id string) bool {
	t.Helper()
	b, err := c.Briefing(context.Background(), memory.BriefingOptions{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range b.Memories {
		if m.ID == id {
			return true
		}
	}
	return false
}

// TestClientFreshness: a long-lived client pulls before it serves, then treats
// the cache as authoritative for the TTL (a change on the core is not asked
// for), and its background loop pulls once the TTL has passed; an invalidation
// pulled evicts the memory at once.
func TestClientFreshness(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	first, err := core.Store.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent:b", Text: "The release branch is release/1.4"})
	if err != nil {
		t.Fatal(err)
	}
	const ttl = 1500 * time.Millisecond
	c, err := memcache.Open(ctx, memcache.Options{Path: filepath.Join(t.TempDir(), "cache.db"), Embedder: embed.NewHashing(0), TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	stop := memcache.NewClient(c, &core).Start(ctx, 10*time.Second, 20*time.Millisecond)
	defer stop()
	started := time.Now()
	if !briefed(t, c, first.Memory.ID) {
		t.Fatal("the core's memory is not in the briefing once the client started")
	}

	second, err := core.Store.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent:b", Text: "The staging database is db-stage-2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.Store.Invalidate(ctx, first.Memory.ID, "human:ann", "release/1.5 now"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(ttl / 3)
	if time.Since(started) < ttl && (briefed(t, c, second.Memory.ID) || !briefed(t, c, first.Memory.ID)) {
		t.Error("the cache asked the core within its TTL")
	}
	deadline := time.Now().Add(ttl + 20*time.Second)
	for !briefed(t, c, second.Memory.ID) || briefed(t, c, first.Memory.ID) {
		if time.Now().After(deadline) {
			t.Fatal("the background loop did not pull after the TTL: the new memory is missing or the invalidated one is still there")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := c.Memory(ctx, first.Memory.ID); err == nil {
		t.Error("the invalidated memory is still in the cache file, want it evicted")
	}
}
