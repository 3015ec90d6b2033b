package memcache

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkOpen is the cost of opening a cache file at start (spelunk mcp,
// every memory command): Open whole (past quickCheckMaxBytes, the header
// check only), and PRAGMA quick_check alone, which reads every page, at 10k
// and 50k memories.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10_000, 50_000} {
		c := fillCache(b, n)
		path := c.opts.Path
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d/open", n), func(b *testing.B) {
			p95(b, func() error {
				c, err := Open(ctx, Options{Path: path, Embedder: c.opts.Embedder})
				if err != nil {
					return err
				}
				return c.Close()
			})
			b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
		})
		b.Run(fmt.Sprintf("n=%d/quick_check", n), func(b *testing.B) {
			db, err := openDB(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			p95(b, func() error { return quickCheck(ctx, db) })
		})
	}
}
