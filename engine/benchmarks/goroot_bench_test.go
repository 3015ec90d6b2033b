package benchmarks

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/internal/memlimit"
	"github.com/spelunkhq/spelunk/internal/proccpu"
)

// BenchmarkIndexGoroot is a full first index of Go's src/net and of all of
// $GOROOT/src (docs/ARCHITECTURE.md §10: < 3 s and < 60 s with RSS < 300 MiB,
// ≥ 5k chunks/s on 2 cores). Besides wall time it reports the CPU seconds of
// this process and of the PostgreSQL cluster (every backend, reaped or live),
// and the load average, since a shared machine makes wall time noisy.
//
// SPELUNK_BENCH_GOROOT_REPO names an existing git repository to index instead
// of a fresh copy of $GOROOT/src (it is only read); SPELUNK_BENCH_EMBEDDER=hash
// swaps the built-in default embedder for the hashing one, to show what the
// embeddings cost.
func BenchmarkIndexGoroot(b *testing.B) {
	memlimit.Apply() // as the spelunk command does
	emb := benchEmbedder(b)
	b.Run("net", func(b *testing.B) {
		root, _ := corpusOf(b, filepath.Join(goRoot(), "src", "net"), 1<<40)
		benchFullIndex(b, root, emb)
	})
	b.Run("all", func(b *testing.B) {
		root := os.Getenv("SPELUNK_BENCH_GOROOT_REPO")
		if root == "" {
			root, _ = corpusOf(b, filepath.Join(goRoot(), "src"), 1<<40)
		}
		benchFullIndex(b, root, emb)
	})
}

func benchEmbedder(b *testing.B) index.Embedder {
	switch p := os.Getenv("SPELUNK_BENCH_EMBEDDER"); p {
	case embed.ProviderHash:
		return embed.NewHashing(0)
	case embed.ProviderGloVe, embed.ProviderCode:
		e, err := embed.FromConfig(embed.Config{Provider: p})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	return embedder(b)
}

// benchFullIndex indexes root into a fresh database b.N times and reports the
// run's figures.
func benchFullIndex(b *testing.B, root string, emb index.Embedder) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		db := pgtest.Open(b)
		postmaster := pgtest.Postmaster(b, db)
		pg0, self0 := proccpu.Cluster(postmaster), proccpu.Self()
		start := time.Now()
		sum, err := index.New(db, emb).Index(ctx, root, index.Options{})
		if err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		b.ReportMetric(wall.Seconds(), "full_s")
		b.ReportMetric(float64(sum.Symbols)/wall.Seconds(), "chunks/s")
		b.ReportMetric(float64(sum.Symbols), "chunks")
		b.ReportMetric(float64(sum.Edges), "edges")
		b.ReportMetric(float64(sum.FilesIndexed), "files")
		b.ReportMetric((proccpu.Self() - self0).Seconds(), "go_cpu_s")
		b.ReportMetric((proccpu.Cluster(postmaster) - pg0).Seconds(), "pg_cpu_s")
		b.ReportMetric(proccpu.LoadAverage(), "load1")
		b.Logf("%s: %d files, %d chunks, %d edges in %s (embedder %s)", filepath.Base(root),
			sum.FilesIndexed, sum.Symbols, sum.Edges, wall.Round(time.Millisecond), emb.Name())
	}
	b.ReportMetric(peakRSS(), "peak_rss_MiB")
}

// corpusOf copies whole non-generated files under src (test data and vendored
// trees left out, as the indexer skips them) into a new one-commit git
// repository, until about lines lines.
func corpusOf(b *testing.B, src string, lines int) (string, int) {
	b.Helper()
	dst, total := copyTree(b, src, lines)
	indextest.Git(b, dst, "init", "-q")
	indextest.Git(b, dst, "add", "-A")
	indextest.Git(b, dst, "commit", "-q", "-m", "corpus")
	return dst, total
}
