package index_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// gitRepo commits files (path -> content) to a new repository.
func gitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	git(t, dir, "config", "user.email", "t@example.com")
	git(t, dir, "config", "user.name", "t")
	commitFiles(t, dir, files)
	return dir
}

func commitFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, full, s)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "c")
}

// callEdge is a call edge as the graph reports it, ids aside.
type callEdge struct {
	source, target, confidence string
	candidates                 []string
}

// callEdges lists the call edges from source symbols (qualified names) to name.
func callEdges(t testing.TB, db *pg.DB, path, source, name string) []callEdge {
	t.Helper()
	return edgesOf(t, db, "calls", path, source, name)
}

// edgesOf lists the edges of kind from source symbols (qualified names) to name.
func edgesOf(t testing.TB, db *pg.DB, kind, path, source, name string) []callEdge {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `
		SELECT s.qualified_name, coalesce(t.qualified_name, ''), e.confidence,
		       coalesce((SELECT array_agg(c.qualified_name ORDER BY u.ord) FROM unnest(e.candidates) WITH ORDINALITY u(id, ord)
		                 JOIN symbols c ON c.id = u.id), '{}')
		FROM edges e JOIN files f ON f.id = e.file_id JOIN symbols s ON s.id = e.source_id
		LEFT JOIN symbols t ON t.id = e.target_id
		WHERE e.kind = $4 AND f.path = $1 AND s.qualified_name = $2 AND e.target_name = $3
		ORDER BY e.line`, path, source, name, kind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []callEdge
	for rows.Next() {
		var e callEdge
		if err := rows.Scan(&e.source, &e.target, &e.confidence, &e.candidates); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

var confidenceFixture = map[string]string{
	"go/a/a.go": `package a

type A struct{}

func (A) Close() error { return nil }

type B struct{}

func (B) Close() error { return nil }

func NewB() *B { return &B{} }

// Untyped: a map value behind interface{}, asserted to an anonymous interface.
func Untyped(m map[string]interface{}) {
	m["x"].(interface{ Close() error }).Close()
}

func Typed(b B) {
	b.Close()
	c := NewB()
	c.Close()
}

type Outer struct{ B }

func Promoted(o Outer) { o.Close() }

type Bytes struct{}

// External: the type is known and has no Close: no guess of A's or B's.
func NoSuchMethod(x Bytes) { x.Close() }

type Closer interface{ Close() error }

// Other's Close has another signature: it does not implement Closer.
type Other struct{}

func (Other) Close(force bool) error { return nil }

// Through an interface: the types implementing it, not every Close.
func ViaIface(c Closer) { c.Close() }
`,
	"py/shapes.py": `class A:
    def close(self):
        pass

class B:
    def __init__(self):
        pass

    def close(self):
        pass

class C(B):
    def open(self):
        self.close()

def untyped(x):
    x.close()

def typed(b: B):
    b.close()
    n = B()
    n.close()
`,
	"js/shapes.js": `class A { close() {} }
class B { close() {} }
class C extends B { open() { this.close(); } }
function untyped(x) { x.close(); }
function typed() { const b = new B(); b.close(); }
`,
	"ts/shapes.ts": `class A { close(): void {} }
class B { close(): void {} }
function untyped(x: any) { x.close(); }
function typed(b: B) { b.close(); }
`,
}

// TestCallConfidence: an untyped qualifier gives an ambiguous edge listing both
// types' methods, never an exact one; a typed call exactly one exact edge.
func TestCallConfidence(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, confidenceFixture)
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, source, name string
		want               []callEdge
	}{
		{"go/a/a.go", "a.Untyped", "Close", []callEdge{{"a.Untyped", "A.Close", "ambiguous", []string{"A.Close", "B.Close", "Other.Close"}}}},
		{"go/a/a.go", "a.ViaIface", "Close", []callEdge{{"a.ViaIface", "A.Close", "ambiguous", []string{"A.Close", "B.Close"}}}},
		{"go/a/a.go", "a.Typed", "Close", []callEdge{
			{"a.Typed", "B.Close", "exact", []string{}}, {"a.Typed", "B.Close", "exact", []string{}}}},
		{"go/a/a.go", "a.Promoted", "Close", []callEdge{{"a.Promoted", "B.Close", "exact", []string{}}}},
		{"go/a/a.go", "a.NoSuchMethod", "Close", []callEdge{{"a.NoSuchMethod", "", "unresolved", []string{}}}},
		{"py/shapes.py", "untyped", "close", []callEdge{{"untyped", "A.close", "ambiguous", []string{"A.close", "B.close"}}}},
		{"py/shapes.py", "typed", "close", []callEdge{
			{"typed", "B.close", "exact", []string{}}, {"typed", "B.close", "exact", []string{}}}},
		{"py/shapes.py", "typed", "B", []callEdge{{"typed", "B.__init__", "exact", []string{}}}},
		{"py/shapes.py", "C.open", "close", []callEdge{{"C.open", "B.close", "inferred", []string{}}}},
		{"js/shapes.js", "untyped", "close", []callEdge{{"untyped", "A.close", "ambiguous", []string{"A.close", "B.close"}}}},
		{"js/shapes.js", "typed", "close", []callEdge{{"typed", "B.close", "exact", []string{}}}},
		{"js/shapes.js", "C.open", "close", []callEdge{{"C.open", "B.close", "inferred", []string{}}}},
		{"ts/shapes.ts", "untyped", "close", []callEdge{{"untyped", "A.close", "ambiguous", []string{"A.close", "B.close"}}}},
		{"ts/shapes.ts", "typed", "close", []callEdge{{"typed", "B.close", "exact", []string{}}}},
	}
	for _, c := range cases {
		got := callEdges(t, db, c.path, c.source, c.name)
		if g, w := render(got), render(c.want); g != w {
			t.Errorf("%s %s -> %s:\n got %s\nwant %s", c.path, c.source, c.name, g, w)
		}
	}
}

func render(es []callEdge) string {
	var out []string
	for _, e := range es {
		out = append(out, e.source+"->"+e.target+" "+e.confidence+" ["+strings.Join(e.candidates, ",")+"]")
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// TestGraphCoverage: the counts add up per language, and calls into the
// standard library and builtins count as external.
func TestGraphCoverage(t *testing.T) {
	db := pgtest.Open(t)
	files := map[string]string{
		"ext/ext.go": "package ext\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)\n\nfunc F(xs []int) {\n\tfmt.Println(len(xs))\n\tvar b strings.Builder\n\tb.WriteString(\"x\")\n\tunknown.Thing()\n\tf := os.Open(\"x\")\n\tf.Close()\n}\n",
		"ext/ext.py": "import os\n\ndef g(p):\n    print(len(p))\n    os.path.join(p)\n",
	}
	for p, s := range confidenceFixture {
		files[p] = s
	}
	repo := gitRepo(t, files)
	ctx := context.Background()
	if _, err := index.New(db, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	var repoID int64
	if err := db.Pool.QueryRow(ctx, `SELECT id FROM repositories`).Scan(&repoID); err != nil {
		t.Fatal(err)
	}
	cov, err := index.GraphCoverage(ctx, db, repoID)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]index.LangCoverage{}
	for _, c := range cov {
		if c.Exact+c.Inferred+c.Ambiguous+c.Unresolved != c.Calls || c.External > c.Unresolved {
			t.Errorf("%s: counts do not add up: %+v", c.Language, c)
		}
		by[c.Language] = c
	}
	// Go: Println, Open, WriteString and f.Close (f from os.Open) external, not a
	// guess of A.Close or B.Close; unknown.Thing and x.Close (Bytes) not. (The
	// parser records no calls to builtins such as len and print.)
	if g := by["go"]; g.External != 4 || g.Unresolved != 6 || g.Ambiguous != 2 || g.Exact < 4 {
		t.Errorf("go: %+v", g)
	}
	if p := by["python"]; p.External != 1 || p.Ambiguous != 1 {
		t.Errorf("python: %+v", p)
	}
	if js := by["javascript"]; js.Calls == 0 || js.Ambiguous != 1 {
		t.Errorf("javascript: %+v", js)
	}
}

// A name defined once in the repository resolves only within its language
// family: a Python call never lands on the JavaScript function of that name,
// while JavaScript and TypeScript resolve to each other.
func TestUniqueNameStaysInItsLanguage(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, map[string]string{
		"web/headers.js": "function header(name) { return name }\nmodule.exports = { header }\n",
		"web/use.ts":     "export function useIt(req: any) { return req.header('x') }\n",
		"tax/compute.py": "def compute_tax(req):\n    return req.header('x')\n",
	})
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	py := callEdges(t, db, "tax/compute.py", "compute_tax", "header")
	if len(py) != 1 || py[0].target != "" {
		t.Fatalf("the Python call resolved into JavaScript: %+v", py)
	}
	ts := callEdges(t, db, "web/use.ts", "useIt", "header")
	if len(ts) != 1 || ts[0].target != "header" {
		t.Fatalf("the TypeScript call should find the JavaScript function: %+v", ts)
	}
}

// `import X from './m'` binds X to m's default export: X.from() is m's method,
// not one of every `from` in the repository.
func TestDefaultImportBindsItsModule(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, map[string]string{
		"lib/Headers.js": "class AxiosHeaders {\n  static from(thing) { return new AxiosHeaders(thing) }\n}\nexport default AxiosHeaders;\n",
		"lib/Error.js":   "class AxiosError {\n  static from(err) { return new AxiosError(err) }\n}\nexport default AxiosError;\n",
		"lib/dispatch.js": "import AxiosHeaders from './Headers.js';\n\nexport default function dispatch(config) {\n" +
			"  return AxiosHeaders.from(config.headers);\n}\n",
	})
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	got := callEdges(t, db, "lib/dispatch.js", "dispatch", "from")
	if len(got) != 1 || got[0].target != "AxiosHeaders.from" || got[0].confidence == "ambiguous" {
		t.Fatalf("AxiosHeaders.from through the default import: %+v", got)
	}
}

// An untyped method call's candidates are the definitions written by hand:
// not their copies in declaration files or build output.
func TestUntypedCandidatesSkipCopies(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, map[string]string{
		"lib/A.js":        "export class A {\n  from(x) { return x }\n}\n",
		"lib/B.js":        "export class B {\n  from(x) { return x }\n}\n",
		"dist/bundle.js":  "class A {\n  from(x) { return x }\n}\n",
		"index.d.ts":      "export declare class A {\n  from(x: unknown): A\n}\n",
		"lib/use.js":      "export function use(h, x) {\n  return h.from(x)\n}\n",
		"dist/use.min.js": "function use2(h, x) {\n  return h.from(x)\n}\n",
	})
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	got := callEdges(t, db, "lib/use.js", "use", "from")
	if len(got) != 1 || got[0].confidence != "ambiguous" || strings.Join(got[0].candidates, ",") != "A.from,B.from" {
		t.Fatalf("h.from(x): %+v; want ambiguous between A.from and B.from only", got)
	}
}

// Code outside tests is never resolved into a test file: a Go package cannot
// see its _test.go files, and elsewhere production code does not import tests.
func TestProductionCallsSkipTestDefinitions(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"cmd.go":        "package m\n\ntype Command struct{ Commands []*Command }\n\nfunc (c *Command) Names() []string { return nil }\n",
		"walk.go":       "package m\n\n// Walk calls through a func value's result: its type is not known here.\nfunc Walk(get func() interface{ Names() []string }) {\n\tch := get()\n\tch.Names()\n}\n",
		"flag.go":       "package m\n\ntype Flag struct{}\n\nfunc (f *Flag) Names() []string { return nil }\n",
		"cmd_test.go":   "package m\n\ntype fakeFlag struct{}\n\nfunc (f *fakeFlag) Names() []string { return nil }\n",
		"lib/a.js":      "export function helper() { return 1 }\n",
		"lib/use.js":    "export function use(x) { return x.onlyInTests() }\n",
		"lib/a.test.js": "export function onlyInTests() { return 2 }\n",
	})
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	walk := callEdges(t, db, "walk.go", "m.Walk", "Names")
	if len(walk) != 1 || walk[0].confidence != "ambiguous" || strings.Join(walk[0].candidates, ",") != "Command.Names,Flag.Names" {
		t.Fatalf("Walk's untyped ch.Names(): %+v; want ambiguous between Command.Names and Flag.Names, never the _test.go one", walk)
	}
	if js := callEdges(t, db, "lib/use.js", "use", "onlyInTests"); len(js) != 1 || js[0].target != "" {
		t.Fatalf("use's call resolved into a test file: %+v", js)
	}
}
