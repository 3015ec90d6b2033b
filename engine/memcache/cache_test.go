package memcache_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv(childCache) != "" {
		syncChild() // the process TestKill9MidSync kills
	}
	pgtest.Main(m)
}

// scriptJudge says two claims contradict when both texts form one of its pairs.
type scriptJudge struct{ pairs [][2]string }

func (j scriptJudge) Judge(_ context.Context, a, b memory.Claim) (memory.Verdict, error) {
	for _, p := range j.pairs {
		if (p[0] == a.Text && p[1] == b.Text) || (p[0] == b.Text && p[1] == a.Text) {
			return memory.Verdict{Contradicts: true, Reason: "scripted"}, nil
		}
	}
	return memory.Verdict{}, nil
}

func newCore(t testing.TB, db *pg.DB, judge memory.Judge) memcache.Core {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	repo, err := db.EnsureRepository(context.Background(), "/projects/"+hex.EncodeToString(b))
	if err != nil {
		t.Fatal(err)
	}
	return memcache.Core{DB: db, Store: memory.New(db, repo.ID, memory.Options{Embedder: embed.NewHashing(0), Judge: judge})}
}

func openCache(t testing.TB, path string) *memcache.Cache {
	t.Helper()
	c, err := memcache.Open(context.Background(), memcache.Options{Path: path, Embedder: embed.NewHashing(0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// coreCount counts rows of a project's table on the core.
func coreCount(t testing.TB, core memcache.Core, sql string) int {
	t.Helper()
	var n int
	if err := core.DB.Pool.QueryRow(context.Background(), sql, core.Store.Project()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// writeOffline makes 100 memory adds and 20 nugget sets through the cache.
func writeOffline(t testing.TB, c *memcache.Cache) {
	t.Helper()
	ctx := context.Background()
	for i := range 100 {
		if _, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindEpisode, Author: "agent:a",
			Text: fmt.Sprintf("offline episode number %d about the payment retry loop", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		if _, err := c.SetNugget(ctx, memory.NuggetWrite{Key: fmt.Sprintf("key-%02d", i), Value: "v", Author: "agent:a"}); err != nil {
			t.Fatal(err)
		}
	}
}

func checkDrained(t testing.TB, c *memcache.Cache, core memcache.Core) {
	t.Helper()
	ctx := context.Background()
	if n := coreCount(t, core, `SELECT count(*) FROM memories WHERE repository_id = $1`); n != 100 {
		t.Errorf("core memories = %d, want 100", n)
	}
	if n := coreCount(t, core, `SELECT count(DISTINCT content) FROM memories WHERE repository_id = $1`); n != 100 {
		t.Errorf("core distinct memories = %d, want 100", n)
	}
	if n := coreCount(t, core, `SELECT count(*) FROM nuggets WHERE repository_id = $1`); n != 20 {
		t.Errorf("core nuggets = %d, want 20", n)
	}
	if n := coreCount(t, core, `SELECT count(*) FROM nugget_history WHERE repository_id = $1`); n != 20 {
		t.Errorf("core nugget history = %d, want 20 (each write once)", n)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != 0 || st.Dead != 0 {
		t.Errorf("queued %d, dead %d after sync; want 0, 0", st.Queued, st.Dead)
	}
	wm, err := memcache.CoreWatermark(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Watermark.Equal(wm) {
		t.Errorf("cache watermark %s, core %s; want equal", st.Watermark, wm)
	}
}

// TestOfflineWritesDrainOnce stops the core, writes through the cache, restarts
// the core and syncs: every write reaches the core exactly once.
func TestOfflineWritesDrainOnce(t *testing.T) {
	ctx := context.Background()
	cl := pgtest.Cluster(t)
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cl.EnsureDatabase(ctx, "spelunk"); err != nil {
		t.Fatal(err)
	}
	db := pgtest.OpenTenant(t, cl.URL("spelunk"), pg.DefaultTenant)
	core := newCore(t, db, nil)
	c := openCache(t, filepath.Join(t.TempDir(), "cache.db"))
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	if err := cl.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	writeOffline(t, c)
	t.Logf("100 adds + 20 nugget sets offline: %s", time.Since(start))
	b, err := c.Briefing(ctx, memory.BriefingOptions{Limit: 5})
	if err != nil || len(b.Memories) != 5 || len(b.Nuggets) != 20 {
		t.Fatalf("offline briefing: %d memories, %d nuggets, %v", len(b.Memories), len(b.Nuggets), err)
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	r, err := c.Sync(sctx, core)
	cancel()
	if err == nil || r.Queued != 120 || r.LastError == "" {
		t.Fatalf("sync with the core down: queued %d, last error %q, err %v; want 120 queued and an error", r.Queued, r.LastError, err)
	}

	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	r, err = c.Sync(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sync of 120 queued writes: %s (pushed %d, pulled %d)", time.Since(start), r.Pushed, r.Pulled)
	if r.Pushed != 120 || r.LastError != "" {
		t.Errorf("pushed %d, last error %q; want 120, none", r.Pushed, r.LastError)
	}
	checkDrained(t, c, core)
}

// copyCache copies a closed cache file (a snapshot of the machine's disk).
func copyCache(t testing.TB, from, to string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		src, err := os.Open(from + suffix)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(to + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
}

// TestCrashMidSync: a sync cut short (its context cancelled, or the process gone
// after the core committed and before the cache did) is finished by the next
// one, with nothing duplicated and nothing lost.
func TestCrashMidSync(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.db")
	c, err := memcache.Open(ctx, memcache.Options{Path: path, Embedder: embed.NewHashing(0)})
	if err != nil {
		t.Fatal(err)
	}
	writeOffline(t, c)
	c.Close()
	// The disk as it was before any push: replaying it is what a machine killed
	// after the core committed, before the cache removed the writes, does.
	copyCache(t, path, filepath.Join(dir, "before.db"))

	c = openCache(t, path)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		for coreCount(t, core, `SELECT count(*) FROM memories WHERE repository_id = $1`) < 30 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := c.Sync(cctx, core); err == nil {
		t.Log("sync finished before the cancellation")
	}
	cancel()
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	checkDrained(t, c, core)
	c.Close()

	copyCache(t, filepath.Join(dir, "before.db"), path)
	c = openCache(t, path)
	r, err := c.Sync(ctx, core)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pushed != 120 {
		t.Errorf("replayed %d writes, want 120", r.Pushed)
	}
	checkDrained(t, c, core)
}

// TestContradictingRulesWrittenApart: two machines write contradicting rules
// while offline; after both sync, one conflict holds both, DISPUTED, and each
// cache shows it after its next pull.
func TestContradictingRulesWrittenApart(t *testing.T) {
	ctx := context.Background()
	const ruleA, ruleB = "Always squash commits before merging to main", "Never squash commits before merging to main"
	core := newCore(t, pgtest.Open(t), scriptJudge{pairs: [][2]string{{ruleA, ruleB}}})
	a := openCache(t, filepath.Join(t.TempDir(), "a.db"))
	b := openCache(t, filepath.Join(t.TempDir(), "b.db"))
	ma, err := a.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "human:ann", Text: ruleA})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := b.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "human:bob", Text: ruleB})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*memcache.Cache{a, b, a} {
		if _, err := c.Sync(ctx, core); err != nil {
			t.Fatal(err)
		}
	}
	ks, err := core.Store.Conflicts(ctx, memory.ConflictOpen)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != 1 || len(ks[0].MemoryIDs) != 2 {
		t.Fatalf("core conflicts = %+v, want one holding both rules", ks)
	}
	want := ks[0].ID
	for name, c := range map[string]*memcache.Cache{"a": a, "b": b} {
		ks, err := c.Conflicts(ctx, memory.ConflictOpen)
		if err != nil {
			t.Fatal(err)
		}
		if len(ks) != 1 || ks[0].ID != want {
			t.Errorf("cache %s conflicts = %+v, want the one", name, ks)
		}
		for _, id := range []string{ma.ID, mb.ID} {
			m, err := c.Memory(ctx, id)
			if err != nil || m.Status != memory.StatusDisputed {
				t.Errorf("cache %s: memory %s = %s, %v; want DISPUTED", name, id, m.Status, err)
			}
		}
	}
}

// TestInvalidationReachesOtherMachine: a memory invalidated on machine A leaves
// machine B's briefing after B's next pull.
func TestInvalidationReachesOtherMachine(t *testing.T) {
	ctx := context.Background()
	core := newCore(t, pgtest.Open(t), nil)
	a := openCache(t, filepath.Join(t.TempDir(), "a.db"))
	b := openCache(t, filepath.Join(t.TempDir(), "b.db"))
	m, err := a.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent:a", Text: "The staging database is db-stage-2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*memcache.Cache{a, b} {
		if _, err := c.Sync(ctx, core); err != nil {
			t.Fatal(err)
		}
	}
	if br, err := b.Briefing(ctx, memory.BriefingOptions{}); err != nil || len(br.Memories) != 1 {
		t.Fatalf("b's briefing before: %+v, %v; want the fact", br.Memories, err)
	}
	if err := a.Invalidate(ctx, m.ID, "human:ann", "moved to db-stage-3"); err != nil {
		t.Fatal(err)
	}
	if br, _ := a.Briefing(ctx, memory.BriefingOptions{}); len(br.Memories) != 0 {
		t.Errorf("a's briefing after its own invalidation: %+v, want none", br.Memories)
	}
	for _, c := range []*memcache.Cache{a, b} {
		if _, err := c.Sync(ctx, core); err != nil {
			t.Fatal(err)
		}
	}
	if br, err := b.Briefing(ctx, memory.BriefingOptions{}); err != nil || len(br.Memories) != 0 {
		t.Errorf("b's briefing after its pull: %+v, %v; want none", br.Memories, err)
	}
}
