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
)

// The hand-checked definition lists of testdata/eval/languages (format in its
// README.md): each names a public repository and commit, never committed
// here, and the definitions found in it by reading the source. The check on
// the clones is TestRealRepositories (realrepos_test.go, -tags realrepos);
// this file reads the lists, and make test checks that they are well formed.

const evalListDir = "../../testdata/eval/languages"

// evalList is one <language>.tsv.
type evalList struct {
	lang, repository, commit, dir string
	defs                          []evalDef
}

// evalDef is one hand-checked definition; kind is "" when not checked.
type evalDef struct {
	name, file string
	start, end int
	kind       Kind
}

// readEvalLists reads every list of evalListDir, by language.
func readEvalLists(tb testing.TB) []evalList {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(evalListDir, "*.tsv"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no lists under %s (%v)", evalListDir, err)
	}
	var out []evalList
	for _, p := range paths {
		l, err := readEvalList(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// readEvalList parses one list; its language is the file's name.
func readEvalList(p string) (evalList, error) {
	l := evalList{lang: strings.TrimSuffix(filepath.Base(p), ".tsv")}
	fh, err := os.Open(p)
	if err != nil {
		return l, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case n == 1:
			if err := l.readHeader(line); err != nil {
				return l, fmt.Errorf("%s:1: %w", p, err)
			}
		case line == "" || strings.HasPrefix(line, "#") || line == "name\tfile\tstart\tend\tkind":
		default:
			d, err := parseEvalDef(line)
			if err != nil {
				return l, fmt.Errorf("%s:%d: %w", p, n, err)
			}
			l.defs = append(l.defs, d)
		}
	}
	return l, sc.Err()
}

// readHeader reads "# repository OWNER/NAME commit SHA dir DIR".
func (l *evalList) readHeader(line string) error {
	w := strings.Fields(line)
	if len(w) != 7 || w[0] != "#" || w[1] != "repository" || w[3] != "commit" || w[5] != "dir" {
		return fmt.Errorf("want \"# repository OWNER/NAME commit SHA dir DIR\", got %q", line)
	}
	l.repository, l.commit, l.dir = w[2], w[4], w[6]
	return nil
}

// parseEvalDef reads "name<TAB>file<TAB>start<TAB>end[<TAB>kind]".
func parseEvalDef(line string) (evalDef, error) {
	c := strings.Split(line, "\t")
	if len(c) != 4 && len(c) != 5 {
		return evalDef{}, fmt.Errorf("want 4 or 5 tab-separated columns, got %q", line)
	}
	s, err1 := strconv.Atoi(c[2])
	e, err2 := strconv.Atoi(c[3])
	if err1 != nil || err2 != nil || s < 1 || e < s {
		return evalDef{}, fmt.Errorf("bad line range in %q", line)
	}
	d := evalDef{name: c[0], file: c[1], start: s, end: e}
	if len(c) == 5 {
		d.kind = Kind(c[4])
	}
	return d, nil
}

// realRepos is the directory public repositories are cloned into for the
// real-code checks (testdata/eval/real/README.md).
func realRepos() string {
	if d := os.Getenv("SPELUNK_REAL_REPOS"); d != "" {
		return d
	}
	return "/work/repos"
}

// checkout is the list's clone, or why it cannot be used: absent, or at
// another commit than the one the list was checked against.
func (l evalList) checkout() (string, error) {
	dir := filepath.Join(realRepos(), l.dir)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("%s is not cloned at %s (git clone https://github.com/%s %s && git -C %s checkout %s)",
			l.repository, dir, l.repository, dir, dir, l.commit)
	}
	if head := strings.TrimSpace(string(out)); head != l.commit {
		return "", fmt.Errorf("%s is at %s, the list is for %s", dir, head, l.commit)
	}
	return dir, nil
}

// TestEvalListsWellFormed: every list reads, names a parsed language, a full
// commit and at least 20 definitions, each at most once.
func TestEvalListsWellFormed(t *testing.T) {
	langs := map[string]bool{}
	for _, l := range Languages() {
		langs[l] = true
	}
	for _, l := range readEvalLists(t) {
		if !langs[l.lang] {
			t.Errorf("%s.tsv: %q is not a parsed language", l.lang, l.lang)
		}
		if len(l.commit) != 40 {
			t.Errorf("%s.tsv: commit %q is not a full SHA", l.lang, l.commit)
		}
		if len(l.defs) < 20 {
			t.Errorf("%s.tsv: %d definitions, want at least 20", l.lang, len(l.defs))
		}
		seen := map[evalDef]bool{}
		for _, d := range l.defs {
			if seen[d] {
				t.Errorf("%s.tsv: %s %s:%d-%d listed twice", l.lang, d.name, d.file, d.start, d.end)
			}
			seen[d] = true
			if filepath.IsAbs(d.file) || strings.Contains(d.file, "..") {
				t.Errorf("%s.tsv: %q is not a path inside the repository", l.lang, d.file)
			}
		}
	}
}
