package memcache_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestNuggetLastWriteWinsAcrossMachines: the later UTC timestamp wins whatever
// order the machines sync in, and the core keeps both writes in the history.
func TestNuggetLastWriteWinsAcrossMachines(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	a := openCache(t, filepath.Join(t.TempDir(), "a.db"))
	b := openCache(t, filepath.Join(t.TempDir(), "b.db"))
	t0 := time.Now().UTC()
	if _, err := a.SetNugget(ctx, memory.NuggetWrite{Key: "owner", Value: "ann", Author: "human:ann", At: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetNugget(ctx, memory.NuggetWrite{Key: "owner", Value: "bob", Author: "human:bob", At: t0}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*memcache.Cache{a, b, a} {
		if _, err := c.Sync(ctx, core); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]*memcache.Cache{"a": a, "b": b} {
		n, err := c.Nugget(ctx, "owner")
		if err != nil || n.Value != "ann" {
			t.Errorf("cache %s: owner = %q, %v; want ann (the later write)", name, n.Value, err)
		}
	}
	h, err := core.Store.NuggetHistory(ctx, "owner")
	if err != nil || len(h) != 2 {
		t.Errorf("core history = %+v, %v; want both writes", h, err)
	}
}

// TestEmbeddingParity: with a local embedder other than the core's, an offline
// memory stays PENDING_EMBEDDING locally, and the core embeds it with its own
// model on sync.
func TestEmbeddingParity(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil) // the core embeds with hashing-384
	_, err := core.Store.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent:a", Text: "The API listens on port 8080"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := memcache.Open(ctx, memcache.Options{Path: filepath.Join(t.TempDir(), "c.db()"), Embedder: embed.NewHashing(64)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	m, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent:a", Text: "The worker drains the queue every minute"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != memory.StatusPendingEmbedding {
		t.Errorf("offline memory with another embedder: %s, want PENDING_EMBEDDING", m.Status)
	}
	r, err := c.Sync(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	if r.CoreModel != embed.NewHashing(0).Name() {
		t.Errorf("core model = %q", r.CoreModel)
	}
	got, err := core.Store.Get(ctx, m.ID)
	if err != nil || got.Status != memory.StatusActive {
		t.Errorf("core: %s %v; want ACTIVE (embedded by the core)", got.Status, err)
	}
	n := coreCount(t, core, `SELECT count(*) FROM memory_embeddings WHERE repository_id = $1 AND model <> '`+embed.NewHashing(0).Name()+`'`)
	if n != 0 {
		t.Errorf("%d vectors of another model on the core", n)
	}
}

// TestPruneKeepsUnsynced: past MaxEpisodes the least recently used synced
// episodes go; unsynced writes and other kinds stay.
func TestPruneKeepsUnsynced(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	c, err := memcache.Open(ctx, memcache.Options{Path: filepath.Join(t.TempDir(), "c.db()"), MaxEpisodes: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 30 {
		if _, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindEpisode, Author: "agent:a", Text: fmt.Sprintf("episode %d of the flaky test hunt", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "agent:a", Text: "Run the linters before pushing"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pull(ctx, core); err != nil { // nothing synced yet: nothing pruned
		t.Fatal(err)
	}
	if r, _ := c.Status(ctx); r.Memories != 31 {
		t.Errorf("before the push: %d cached, want 31 (unsynced writes are never pruned)", r.Memories)
	}
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	if r, _ := c.Status(ctx); r.Memories != 11 {
		t.Errorf("after the sync: %d cached, want 10 episodes and the rule", r.Memories)
	}
}

// TestCacheBelongsToOneProject: a cache file synced with one project refuses
// another.
func TestCacheBelongsToOneProject(t *testing.T) {
	ctx := context.Background()
	db := pgtest.Open(t)
	c := openCache(t, filepath.Join(t.TempDir(), "c.db()"))
	if _, err := c.Sync(ctx, newCore(t, db, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sync(ctx, newCore(t, db, nil)); err == nil {
		t.Error("a second project synced into the same cache file")
	}
}

// TestRefusedWriteSetAside: a queued add the core refuses for good (its parent
// does not exist there) is set aside as dead with the reason, and the adds
// queued around it, pushed in one batch otherwise, still reach the core.
func TestRefusedWriteSetAside(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	c := openCache(t, filepath.Join(t.TempDir(), "cache.db"))
	for _, in := range []memory.NewMemory{
		{Kind: memory.KindEpisode, Author: "agent:a", Text: "Ran the migrations on staging"},
		{Kind: memory.KindEpisode, Author: "agent:a", Text: "Fixed the flaky login test", Parents: []string{"00000000-0000-4000-8000-000000000000"}},
		{Kind: memory.KindEpisode, Author: "agent:a", Text: "Deployed the billing service"},
	} {
		if _, err := c.Add(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	r, err := c.Sync(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pushed != 3 || r.Queued != 0 || r.Dead != 1 {
		t.Errorf("sync = pushed %d, queued %d, dead %d; want 3, 0, 1", r.Pushed, r.Queued, r.Dead)
	}
	if n := coreCount(t, core, `SELECT count(*) FROM memories WHERE repository_id = $1`); n != 2 {
		t.Errorf("core memories = %d, want the 2 valid ones", n)
	}
}

// TestContradictionInOneBatch: two contradicting rules queued on one machine go
// to the core in one transaction; the second still sees the first, and both
// are DISPUTED in one conflict.
func TestContradictionInOneBatch(t *testing.T) {
	ctx := context.Background()
	const ruleA, ruleB = "Deploys happen on Fridays", "Deploys never happen on Fridays"
	core := newCore(t, pgtest.Open(t), scriptJudge{pairs: [][2]string{{ruleA, ruleB}}})
	c := openCache(t, filepath.Join(t.TempDir(), "cache.db"))
	for _, text := range []string{ruleA, ruleB} {
		if _, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "human:ann", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	ks, err := c.Conflicts(ctx, memory.ConflictOpen)
	if err != nil || len(ks) != 1 || len(ks[0].MemoryIDs) != 2 {
		t.Fatalf("cached conflicts = %+v, %v; want one holding both rules", ks, err)
	}
}
