package parse

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Java and C# measurements run on public repositories cloned under
// $SPELUNK_REAL_REPOS (default /work/repos), as testdata/eval/real does; none
// of their code is committed. Absent (or at another commit), the tests skip:
// CI has no clones.

// realRepo is one repository of testdata/eval/languages/<lang>.tsv.
type realRepo struct {
	lang, repository, commit, dir, ext string
	defs                               []realDef
}

type realDef struct {
	qname, file string
	start, end  int
}

// loadRealRepo reads the hand-checked list: a header line
// "# repository OWNER/NAME commit SHA dir NAME ext .EXT", then one
// "qualified-name<TAB>file<TAB>start<TAB>end" line per definition.
func loadRealRepo(t testing.TB, lang string) realRepo {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "eval", "languages", lang+".tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := realRepo{lang: lang}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# repository "); ok {
			fs := strings.Fields(rest)
			if len(fs) != 7 || fs[1] != "commit" || fs[3] != "dir" || fs[5] != "ext" {
				t.Fatalf("bad header %q", line)
			}
			r.repository, r.commit, r.dir, r.ext = fs[0], fs[2], fs[4], fs[6]
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 {
			t.Fatalf("bad line %q", line)
		}
		s, err1 := strconv.Atoi(cols[2])
		e, err2 := strconv.Atoi(cols[3])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad lines in %q", line)
		}
		r.defs = append(r.defs, realDef{cols[0], cols[1], s, e})
	}
	if r.repository == "" || len(r.defs) < 20 {
		t.Fatalf("%s.tsv: no header or fewer than 20 definitions", lang)
	}
	return r
}

// root returns the clone's directory, skipping the test when it is absent or
// at another commit than the list was checked against.
func (r realRepo) root(t testing.TB) string {
	t.Helper()
	base := os.Getenv("SPELUNK_REAL_REPOS")
	if base == "" {
		base = "/work/repos"
	}
	dir := filepath.Join(base, r.dir)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("%s not cloned at %s (git clone https://github.com/%s %s && git -C %s checkout %s)",
			r.repository, dir, r.repository, dir, dir, r.commit)
	}
	if head := strings.TrimSpace(string(out)); head != r.commit {
		t.Skipf("%s is at %s, the list is for %s", dir, head, r.commit)
	}
	return dir
}

// TestRealDefinitions checks the hand-made lists of definitions against the
// parse of their repository: at least 99% found with exact line ranges.
func TestRealDefinitions(t *testing.T) {
	for _, lang := range []string{"java", "csharp"} {
		t.Run(lang, func(t *testing.T) {
			r := loadRealRepo(t, lang)
			root := r.root(t)
			files := map[string]*File{}
			found := 0
			for _, d := range r.defs {
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
				var near []string
				ok := false
				for _, s := range f.Symbols {
					if s.QualifiedName == d.qname {
						ok = ok || (s.StartLine == d.start && s.EndLine == d.end)
						near = append(near, fmt.Sprintf("%d-%d", s.StartLine, s.EndLine))
					}
				}
				if ok {
					found++
				} else {
					t.Logf("%s %s %d-%d: not found (same name at %v)", d.file, d.qname, d.start, d.end, near)
				}
			}
			t.Logf("%s: %d of %d definitions found with exact ranges", r.repository, found, len(r.defs))
			if found*100 < len(r.defs)*99 {
				t.Errorf("%d of %d found: under 99%%", found, len(r.defs))
			}
		})
	}
}

// TestRealWorldJVM parses every file of the measured repositories: the
// invariants hold, and it logs files, definitions, partial files and the
// parse rate.
func TestRealWorldJVM(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, lang := range []string{"java", "csharp"} {
		t.Run(lang, func(t *testing.T) {
			r := loadRealRepo(t, lang)
			root := r.root(t)
			out, err := exec.Command("git", "-C", root, "ls-files", "*"+r.ext).Output()
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			var srcs [][]byte
			total := 0
			for _, p := range strings.Fields(string(out)) {
				if src, err := os.ReadFile(filepath.Join(root, p)); err == nil {
					paths, srcs, total = append(paths, p), append(srcs, src), total+len(src)
				}
			}
			kinds := map[Kind]int{}
			partial := 0
			start, cpu0 := time.Now(), cpuTime()
			for i, src := range srcs {
				f, err := Parse(paths[i], src, Options{})
				if err != nil {
					t.Fatalf("%s: %v", paths[i], err)
				}
				checkInvariants(t, f, src)
				if f.Partial {
					partial++
					t.Logf("partial: %s %v", paths[i], f.Notes)
				}
				for _, s := range f.Symbols {
					kinds[s.Kind]++
				}
			}
			wall, cpu := time.Since(start), cpuTime()-cpu0
			t.Logf("%s: %d files, %.1f MB, %d partial, %.1f MB/s (%.1f MB/cpu-s); chunks by kind: %v",
				r.repository, len(srcs), float64(total)/1e6, partial, float64(total)/1e6/wall.Seconds(),
				float64(total)/1e6/cpu.Seconds(), kinds)
		})
	}
}

// BenchmarkParseJVM measures parse+chunk throughput on 4 MB of each measured
// repository (BenchmarkParse's method), when it is cloned:
//
//	go test ./engine/parse -run '^$' -bench ParseJVM
func BenchmarkParseJVM(b *testing.B) {
	for _, lang := range []string{"java", "csharp"} {
		b.Run(lang, func(b *testing.B) {
			r := loadRealRepo(b, lang)
			paths, srcs, total := corpus(b, r.root(b), r.ext, 4<<20)
			benchCorpus(b, paths, srcs, total)
		})
	}
}
