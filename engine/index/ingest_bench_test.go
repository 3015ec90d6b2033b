package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/source"
)

// BenchmarkIngest measures the database side alone (docs/ARCHITECTURE.md §10 "ingest"): files
// are read and parsed before the clock starts, then written in the indexer's
// batches (rows COPYed through staging tables, postings, edges), without embeddings
// or edge resolution.
func BenchmarkIngest(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no Go toolchain")
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	root := b.TempDir()
	for _, d := range []string{"bufio", "bytes", "strings", "strconv", "encoding", "archive", "compress", "container"} {
		if err := os.CopyFS(filepath.Join(root, d), os.DirFS(filepath.Join(src, d))); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	repo, err := source.Open(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	files, err := repo.WorkingTree(ctx, source.Options{})
	if err != nil {
		b.Fatal(err)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	resolver := newImportResolver(paths, nil)
	var parsedFiles []parsed
	chunks := 0
	for _, f := range files {
		t := target{File: f, revision: source.WorkingTreeRev}
		var data []byte
		var rerr error
		if f.Skip == "" {
			data, rerr = repo.Read(ctx, f, source.WorkingTreeRev)
		}
		p := prepare(t, data, rerr, resolver, source.Options{})
		chunks += len(p.symbols())
		parsedFiles = append(parsedFiles, p)
	}
	repo.Close()

	b.ResetTimer()
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := pgtest.Open(b)
		rec, err := db.EnsureRepository(ctx, root)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.RegisterModel(ctx, pg.Model{Name: "ingest-bench", Dims: 8}); err != nil {
			b.Fatal(err)
		}
		modelID, err := db.ModelID(ctx, "ingest-bench")
		if err != nil {
			b.Fatal(err)
		}
		w := &writer{db: db, repoID: rec.ID, model: "ingest-bench", modelID: modelID}
		b.StartTimer()
		start := time.Now()
		for lo := 0; lo < len(parsedFiles); lo += 64 {
			if _, err := w.writeFiles(ctx, parsedFiles[lo:min(lo+64, len(parsedFiles))]); err != nil {
				b.Fatal(err)
			}
		}
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(chunks)*float64(b.N)/elapsed.Seconds(), "chunks/s")
	b.ReportMetric(float64(chunks), "chunks")
}
