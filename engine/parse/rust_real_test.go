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

// evalDef is one hand-checked definition of testdata/eval/languages/<lang>.tsv.
type evalDef struct {
	path, qname string
	kind        Kind
	start, end  int
}

// readLanguageEval reads a definitions list: a header comment naming the
// repository, its commit and the directory it is cloned into, then rows.
func readLanguageEval(t *testing.T, file string) (dir, commit string, defs []evalDef) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		switch {
		case strings.HasPrefix(cols[0], "# repository"):
			for i := 0; i+1 < len(cols); i++ {
				switch cols[i] {
				case "commit":
					commit = cols[i+1]
				case "dir":
					dir = cols[i+1]
				}
			}
		case strings.HasPrefix(cols[0], "#"), cols[0] == "path", len(cols) < 5:
		default:
			s, err1 := strconv.Atoi(cols[3])
			e, err2 := strconv.Atoi(cols[4])
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: bad line range in %q", file, sc.Text())
			}
			defs = append(defs, evalDef{cols[0], cols[1], Kind(cols[2]), s, e})
		}
	}
	if dir == "" || commit == "" || len(defs) == 0 {
		t.Fatalf("%s: no repository header or no definitions", file)
	}
	return dir, commit, defs
}

// TestRustRealRepo parses every .rs file of the repository named in
// testdata/eval/languages/rust.tsv, checking the invariants, reports files,
// definitions and throughput, and requires 99% of the hand-checked
// definitions with their exact line ranges. Skipped unless the repository
// is cloned at that commit under SPELUNK_REAL_REPOS (default /work/repos).
func TestRustRealRepo(t *testing.T) {
	name, commit, defs := readLanguageEval(t, "../../testdata/eval/languages/rust.tsv")
	root := filepath.Join(realRepos(), name)
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("%s is not cloned at %s", name, root)
	}
	if got := strings.TrimSpace(string(out)); got != commit {
		t.Skipf("%s is at %s, the list is for %s", root, got, commit)
	}
	var files, partial, symbols, bytes int
	parsed := map[string]*File{}
	var took time.Duration
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".rs") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		start := time.Now()
		f, err := Parse(rel, src, Options{})
		took += time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		checkInvariants(t, f, src)
		parsed[filepath.ToSlash(rel)] = f
		files++
		bytes += len(src)
		symbols += len(f.Symbols) - 1
		if f.Partial {
			partial++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d files, %.1f MB, %d chunks, %d partial, %.1f MB/s", name, files, float64(bytes)/1e6, symbols, partial,
		float64(bytes)/1e6/took.Seconds())
	found := 0
	for _, want := range defs {
		f := parsed[want.path]
		ok := false
		if f != nil {
			for _, s := range f.Symbols {
				if s.QualifiedName == want.qname && s.Kind == want.kind && s.StartLine == want.start && s.EndLine == want.end {
					ok = true
					break
				}
			}
		}
		if ok {
			found++
		} else {
			t.Errorf("%s: %s %s lines %d-%d not found", want.path, want.kind, want.qname, want.start, want.end)
		}
	}
	if found*100 < len(defs)*99 {
		t.Errorf("found %d of %d hand-checked definitions, want 99%%", found, len(defs))
	}
}
