package parse

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cEvalDef is one line of testdata/eval/languages/<lang>.tsv: a definition
// checked by hand against the repository named in the file's header.
type cEvalDef struct {
	name, file string
	start, end int
}

// cEvalList reads a definition list: its repository, commit, clone
// directory name and the definitions.
func cEvalList(t *testing.T, p string) (repo, commit, dir string, defs []cEvalDef) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# repository "); ok {
			w := strings.Fields(rest)
			if len(w) != 5 || w[1] != "commit" || w[3] != "dir" {
				t.Fatalf("%s: bad header %q", p, line)
			}
			repo, commit, dir = w[0], w[2], w[4]
			continue
		}
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "name\t") || strings.TrimSpace(line) == "" {
			continue
		}
		w := strings.Split(line, "\t")
		if len(w) != 4 {
			t.Fatalf("%s: bad line %q", p, line)
		}
		start, err1 := strconv.Atoi(w[2])
		end, err2 := strconv.Atoi(w[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", p, line)
		}
		defs = append(defs, cEvalDef{w[0], w[1], start, end})
	}
	if repo == "" || len(defs) < 20 {
		t.Fatalf("%s: no repository header or fewer than 20 definitions", p)
	}
	return repo, commit, dir, defs
}

// TestCEvalDefinitions parses the files of the hand-checked lists (C on
// redis, C++ on leveldb) and requires 99% of the definitions with their exact
// line ranges. Skipped unless the repository is cloned at its commit under
// SPELUNK_REAL_REPOS (default /work/repos), as for the real-code benchmark.
func TestCEvalDefinitions(t *testing.T) {
	repos := os.Getenv("SPELUNK_REAL_REPOS")
	if repos == "" {
		repos = "/work/repos"
	}
	for _, lang := range []string{"c", "cpp"} {
		t.Run(lang, func(t *testing.T) {
			_, commit, dir, defs := cEvalList(t, filepath.Join("..", "..", "testdata", "eval", "languages", lang+".tsv"))
			root := filepath.Join(repos, dir)
			head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
			if err != nil || strings.TrimSpace(string(head)) != commit {
				t.Skipf("%s is not cloned at %s under %s", dir, commit, repos)
			}
			files := map[string]*File{}
			found := 0
			for _, d := range defs {
				f := files[d.file]
				if f == nil {
					src, err := os.ReadFile(filepath.Join(root, d.file))
					if err != nil {
						t.Fatal(err)
					}
					if f, err = Parse(d.file, src, Options{}); err != nil {
						t.Fatal(err)
					}
					files[d.file] = f
				}
				var seen []string
				ok := false
				for _, s := range f.Symbols {
					if s.QualifiedName == d.name {
						ok = ok || (s.StartLine == d.start && s.EndLine == d.end)
						seen = append(seen, strconv.Itoa(s.StartLine)+"-"+strconv.Itoa(s.EndLine))
					}
				}
				if ok {
					found++
				} else {
					t.Logf("%s %s %d-%d: got %v", d.file, d.name, d.start, d.end, seen)
				}
			}
			t.Logf("%s: %d of %d definitions found with their exact lines", lang, found, len(defs))
			if found*100 < len(defs)*99 {
				t.Errorf("%d of %d found, want 99%%", found, len(defs))
			}
		})
	}
}
