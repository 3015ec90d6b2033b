package memcache_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// BenchmarkSyncQueued: one sync of 10,000 writes queued offline (9,000 memory
// adds, each embedded and conflict-checked by the core, and 1,000 nugget sets)
// into a fresh project of a real PostgreSQL. Run it with -benchtime=1x: one
// iteration is the whole drain. s/index-after is the background step that
// follows (the pushed vectors moved into the HNSW index), not part of s/sync.
func BenchmarkSyncQueued(b *testing.B) {
	ctx := context.Background()
	db := pgtest.Open(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		core := newCore(b, db, nil)
		c := openCache(b, filepath.Join(b.TempDir(), fmt.Sprintf("cache-%d.db", i)))
		for j := range 9_000 {
			if _, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindEpisode, Author: "agent:bench",
				Text: fmt.Sprintf("episode %d: the job %d of queue %d retried after %d ms", j, j%311, j%17, 100+j%900)}); err != nil {
				b.Fatal(err)
			}
		}
		for j := range 1_000 {
			if _, err := c.SetNugget(ctx, memory.NuggetWrite{Key: fmt.Sprintf("key-%03d", j%250), Value: fmt.Sprint(j), Author: "agent:bench"}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		r, err := c.Sync(ctx, core)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/sync")
		if r.Pushed != 10_000 || r.Queued != 0 {
			b.Fatalf("pushed %d, queued %d; want 10000, 0", r.Pushed, r.Queued)
		}
		// What the background step does after the sync, off its path: the
		// pushed vectors into the HNSW index (memory.Store.IndexDelta).
		b.StopTimer()
		start = time.Now()
		moved, err := core.Store.IndexDelta(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/index-after")
		b.ReportMetric(float64(moved), "indexed-after")
		b.StartTimer()
	}
}
