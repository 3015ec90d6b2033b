package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// routingFixture: a method defined by four classes (one of them a base the
// others inherit through), a field declared by a base only, and callers of
// each in code and tests (issue 37: several definitions, inheritance).
var routingFixture = map[string]string{
	"src/web/scaffold.py": `class Scaffold:
    def add_rule(self, rule):
        return rule
`,
	"src/web/app.py": `from .scaffold import Scaffold


class Base(Scaffold):
    secret = None

    def add_rule(self, rule):
        return rule


class Server(Base):
    def start(self):
        self.add_rule("/")
        return self.secret
`,
	"src/web/blueprint.py": `class Blueprint:
    def add_rule(self, rule):
        return rule


class SetupState:
    def add_rule(self, rule):
        return rule
`,
	"tests/test_app.py": `from web.app import Server


def test_start():
    s = Server()
    s.add_rule("/x")
`,
}

// indexedRepo commits files to a new repository and indexes it through the CLI.
func indexedRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo := t.TempDir()
	for p, s := range files {
		full := filepath.Join(repo, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	indextest.Git(t, repo, "init", "-q")
	indextest.Git(t, repo, "add", "-A")
	indextest.Git(t, repo, "commit", "-q", "-m", "fixture")
	if code, _, errOut := spelunk(t, "index", repo); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	return repo
}

func TestCLISeveralDefinitions(t *testing.T) {
	repo := indexedRepo(t, routingFixture)
	for _, cmd := range []string{"callers", "show", "callees"} {
		code, out, errOut := spelunk(t, "--repo", repo, cmd, "add_rule")
		if code != 2 || out != "" {
			t.Errorf("%s add_rule: exit %d, stdout %q: want a usage error and no answer", cmd, code, out)
		}
		for _, want := range []string{`4 definitions match "add_rule"`, "1  method Base.add_rule  src/web/app.py:7",
			"4  method Scaffold.add_rule  src/web/scaffold.py:2", "--pick N"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s add_rule: stderr lacks %q:\n%s", cmd, want, errOut)
			}
		}
	}
	code, out, errOut := spelunk(t, "--repo", repo, "show", "add_rule", "--pick", "4")
	if code != 0 || !strings.HasPrefix(out, "method Scaffold.add_rule  src/web/scaffold.py:2-3") {
		t.Errorf("show add_rule --pick 4: %d %q %s", code, out, errOut)
	}
	if code, _, errOut := spelunk(t, "--repo", repo, "show", "add_rule", "--pick", "5"); code != 2 || !strings.Contains(errOut, "has 4 definitions") {
		t.Errorf("--pick 5 of 4: %d %s", code, errOut)
	}
	// A qualified name picks one: no list, no note.
	code, out, errOut = spelunk(t, "--repo", repo, "callers", "Blueprint.add_rule")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "callers of Blueprint.add_rule") {
		t.Errorf("callers Blueprint.add_rule: %d %q %q", code, out, errOut)
	}
}

func TestCLIInheritedMembers(t *testing.T) {
	repo := indexedRepo(t, routingFixture)
	code, out, errOut := spelunk(t, "--repo", repo, "show", "Server.add_rule")
	if code != 0 || !strings.HasPrefix(out, "method Base.add_rule  src/web/app.py:7-8") {
		t.Errorf("show Server.add_rule: %d %q %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Server.add_rule → defined in Base (src/web/app.py:7)") {
		t.Errorf("show Server.add_rule does not say where it is defined: %q", errOut)
	}
	code, out, errOut = spelunk(t, "--repo", repo, "readers", "Server.secret")
	if code != 0 || !strings.HasPrefix(out, "readers of Base.secret") || !strings.Contains(out, "Server.start") {
		t.Errorf("readers Server.secret: %d %q %s", code, out, errOut)
	}
	code, out, errOut = spelunk(t, "--repo", repo, "callers", "Server.add_rule")
	if code != 0 || !strings.Contains(out, "Server.start") {
		t.Errorf("callers Server.add_rule: %d %q %s", code, out, errOut)
	}
}

func TestCLIWalkTests(t *testing.T) {
	repo := indexedRepo(t, routingFixture)
	for _, c := range []struct {
		tests      string
		want, lack []string
	}{
		{"include", []string{"Server.start", "test_start"}, nil},
		{"exclude", []string{"Server.start"}, []string{"test_start"}},
		{"only", []string{"test_start"}, []string{"Server.start"}},
	} {
		code, out, errOut := spelunk(t, "--repo", repo, "callers", "Base.add_rule", "--tests", c.tests)
		if code != 0 {
			t.Fatalf("--tests %s: %d %s", c.tests, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("--tests %s lacks %s:\n%s", c.tests, w, out)
			}
		}
		for _, l := range c.lack {
			if strings.Contains(out, l) {
				t.Errorf("--tests %s lists %s:\n%s", c.tests, l, out)
			}
		}
	}
	if i, j := strings.Index(mustOut(t, repo, "callers", "Base.add_rule"), "Server.start"),
		strings.Index(mustOut(t, repo, "callers", "Base.add_rule"), "test_start"); i < 0 || j < i {
		t.Errorf("tests are not listed after the rest")
	}
	out := mustOut(t, repo, "callers", "Base.add_rule", "--limit", "1")
	if !strings.Contains(out, "(1 more: raise --limit)") {
		t.Errorf("--limit 1 does not say what it cut:\n%s", out)
	}
	if code, _, _ := spelunk(t, "--repo", repo, "callers", "Base.add_rule", "--tests", "some"); code != 2 {
		t.Errorf("--tests some: exit %d, want 2", code)
	}
}

func mustOut(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := spelunk(t, append([]string{"--repo"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: %d %s", args, code, errOut)
	}
	return out
}
