package benchmarks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/internal/proccpu"
)

// BenchmarkIncrementalGoroot is issue 13's "a one-file change re-indexed at
// 2M+ lines" (docs/ARCHITECTURE.md §10: < 200 ms): all of $GOROOT/src is
// indexed once, then each iteration edits one file, commits it and re-indexes
// at HEAD ("commit"), or edits it on disk and indexes just that path as a save
// under the watcher does ("path"). Reported besides ms/op: p50 and max of the
// runs, the CPU seconds per run of this process and of the PostgreSQL cluster,
// and the load average (the machine is shared: wall time alone is noise).
//
// SPELUNK_BENCH_GOROOT_REPO names a git repository of the corpus to copy
// instead of copying $GOROOT/src (it is not modified); SPELUNK_BENCH_EMBEDDER=hash
// as in BenchmarkIndexGoroot; SPELUNK_BENCH_CPUPROFILE=FILE writes a CPU
// profile of the incremental runs only (not of the first index).
func BenchmarkIncrementalGoroot(b *testing.B) {
	root := goCorpusCopy(b)
	emb := benchEmbedder(b)
	db := pgtest.Open(b)
	ix := index.New(db, emb)
	ctx := context.Background()
	t0 := time.Now()
	sum, err := ix.Index(ctx, root, index.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("first index: %d files, %d chunks, %d edges in %s", sum.FilesIndexed, sum.Symbols, sum.Edges,
		time.Since(t0).Round(time.Millisecond))
	postmaster := pgtest.Postmaster(b, db)
	stopProfile := startProfile(b)
	defer stopProfile()
	edit := editor(b, root, filepath.Join("bufio", "bufio.go"))
	b.Run("commit", func(b *testing.B) {
		measureRuns(b, postmaster, func(i int) index.Options {
			edit(fmt.Sprintf("Commit%d", i))
			indextest.Git(b, root, "commit", "-qam", "edit")
			return index.Options{}
		}, ix, root)
	})
	b.Run("path", func(b *testing.B) {
		measureRuns(b, postmaster, func(i int) index.Options {
			edit(fmt.Sprintf("Saved%d", i))
			return index.Options{Paths: []string{"bufio/bufio.go"}}
		}, ix, root)
	})
}

// goCorpusCopy is a git repository of all of $GOROOT/src of the benchmark's
// own (SPELUNK_BENCH_GOROOT_REPO copied, or a fresh copy of the tree).
func goCorpusCopy(b *testing.B) string {
	src := os.Getenv("SPELUNK_BENCH_GOROOT_REPO")
	if src == "" {
		root, _ := corpusOf(b, filepath.Join(goRoot(), "src"), 1<<40)
		return root
	}
	dst := filepath.Join(b.TempDir(), "corpus")
	indextest.Git(b, b.TempDir(), "clone", "-q", "--no-hardlinks", src, dst)
	return dst
}

// editor returns a function that appends a new function named after name and
// a sequence number (a benchmark's loop runs more than once) to the file rel
// of root, so each edit adds a definition (its name then counts as changed for
// resolution, as a real edit's often does).
func editor(b *testing.B, root, rel string) func(name string) {
	target := filepath.Join(root, rel)
	data, err := os.ReadFile(target)
	if err != nil {
		b.Fatalf("the corpus lacks %s: %v", rel, err)
	}
	seq := 0
	return func(name string) {
		seq++
		name = fmt.Sprintf("%s_%d", name, seq)
		edited := append(bytes.Clone(data), fmt.Sprintf("\n// Touched%s is a benchmark edit.\nfunc Touched%s() int { return %d }\n",
			name, name, seq)...)
		if err := os.WriteFile(target, edited, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// measureRuns times b.N incremental runs, each after prepare(i) changed one
// file, and reports their p50 and max and the CPU they cost.
func measureRuns(b *testing.B, postmaster int, prepare func(i int) index.Options, ix *index.Indexer, root string) {
	ctx := context.Background()
	var durs []time.Duration
	var goCPU, pgCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		opts := prepare(i)
		pg0, self0 := proccpu.Cluster(postmaster), proccpu.Self()
		b.StartTimer()
		t := time.Now()
		sum, err := ix.Index(ctx, root, opts)
		d := time.Since(t)
		b.StopTimer()
		goCPU += proccpu.Self() - self0
		pgCPU += proccpu.Cluster(postmaster) - pg0
		if err != nil {
			b.Fatal(err)
		}
		if sum.FilesIndexed != 1 {
			b.Fatalf("the run re-indexed %d files, want 1", sum.FilesIndexed)
		}
		durs = append(durs, d)
		b.StartTimer()
	}
	slices.Sort(durs)
	b.ReportMetric(ms(durs[len(durs)/2]), "p50_ms")
	b.ReportMetric(ms(durs[len(durs)-1]), "max_ms")
	b.ReportMetric(goCPU.Seconds()/float64(b.N), "go_cpu_s/op")
	b.ReportMetric(pgCPU.Seconds()/float64(b.N), "pg_cpu_s/op")
	b.ReportMetric(proccpu.LoadAverage(), "load1")
}

// startProfile starts the CPU profile SPELUNK_BENCH_CPUPROFILE asks for.
func startProfile(b *testing.B) (stop func()) {
	path := os.Getenv("SPELUNK_BENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
