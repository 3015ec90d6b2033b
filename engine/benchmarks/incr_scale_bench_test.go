package benchmarks

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/internal/proccpu"
)

// changeSizes are the runs of issue 39 item 0: a commit that changes this many
// files, re-indexed at HEAD.
var changeSizes = []int{1, 10, 300}

// BenchmarkIncrementalScale is issue 39's "incremental cost proportional to the
// change": a commit of 1, 10 and 300 files re-indexed at HEAD, on a small
// repository ($GOROOT/src/net, 140k lines) and a large one (all of
// $GOROOT/src, or SPELUNK_BENCH_GOROOT_REPO as in BenchmarkIncrementalGoroot).
// Each changed file gets a new function appended (its name is new: the run
// decides again the edges of the files it wrote and of that name). Reported
// per size: ms/op (one run per iteration), the CPU seconds of this process and
// of the PostgreSQL cluster per run, and the load average; the ratio large /
// small of the one-file run is the figure to watch (docs/BENCHMARKS.md).
func BenchmarkIncrementalScale(b *testing.B) {
	emb := benchEmbedder(b)
	corpora := []struct {
		name string
		root func(b *testing.B) string
	}{
		{"small", func(b *testing.B) string {
			root, _ := corpusOf(b, filepath.Join(goRoot(), "src", "net"), 1<<40)
			return root
		}},
		{"large", goCorpusCopy},
	}
	for _, c := range corpora {
		b.Run(c.name, func(b *testing.B) {
			root := c.root(b)
			db := pgtest.Open(b)
			ix := index.New(db, emb)
			t0 := time.Now()
			sum, err := ix.Index(context.Background(), root, index.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: first index: %d files, %d chunks, %d edges in %s", c.name, sum.FilesIndexed, sum.Symbols,
				sum.Edges, time.Since(t0).Round(time.Millisecond))
			postmaster := pgtest.Postmaster(b, db)
			files := goFiles(b, root)
			for _, n := range changeSizes {
				b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
					measureChange(b, postmaster, ix, root, spread(files, n))
				})
			}
		})
	}
}

// goFiles lists the Go files of root (relative, sorted) that are not tests.
func goFiles(b *testing.B, root string) []string {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// spread picks n of files, evenly apart (every package of a large tree, not
// the first directory's).
func spread(files []string, n int) []string {
	if n >= len(files) {
		return files
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, files[i*len(files)/n])
	}
	return out
}

// measureChange times b.N runs, each after a commit that appends a function
// to every file of rels.
func measureChange(b *testing.B, postmaster int, ix *index.Indexer, root string, rels []string) {
	ctx := context.Background()
	var goCPU, pgCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j, rel := range rels {
			appendFunc(b, filepath.Join(root, rel), fmt.Sprintf("Scale%d_%d_%d", len(rels), i, j))
		}
		indextest.Git(b, root, "commit", "-qam", "edit")
		pg0, self0 := proccpu.Cluster(postmaster), proccpu.Self()
		b.StartTimer()
		sum, err := ix.Index(ctx, root, index.Options{})
		b.StopTimer()
		goCPU += proccpu.Self() - self0
		pgCPU += proccpu.Cluster(postmaster) - pg0
		if err != nil {
			b.Fatal(err)
		}
		if sum.FilesIndexed != len(rels) {
			b.Fatalf("the run re-indexed %d files, want %d", sum.FilesIndexed, len(rels))
		}
		b.StartTimer()
	}
	b.ReportMetric(goCPU.Seconds()/float64(b.N), "go_cpu_s/op")
	b.ReportMetric(pgCPU.Seconds()/float64(b.N), "pg_cpu_s/op")
	b.ReportMetric(proccpu.LoadAverage(), "load1")
}

// appendFunc appends a function named Touched<name> to the Go file at path.
func appendFunc(b *testing.B, path, name string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	_, err = fmt.Fprintf(f, "\n// Touched%s is a benchmark edit.\nfunc Touched%s() int { return %d }\n", name, name, len(name))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
}
