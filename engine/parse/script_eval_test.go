package parse

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The PHP and Ruby checks on real repositories (testdata/eval/languages):
// each .tsv names a repository and commit in its header line and lists
// definitions verified by hand against the source (qualified name, file,
// first and last line, doc comments and attributes included). The
// repository is looked for as $SPELUNK_REAL_REPOS/<dir> (default
// /work/repos/<dir>) at that commit; absent or elsewhere, the test skips, as
// make eval-real does: CI has no copies of other people's code.

var scriptEvals = []struct {
	lang, tsv, fixture string
	exts               []string
}{
	{"php", "php.tsv", "php", []string{".php"}},
	{"ruby", "ruby.tsv", "rb", []string{".rb", ".rake", ".gemspec", ".ru"}},
}

// scriptDef is one line of an evaluation list.
type scriptDef struct {
	qname, file string
	start, end  int
}

// readEvalList reads an evaluation list: the header line
// "# repository <owner/name> commit <sha> dir <dir>", then name, file,
// start and end line separated by tabs.
func readEvalList(t testing.TB, p string) (repo map[string]string, defs []scriptDef) {
	t.Helper()
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	repo = map[string]string{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# "); ok && len(repo) == 0 {
			f := strings.Fields(rest)
			for i := 0; i+1 < len(f); i += 2 {
				repo[f[i]] = f[i+1]
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "name\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("%s: bad line %q", p, line)
		}
		s, err1 := strconv.Atoi(f[2])
		e, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad lines in %q", p, line)
		}
		defs = append(defs, scriptDef{f[0], f[1], s, e})
	}
	if repo["repository"] == "" || repo["commit"] == "" || repo["dir"] == "" {
		t.Fatalf("%s: header must name repository, commit and dir", p)
	}
	return repo, defs
}

// realRepoAt returns the checkout of the list's repository, or skips.
func realRepoAt(t testing.TB, repo map[string]string) string {
	t.Helper()
	dir := filepath.Join(realRepos(), repo["dir"])
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("%s not checked out at %s", repo["repository"], dir)
	}
	if head := strings.TrimSpace(string(out)); !strings.HasPrefix(head, repo["commit"]) {
		t.Skipf("%s is at %s, the list is for %s", dir, head, repo["commit"])
	}
	return dir
}

// TestScriptRealRepositories parses every file of the language in the
// repository (checking the invariants), logs the figures, and checks that
// at least 99% of the listed definitions are found with their exact lines:
//
//	go test ./engine/parse -run TestScriptRealRepositories -v
func TestScriptRealRepositories(t *testing.T) {
	for _, c := range scriptEvals {
		t.Run(c.lang, func(t *testing.T) {
			repo, defs := readEvalList(t, filepath.Join("..", "..", "testdata", "eval", "languages", c.tsv))
			dir := realRepoAt(t, repo)
			files, bytes, ndefs, partial := 0, 0, 0, 0
			var cpu time.Duration // in Parse only
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || (d.IsDir() && (d.Name() == ".git" || d.Name() == "vendor")) {
					return filepath.SkipDir
				}
				if d.IsDir() || Language(p) != c.lang {
					return nil
				}
				src, err := os.ReadFile(p)
				if err != nil {
					return nil
				}
				c0 := cpuTime()
				f, err := Parse(p, src, Options{})
				cpu += cpuTime() - c0
				if err != nil {
					t.Errorf("%s: %v", p, err)
					return nil
				}
				checkInvariants(t, f, src)
				files, bytes = files+1, bytes+len(src)
				if f.Partial {
					partial++
				}
				for _, s := range f.Symbols {
					if s.Kind != KindModule && s.Kind != KindBlock && s.Kind != KindPart {
						ndefs++
					}
				}
				return nil
			})
			t.Logf("%s@%s: %d files, %.1f MB, %d definitions, %d partial, %.1f MB/cpu-s",
				repo["repository"], repo["commit"], files, float64(bytes)/1e6, ndefs, partial, float64(bytes)/1e6/cpu.Seconds())
			found := 0
			parsed := map[string]*File{}
			for _, w := range defs {
				if ok, got := findEvalDef(parsed, filepath.Join(dir, w.file), w); ok {
					found++
				} else {
					t.Logf("missing %s %s:%d-%d (%s)", w.qname, w.file, w.start, w.end, got)
				}
			}
			t.Logf("%d of %d listed definitions found with exact lines", found, len(defs))
			if len(defs) < 20 || float64(found) < 0.99*float64(len(defs)) {
				t.Errorf("found %d of %d listed definitions, want >= 99%% of at least 20", found, len(defs))
			}
		})
	}
}

// findEvalDef reports whether the file has a symbol of that qualified name
// and lines; otherwise it says what it has of that name.
func findEvalDef(parsed map[string]*File, p string, w scriptDef) (bool, string) {
	f := parsed[p]
	if f == nil {
		src, err := os.ReadFile(p)
		if err != nil {
			return false, err.Error()
		}
		if f, err = Parse(p, src, Options{}); err != nil {
			return false, err.Error()
		}
		parsed[p] = f
	}
	var seen []string
	for _, s := range f.Symbols {
		if s.QualifiedName == w.qname {
			if s.StartLine == w.start && s.EndLine == w.end {
				return true, ""
			}
			seen = append(seen, strconv.Itoa(s.StartLine)+"-"+strconv.Itoa(s.EndLine))
		}
	}
	if len(seen) == 0 {
		return false, "no such name"
	}
	return false, "found at " + strings.Join(seen, ", ")
}

// BenchmarkParseScript measures PHP and Ruby parse+chunk throughput on the
// evaluation repositories when checked out, else on the fixture's files.
func BenchmarkParseScript(b *testing.B) {
	for _, c := range scriptEvals {
		b.Run(c.lang, func(b *testing.B) {
			root := filepath.Join(fixtureDir, c.fixture)
			repo, _ := readEvalList(b, filepath.Join("..", "..", "testdata", "eval", "languages", c.tsv))
			if d := filepath.Join(realRepos(), repo["dir"]); dirExists(d) {
				root = d
			}
			var paths []string
			var srcs [][]byte
			total := 0
			for _, ext := range c.exts {
				p, s, n := corpusAll(root, ext, 4<<20-total)
				paths, srcs, total = append(paths, p...), append(srcs, s...), total+n
			}
			if total == 0 {
				b.Skip("no files")
			}
			benchCorpus(b, paths, srcs, total)
		})
	}
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// corpusAll is corpus without its skips (a repository's tests are code too)
// and without failing when there is nothing.
func corpusAll(root, ext string, limit int) (paths []string, srcs [][]byte, total int) {
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || total >= limit {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ext) {
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			paths, srcs, total = append(paths, p), append(srcs, b), total+len(b)
		}
		return nil
	})
	return paths, srcs, total
}
