package index_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestResolversAgree: a full pass of a repository of up to
// maxInMemoryReferences edges decides them in memory (resolve_mem.go), where
// larger ones, scoped runs and Citus decide them in SQL; both must give every
// edge the same target, confidence and candidates. Each repository is indexed
// twice, once each way, into databases of its own, and the rows compared.
//
// SPELUNK_RESOLVE_TREES (a list of git repositories, separated by the
// system's path list separator) adds real trees to the comparison: run by
// hand on public repositories, since CI has none.
func TestResolversAgree(t *testing.T) {
	mixed := withConfidenceFixture(t)
	extra := map[string]string{}
	for _, f := range []map[string]string{cFixture, fieldsFixture, jsObjectFixture, jvmFixture} {
		maps.Copy(extra, f)
	}
	// Two same-file candidates told apart by the caller's receiver.
	extra["py/ranks.py"] = "class A:\n    def size(self):\n        return 1\n\n    def total(self, other):\n" +
		"        return other.size()\n\n\nclass B:\n    def size(self):\n        return 2\n"
	// A name defined once, in a test: code outside tests does not resolve to it.
	extra["py/test_uniq.py"] = "def only_in_tests_here():\n    return 1\n"
	extra["py/uniq_use.py"] = "def use_it():\n    return only_in_tests_here()\n"
	// A promoted method one embedding down shadows the one two down.
	extra["go/emb/emb.go"] = "package emb\n\ntype Base struct{}\n\nfunc (Base) Name() string { return \"b\" }\n\n" +
		"type Mid struct{ Base }\n\nfunc (Mid) Name() string { return \"m\" }\n\ntype Top struct{ Mid }\n\n" +
		"func use(t Top) string { return t.Name() }\n"
	commitFiles(t, mixed, extra)
	repos := map[string]string{
		"mixed":        mixed,
		"field chains": gitRepo(t, fieldChainFixture),
		"src layout":   gitRepo(t, srcLayoutFixture),
	}
	for _, tree := range filepath.SplitList(os.Getenv("SPELUNK_RESOLVE_TREES")) {
		if tree != "" {
			repos[tree] = tree
		}
	}
	for name, repo := range repos {
		t.Run(name, func(t *testing.T) {
			inSQL, inMemory := pgtest.Open(t), pgtest.Open(t)
			ctx := context.Background()
			sql, memory := index.Options{}, index.Options{}
			index.ResolveIn(&sql, "sql")
			index.ResolveIn(&memory, "memory")
			if _, err := index.New(inSQL, hashing()).Index(ctx, repo, sql); err != nil {
				t.Fatal(err)
			}
			if _, err := index.New(inMemory, hashing()).Index(ctx, repo, memory); err != nil {
				t.Fatal(err)
			}
			want, got := edgeLines(t, inSQL), edgeLines(t, inMemory)
			if got != want {
				t.Fatalf("the in-memory pass differs from SQL's (- SQL, + memory):\n%s", diffLines(want, got))
			}
			if n := strings.Count(got, "\n"); n < 10 {
				t.Fatalf("only %d edges compared", n)
			}
		})
	}
}

// edgeLines renders every edge of the database, independent of ids: source
// and target by path, qualified name and line, with its confidence and
// candidates. In Go, not SQL: the snapshot's query looks each candidate up by
// id alone, a scan of the symbols each at a real tree's size.
func edgeLines(t *testing.T, db *pg.DB) string {
	t.Helper()
	ctx := context.Background()
	syms := map[int64]string{}
	rows, err := db.Pool.Query(ctx, `SELECT id, path || ':' || qualified_name || ':' || start_line FROM symbols`)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	var name string
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error { syms[id] = name; return nil }); err != nil {
		t.Fatal(err)
	}
	rows, err = db.Pool.Query(ctx, `SELECT e.source_id, e.kind, e.target_name, e.line, coalesce(e.target_id, 0),
		e.confidence, coalesce(e.candidates, '{}'), coalesce(e.target_path, '') FROM edges e`)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var src, target int64
	var kind, targetName, conf, targetPath string
	var line int32
	var cands []int64
	_, err = pgx.ForEachRow(rows, []any{&src, &kind, &targetName, &line, &target, &conf, &cands, &targetPath}, func() error {
		named := make([]string, len(cands))
		for i, c := range cands {
			named[i] = syms[c]
		}
		lines = append(lines, fmt.Sprintf("%s %s %s:%d -> %s %s %s [%s]", syms[src], kind, targetName, line,
			syms[target], targetPath, conf, strings.Join(named, ",")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// releaseCounter is an embedder that counts the times a run has it let go
// of its decoded vectors.
type releaseCounter struct {
	*embed.Hashing
	releases atomic.Int32
}

func (r *releaseCounter) ReleaseVectors() { r.releases.Add(1) }

// TestFullPassReleasesVectors: a full pass has the embedder let go of its
// decoded table before deciding (the in-memory graph needs the room), and a
// scoped run, which decides a few edges in SQL, leaves it.
func TestFullPassReleasesVectors(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, fieldChainFixture)
	emb := &releaseCounter{Hashing: indextest.Embedder()}
	ctx := context.Background()
	if _, err := index.New(db, emb).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := emb.releases.Load(); n != 1 {
		t.Fatalf("a first index let the embedder's vectors go %d times, want 1", n)
	}
	commitFiles(t, repo, map[string]string{"extra.go": "package gin\n\nfunc extra() int { return 1 }\n"})
	if _, err := index.New(db, emb).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := emb.releases.Load(); n != 1 {
		t.Fatalf("a one-file change let the embedder's vectors go (%d releases in all, want 1)", n)
	}
	if _, err := index.New(db, emb).Index(ctx, repo, index.Options{Full: true}); err != nil {
		t.Fatal(err)
	}
	if n := emb.releases.Load(); n != 2 {
		t.Fatalf("a full run: %d releases in all, want 2", n)
	}
}
