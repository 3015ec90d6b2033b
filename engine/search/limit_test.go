package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// recoveryRepo indexes gin's shape: a recovery middleware and many tests
// that say "recovery" and "panic" more often than it does.
func recoveryRepo(t *testing.T) *Searcher {
	t.Helper()
	dir := t.TempDir()
	code := "package gin\n\n// Recovery returns a middleware that recovers from any panic.\nfunc Recovery() HandlerFunc {\n\treturn RecoveryWithWriter(DefaultErrorWriter)\n}\n\n" +
		"// RecoveryWithWriter recovers from a panic and writes the stack to out.\nfunc RecoveryWithWriter(out io.Writer) HandlerFunc {\n\treturn func(c *Context) {\n\t\tdefer func() {\n\t\t\tif err := recover(); err != nil {\n\t\t\t\tstack(out)\n\t\t\t}\n\t\t}()\n\t\tc.Next()\n\t}\n}\n"
	var tests strings.Builder
	tests.WriteString("package gin\n\nimport \"testing\"\n")
	for i := range 12 {
		fmt.Fprintf(&tests, "\n// TestRecoveryPanic%d checks that recovery handles a panic: recovery, panic, recovery.\nfunc TestRecoveryPanic%d(t *testing.T) {\n\trouter := New()\n\trouter.Use(Recovery())\n\tpanicRecovery(t, router, \"recovery panic %d\")\n}\n", i, i, i)
	}
	writeRepoFile(t, dir, "recovery.go", code)
	writeRepoFile(t, dir, "recovery_test.go", tests.String())
	db, emb, sum := commitAndIndex(t, dir)
	return New(db, sum.RepositoryID, emb)
}

// commitAndIndex commits the files written in dir as a new git repository
// and indexes it into a test database with the test embedder.
func commitAndIndex(t *testing.T, dir string) (*pg.DB, index.Embedder, index.Summary) {
	t.Helper()
	indextest.Git(t, dir, "init", "-q")
	indextest.Git(t, dir, "add", "-A")
	indextest.Git(t, dir, "commit", "-q", "-m", "fixture")
	db := pgtest.Open(t)
	emb := indextest.Embedder()
	sum, err := index.New(db, emb).Index(context.Background(), dir, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db, emb, sum
}

func writeRepoFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLimitDoesNotChangeTheOrder: a query's top N is the same for every
// limit of N or more. The fused list was cut at 3×limit before tests and
// prose took their ×0.5, so a small limit ranked tests above code that a
// larger one ranked first (issue 36, 7).
func TestLimitDoesNotChangeTheOrder(t *testing.T) {
	s := recoveryRepo(t)
	ctx := context.Background()
	differ := 0
	queries := []string{"recovery panic", "recover from a panic", "panic handler", "RecoveryWithWriter", "write the stack"}
	for _, q := range queries {
		full, err := s.Search(ctx, q, Options{Limit: 60})
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 8; n++ {
			got, err := s.Search(ctx, q, Options{Limit: n})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := names(got.Results), names(full.Results[:min(n, len(full.Results))]); a != b {
				differ++
				t.Errorf("%q --limit %d: %s\n--limit 60 starts: %s", q, n, a, b)
			}
		}
	}
	if differ > 0 {
		t.Logf("%d of %d (query, limit) pairs differ", differ, len(queries)*8)
	}
}

func names(rs []Result) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s:%s", r.Path, r.QualifiedName)
	}
	return strings.Join(parts, ", ")
}
