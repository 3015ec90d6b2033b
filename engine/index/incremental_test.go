package index_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// fieldChainFixture is gin's shape (issue 36, 1): a handler in one file reads
// c.Request.URL.Path, where Context (another file) holds an *http.Request: an
// external type, so the read has no target, though a struct of the repository
// (RouteInfo) has a field Path. context.go has unresolved edges of its own, as
// any real file does.
var fieldChainFixture = map[string]string{
	"go.mod": "module example.com/gin\n\ngo 1.22\n",
	"context.go": `package gin

import (
	"fmt"
	"net/http"
)

// Context carries a request.
type Context struct {
	Request *http.Request
}

// String describes the context.
func (c *Context) String() string { return fmt.Sprint(c.Request.Method) }
`,
	"routes.go": `package gin

// RouteInfo describes a route.
type RouteInfo struct {
	Path   string
	Method string
}
`,
	"gin.go": `package gin

// Engine serves requests.
type Engine struct{}

func (e *Engine) handleHTTPRequest(c *Context) string {
	return c.Request.URL.Path
}
`,
}

// TestOneFileRunResolvesAsClean: a run over one saved file (index --file, the
// watcher, MCP index_file) decides its edges as a clean index does. It
// resolved a field chain through another file's external type by name only
// (c.Request.URL.Path read RouteInfo.Path, inferred) because the imports of
// the file declaring Request were not looked at in a scoped run.
func TestOneFileRunResolvesAsClean(t *testing.T) {
	repo := gitRepo(t, fieldChainFixture)
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	sum, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"// x\n", "// y\n"} {
		appendFile(t, filepath.Join(repo, "gin.go"), text)
		if _, err := ix.Index(ctx, repo, index.Options{Paths: []string{"gin.go"}}); err != nil {
			t.Fatal(err)
		}
		if got := edgesOf(t, db, "reads", "gin.go", "Engine.handleHTTPRequest", "Path"); render(got) != "Engine.handleHTTPRequest-> unresolved []" {
			t.Errorf("save %d: c.Request.URL.Path reads %s", i, render(got))
		}
		assertSameAsClean(t, db, sum.RepositoryID, repo, index.Options{WorkingTree: true})
	}
}

// assertSameAsClean compares every code row of repository repoID in db with
// a clean index of root (opts) into a database of its own.
func assertSameAsClean(t testing.TB, db *pg.DB, repoID int64, root string, opts index.Options) {
	t.Helper()
	clean := pgtest.Open(t)
	sum, err := index.New(clean, hashing()).Index(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := indextest.DiffRows(indextest.Rows(t, db, repoID), indextest.Rows(t, clean, sum.RepositoryID), 30); d != "" {
		t.Fatalf("incremental index differs from a clean one: %s", d)
	}
}

// TestUnreadableBlobIsRetried: a file whose blob is missing when a run reads
// it (a git gc racing a reset) is stored as skipped, and the next run, with
// the blob back, indexes it: it was recorded with its blob id and passed for
// current for good (issue 36, 3).
func TestUnreadableBlobIsRetried(t *testing.T) {
	repo := gitRepo(t, fieldChainFixture)
	blob := git(t, repo, "rev-parse", "HEAD:routes.go")
	object := filepath.Join(repo, ".git", "objects", blob[:2], blob[2:])
	aside := object + ".aside"
	if err := os.Rename(object, aside); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	sum, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesSkipped != 1 {
		t.Fatalf("with the blob missing: %+v, want one file skipped", sum)
	}
	rec, err := db.RepositoryByRoot(ctx, sum.Repository)
	if err != nil {
		t.Fatal(err)
	}
	st, err := index.RepoStatus(ctx, db, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Unreadable) != 1 || st.Unreadable[0].Path != "routes.go" || len(st.Unreadable[0].Notes) == 0 {
		t.Errorf("status lists the unreadable files %+v, want routes.go with why", st.Unreadable)
	}
	if err := os.Rename(aside, object); err != nil {
		t.Fatal(err)
	}
	again, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.FilesIndexed != 1 {
		t.Errorf("with the blob back: %+v, want the file indexed", again)
	}
	assertSameAsClean(t, db, sum.RepositoryID, repo, index.Options{})
}

// TestNonUTF8NameIsSkipped: a file whose name is not valid UTF-8, committed or
// only on disk, is skipped with a note naming it escaped, and the rest is
// indexed: PostgreSQL refused the name and every run failed (issue 36, 6).
func TestNonUTF8NameIsSkipped(t *testing.T) {
	repo := gitRepo(t, fieldChainFixture)
	bad := "caf\xe9.py"
	writeFile(t, filepath.Join(repo, bad), "def menu():\n    pass\n")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "a latin-1 name")
	writeFile(t, filepath.Join(repo, "th\xe9.py"), "def brew():\n    pass\n")
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	for _, opts := range []index.Options{{}, {WorkingTree: true}, {Paths: []string{"th\xe9.py", "gin.go"}}} {
		sum, err := ix.Index(ctx, repo, opts)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if !strings.Contains(strings.Join(sum.Notes, "\n"), `"caf\xe9.py"`) && len(opts.Paths) == 0 {
			t.Errorf("%+v: notes %q, want the bad name escaped", opts, sum.Notes)
		}
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM files WHERE path = 'gin.go'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("gin.go rows: %d %v", n, err)
	}
}
