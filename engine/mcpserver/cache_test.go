package mcpserver_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestMemoryToolsServedFromCache: with the memory tools on the local edge cache,
// the core going down leaves every memory tool answering (reads from the file,
// writes queued); once the core is back the background loop drains the queue
// into it.
func TestMemoryToolsServedFromCache(t *testing.T) {
	ctx := context.Background()
	var seeded memory.Added
	env := serveFromCache(t, func(core *memcache.Core) {
		var err error
		seeded, err = core.Store.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent:seed", Text: "The staging database is db-stage-2"})
		if err != nil {
			t.Fatal(err)
		}
	})
	c, core, cache, cs := env.cluster, env.core, env.cache, env.cs

	// Pulled before serving: the core's memory is in the first briefing.
	b := call[mcpserver.BriefingOut](t, cs, "briefing", map[string]any{})
	if len(b.Memories) != 1 || b.Memories[0].ID != seeded.Memory.ID {
		t.Fatalf("briefing at start = %+v, want the seeded fact", b.Memories)
	}

	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	r1 := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The payment retry budget is five attempts", "kind": "rule"})
	r2 := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The payment retry budget is three attempts with backoff", "kind": "rule"})
	if r1.ID == "" || r2.ID == "" {
		t.Fatalf("remember with the core down: %+v %+v", r1, r2)
	}
	call[mcpserver.NuggetSetOut](t, cs, "set_nugget", map[string]any{"key": "deploy.cmd", "value": "make deploy"})
	inv := call[mcpserver.MemoryRef](t, cs, "invalidate_memory", map[string]any{"id": seeded.Memory.ID[:8], "reason": "moved to db-stage-3"})
	sup := call[mcpserver.MemoryRef](t, cs, "supersede_memory", map[string]any{"old_id": r1.ID, "new_id": r2.ID})
	if inv.Status != "INVALIDATED" || sup.Status != "SUPERSEDED" || sup.SupersededBy != r2.ID {
		t.Errorf("invalidate %s, supersede %s by %s; want INVALIDATED, SUPERSEDED by %s", inv.Status, sup.Status, sup.SupersededBy, r2.ID)
	}
	b = call[mcpserver.BriefingOut](t, cs, "briefing", map[string]any{})
	if len(b.Memories) != 1 || b.Memories[0].ID != r2.ID || len(b.Nuggets) != 1 || b.Nuggets[0].Value != "make deploy" {
		t.Errorf("briefing with the core down = %+v / %+v, want only the second rule and the nugget", b.Memories, b.Nuggets)
	}
	rc := call[mcpserver.RecallOut](t, cs, "recall", map[string]any{"query": "payment retry budget"})
	if len(rc.Hits) == 0 || rc.Hits[0].ID != r2.ID {
		t.Errorf("recall with the core down = %+v, want the second rule first", rc.Hits)
	}
	if ks := call[mcpserver.ConflictsOut](t, cs, "list_conflicts", map[string]any{"status": "all"}); len(ks.Conflicts) != 0 {
		t.Errorf("list_conflicts = %+v, want none", ks.Conflicts)
	}
	st, err := cache.Status(ctx)
	if err != nil || st.Queued != 5 {
		t.Fatalf("cache queue with the core down = %d (%v), want 5 writes", st.Queued, err)
	}

	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitDrained(t, cache)
	// The core's conflict check at sync finds the two rules contradict: both are
	// DISPUTED, and the agent's queued supersede is set aside, since only a person
	// resolves a conflict (issue 38): a dead write of the cache.
	if st, err := cache.Status(ctx); err != nil || st.Dead != 1 {
		t.Errorf("cache after sync = %+v (%v), want the supersede set aside as DISPUTED", st, err)
	}
	for id, want := range map[string]memory.Status{seeded.Memory.ID: memory.StatusInvalidated, r1.ID: memory.StatusDisputed} {
		m, err := core.Store.Get(ctx, id)
		if err != nil || m.Status != want {
			t.Errorf("core memory %s = %s, %v; want %s", id, m.Status, err, want)
		}
	}
	// The second rule is live on the core (the core's conflict check may dispute it
	// with the first, written apart: that is its call, not the cache's).
	if m, err := core.Store.Get(ctx, r2.ID); err != nil || (m.Status != memory.StatusActive && m.Status != memory.StatusDisputed) {
		t.Errorf("core memory %s = %s, %v; want live", r2.ID, m.Status, err)
	}
	if n, err := core.Store.Nugget(ctx, "deploy.cmd"); err != nil || n.Value != "make deploy" {
		t.Errorf("core nugget = %+v, %v", n, err)
	}
}

// cacheEnv is an MCP server whose memory tools run on a local edge cache over
// a core of its own cluster (stoppable), with the cache's background loop on.
type cacheEnv struct {
	cluster *pg.Cluster
	core    *memcache.Core
	cache   *memcache.Cache
	cs      *mcp.ClientSession
}

// serveFromCache builds a cacheEnv; seed (may be nil) writes to the core before
// the cache's first pull.
func serveFromCache(t *testing.T, seed func(core *memcache.Core)) cacheEnv {
	t.Helper()
	c := ownCluster(t)
	ctx := context.Background()
	db, err := pg.Open(ctx, pg.Options{URL: c.URL("spelunk")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	root := t.TempDir()
	repo, err := db.EnsureRepository(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHashing(0)
	core := &memcache.Core{DB: db, Store: memory.New(db, repo.ID, memory.Options{Embedder: emb})}
	if seed != nil {
		seed(core)
	}
	cache, err := memcache.Open(ctx, memcache.Options{Path: filepath.Join(t.TempDir(), "cache.db"), Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	cl := memcache.NewClient(cache, core)
	stop := cl.Start(ctx, 10*time.Second, 50*time.Millisecond)
	t.Cleanup(stop)
	srv := mcpserver.New(mcpserver.Config{DB: db, Root: root, RepoID: repo.ID, Tenant: pg.DefaultTenant, Embedder: emb, Memory: cl})
	return cacheEnv{cluster: c, core: core, cache: cache, cs: connect(t, srv)}
}

// waitDrained waits until the background loop has pushed the cache's queue.
func waitDrained(t *testing.T, cache *memcache.Cache) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := cache.Status(context.Background())
		if err == nil && st.Queued == 0 && st.LastError == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue not drained by the background loop: %+v, %v", st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
