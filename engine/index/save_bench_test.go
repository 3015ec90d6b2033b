package index_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/internal/proccpu"
)

// BenchmarkSave is a one-file save on the fixture as the watcher, MCP
// index_file and index --file run it: edit a Go file, index just its path.
// At this size a run's fixed costs (planning, the resolution's statements,
// finishing) are most of it: what issue 36 asked not to grow by over 10 %.
// Besides the wall time it reports the CPU per save of this process and of
// the whole PostgreSQL cluster, which a loaded machine's queue for a core
// does not inflate.
func BenchmarkSave(b *testing.B) {
	root := indextest.Repo(b)
	db := pgtest.Open(b)
	ix := index.New(db, hashing())
	ctx := context.Background()
	if _, err := ix.Index(ctx, root, index.Options{}); err != nil {
		b.Fatal(err)
	}
	var backend int
	if err := db.Pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	postmaster, err := proccpu.Postmaster(backend)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(root, "cart", "cart.go")
	self0, pg0 := proccpu.Self(), proccpu.Cluster(postmaster)
	b.ResetTimer()
	for i := range b.N {
		appendFile(b, file, fmt.Sprintf("\n// Saved%d\nfunc Saved%d() int { return Total() }\n", i, i))
		if _, err := ix.Index(ctx, root, index.Options{Paths: []string{"cart/cart.go"}}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(perOp(proccpu.Self()-self0), "cpu-ms/op")
	b.ReportMetric(perOp(proccpu.Cluster(postmaster)-pg0), "pg-cpu-ms/op")
}
