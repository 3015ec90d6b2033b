package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// A method four classes define, one of them the base another inherits it
// from: a name that matches several acts on none and lists them; Type.member
// follows the bases and says where (issue 37).
func TestAmbiguousAndInheritedNames(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	root := t.TempDir()
	for p, s := range map[string]string{
		"web/app.py":        "class Base:\n    def route(self):\n        return 1\n\n\nclass Server(Base):\n    def start(self):\n        return self.route()\n",
		"web/bp.py":         "class Blueprint:\n    def route(self):\n        return 2\n\n\nclass State:\n    def route(self):\n        return 3\n",
		"web/alt.py":        "class Other:\n    def route(self):\n        return 4\n",
		"tests/test_app.py": "from web.app import Server\n\n\ndef test_route():\n    s = Server()\n    s.route()\n",
	} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indextest.Git(t, root, "init", "-q")
	indextest.Git(t, root, "add", "-A")
	indextest.Git(t, root, "commit", "-q", "-m", "fixture")
	emb := indextest.Embedder()
	sum, err := index.New(db, emb).Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, mcpserver.New(mcpserver.Config{DB: db, Root: root, RepoID: sum.RepositoryID, Tenant: pg.DefaultTenant, Embedder: emb}))

	read := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"name": "route"})
	if read.Content != "" || read.Matches != 4 || len(read.Candidates) != 4 || !strings.Contains(read.Note, "none was chosen") {
		t.Errorf("read_symbol route: content %q, matches %d, %d candidates, note %q: want none read and 4 listed",
			read.Content, read.Matches, len(read.Candidates), read.Note)
	}
	walk := call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"name": "route"})
	if len(walk.Files) != 0 || walk.Matches != 4 || len(walk.Candidates) != 4 {
		t.Errorf("find_callers route: %d files, matches %d, %d candidates: want none walked and 4 listed",
			len(walk.Files), walk.Matches, len(walk.Candidates))
	}
	read = call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"name": "Server.route"})
	if read.Symbol.QualifiedName != "Base.route" || !strings.Contains(read.Note, "defined in Base") {
		t.Errorf("read_symbol Server.route: %s, note %q: want Base.route, defined in Base", read.Symbol.QualifiedName, read.Note)
	}
	for tests, want := range map[string]string{"include": "Server.start test_route", "exclude": "Server.start", "only": "test_route"} {
		walk = call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"name": "Server.route", "tests": tests})
		var got []string
		for _, n := range walk.AllNodes() {
			got = append(got, n.QualifiedName)
		}
		if walk.Symbol.QualifiedName != "Base.route" || strings.Join(got, " ") != want {
			t.Errorf("find_callers Server.route tests=%q: %s %v, want Base.route's callers %s", tests, walk.Symbol.QualifiedName, got, want)
		}
	}
	if msg := callErr(t, cs, "find_callers", map[string]any{"name": "Server.route", "tests": "some"}); !strings.Contains(msg, "tests") {
		t.Errorf("tests=some: %q", msg)
	}
}
