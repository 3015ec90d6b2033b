package index_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// BenchmarkSave is a one-file save on the fixture as the watcher, MCP
// index_file and index --file run it: edit a Go file, index just its path.
// At this size a run's fixed costs (planning, the resolution's statements,
// finishing) are most of it: what issue 36 asked not to grow by over 10 %.
func BenchmarkSave(b *testing.B) {
	root := indextest.Repo(b)
	db := pgtest.Open(b)
	ix := index.New(db, hashing())
	ctx := context.Background()
	if _, err := ix.Index(ctx, root, index.Options{}); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(root, "cart", "cart.go")
	b.ResetTimer()
	for i := range b.N {
		appendFile(b, file, fmt.Sprintf("\n// Saved%d\nfunc Saved%d() int { return Total() }\n", i, i))
		if _, err := ix.Index(ctx, root, index.Options{Paths: []string{"cart/cart.go"}}); err != nil {
			b.Fatal(err)
		}
	}
}
