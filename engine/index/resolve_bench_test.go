package index_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// BenchmarkSecondRepositoryResolve indexes a corpus (part of the Go source tree)
// twice, as two repositories of one database, and reports how long edge
// resolution took for each: the second once took 5-8 times as long, planned from
// statistics that did not know its rows.
func BenchmarkSecondRepositoryResolve(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no Go toolchain")
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	dirs := strings.Fields(os.Getenv("SPELUNK_BENCH_DIRS"))
	if len(dirs) == 0 {
		dirs = []string{"go", "net", "encoding", "strings", "bytes", "bufio", "strconv"}
	}
	roots := make([]string, 2)
	for i := range roots {
		roots[i] = filepath.Join(b.TempDir(), "corpus")
		for _, d := range dirs {
			if err := os.CopyFS(filepath.Join(roots[i], d), os.DirFS(filepath.Join(src, d))); err != nil {
				b.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	var first, second time.Duration
	edges := 0
	for range b.N {
		url := pgtest.URL(b)
		// Autovacuum analyses at its own pace (after a 10% change, once a minute):
		// off here, so only the run's own ANALYZE can tell the planner about the
		// second repository's rows, as when it is small beside the first.
		conn, err := pg.ConnectOwner(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range []string{"files", "symbols", "edges", "postings", "symbol_embeddings"} {
			if _, err := conn.Exec(ctx, "ALTER TABLE "+t+" SET (autovacuum_enabled = false)"); err != nil {
				b.Fatal(err)
			}
		}
		conn.Close(ctx)
		db := pgtest.OpenTenant(b, url, pg.DefaultTenant)
		ix := index.New(db, hashing())
		for i, root := range roots {
			var resolving, resolved time.Duration
			opts := index.Options{Progress: func(p index.Progress) {
				switch {
				case p.Phase == "resolving":
					resolving = p.Elapsed
				case resolving > 0 && resolved == 0 && p.Phase != "resolving":
					resolved = p.Elapsed
				}
			}}
			sum, err := ix.Index(ctx, root, opts)
			if err != nil {
				b.Fatal(err)
			}
			edges = sum.Edges
			if i == 0 {
				first += resolved - resolving
			} else {
				second += resolved - resolving
			}
		}
	}
	b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "resolve1-ms")
	b.ReportMetric(float64(second.Milliseconds())/float64(b.N), "resolve2-ms")
	b.ReportMetric(float64(edges), "edges")
}
