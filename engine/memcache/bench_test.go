package memcache

import (
	"context"
	"fmt"
	"path/filepath"
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
	if err := setMeta(ctx, c.db, metaCoreModel, emb.Name()); err != nil {
		b.Fatal(err)
	}
	tx, err := c.db.BeginTx(ctx, nil)
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
				for b.Loop() {
					if _, err := c.Briefing(context.Background(), memory.BriefingOptions{Query: q, Limit: 10}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
