package memcache

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// fillCache stores n synced memories with hashing vectors, as a pull would.
func fillCache(b *testing.B, n int) *Cache {
	b.Helper()
	ctx := context.Background()
	emb := embed.NewHashing(0)
	c, err := Open(ctx, Options{Path: filepath.Join(b.TempDir(), "bench.db"), Embedder: emb})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if err := setMeta(ctx, c.db(), metaCoreModel, emb.Name()); err != nil {
		b.Fatal(err)
	}
	tx, err := c.db().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for i := range n {
		text := fmt.Sprintf("memory %d about service %d, port %d and the retry budget of queue %d", i, i%97, 8000+i%50, i%13)
		vecs, err := emb.Embed(ctx, []string{text})
		if err != nil {
			b.Fatal(err)
		}
		m := memory.Memory{ID: newID(), Kind: memory.KindFact, Author: "agent:bench", Content: text,
			Status: memory.StatusActive, CreatedAt: now.Add(-time.Duration(i) * time.Minute)}
		if err := putMemory(ctx, tx, m, now, emb.Name(), vecs[0]); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return c
}

// p95 times each call of fn in the loop and reports the 95th percentile in
// milliseconds (the bound is on p95, which ns/op, a mean, does not say),
// and the process's CPU time per call: on a machine shared with other work the
// wall clock measures the queue for a core as much as the code.
func p95(b *testing.B, fn func() error) {
	b.Helper()
	var took []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	cpu := cpuTime() - cpu0
	slices.Sort(took)
	b.ReportMetric(float64(took[(len(took)*95)/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "cpu-ms/op")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLocalBriefing: a briefing from the cache, recent (no query) and by
// similarity (a brute-force scan of every cached vector, held in memory once
// loaded).
func BenchmarkLocalBriefing(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		c := fillCache(b, n)
		for _, q := range []string{"", "retry budget of queue 7"} {
			name := fmt.Sprintf("n=%d/recent", n)
			if q != "" {
				name = fmt.Sprintf("n=%d/similar", n)
			}
			b.Run(name, func(b *testing.B) {
				// The first similarity briefing loads the vectors from the file.
				if _, err := c.Briefing(context.Background(), memory.BriefingOptions{Query: q, Limit: 10}); err != nil {
					b.Fatal(err)
				}
				p95(b, func() error {
					_, err := c.Briefing(context.Background(), memory.BriefingOptions{Query: q, Limit: 10})
					return err
				})
			})
		}
	}
}

// BenchmarkLocalRecall: recall from the cache, by vector (the local embedder is
// the core's) and by words (it is not: every query word must occur).
func BenchmarkLocalRecall(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		c := fillCache(b, n)
		b.Run(fmt.Sprintf("n=%d/vector", n), func(b *testing.B) {
			if _, err := c.Recall(context.Background(), "retry budget of queue 7", 10); err != nil {
				b.Fatal(err)
			}
			p95(b, func() error {
				_, err := c.Recall(context.Background(), "retry budget of queue 7", 10)
				return err
			})
		})
		b.Run(fmt.Sprintf("n=%d/words", n), func(b *testing.B) {
			if err := setMeta(context.Background(), c.db(), metaCoreModel, "another-model"); err != nil {
				b.Fatal(err)
			}
			defer setMeta(context.Background(), c.db(), metaCoreModel, c.opts.Embedder.Name())
			p95(b, func() error {
				_, err := c.Recall(context.Background(), "retry budget queue", 10)
				return err
			})
		})
	}
}

// BenchmarkLocalLoad: what the first vector read of a process pays, loading
// the cached vectors from the file into memory (the TUI and the MCP server pay
// it once, and again after a write or a pull changes the memories; a one-shot
// CLI command pays it on every similarity briefing or recall).
func BenchmarkLocalLoad(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		c := fillCache(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p95(b, func() error {
				c.vecs.invalidate()
				c.vecs.mu.Lock()
				defer c.vecs.mu.Unlock()
				return c.loadIndex(context.Background(), c.opts.Embedder.Dims())
			})
		})
	}
}
