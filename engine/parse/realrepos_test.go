//go:build realrepos

// The checks on real repositories need their clones (never committed; CI has
// no network), so they build only with -tags realrepos and nothing of make
// test skips for want of them:
//
//	go test -tags realrepos ./engine/parse -run TestRealRepositories -v

package parse

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repoParse is what parsing one language of a repository gave.
type repoParse struct {
	files, lines, bytes, defs, partial int
	cpu                                time.Duration
	parsed                             map[string]*File // by path in the repository
}

// TestRealRepositories checks every list of testdata/eval/languages whose
// repository is cloned at its commit: every file of the language parses with
// the invariants holding, and at least 99% of the hand-checked definitions are
// found with their exact line ranges (and kind, where listed). It logs files,
// lines, definitions, partial files, the parse rate and the throughput. A list
// whose clone is absent is skipped with the command that clones it; with none
// cloned the test fails, since -tags realrepos asked for them.
func TestRealRepositories(t *testing.T) {
	ran := 0
	for _, l := range readEvalLists(t) {
		t.Run(l.lang, func(t *testing.T) {
			root, err := l.checkout()
			if err != nil {
				t.Skip(err)
			}
			ran++
			r := parseRepository(t, root, l.lang)
			t.Logf("%s@%.12s %s: %d files, %d lines, %.1f MB, %d definitions, %d partial (%.1f%% parsed cleanly), %.1f MB/cpu-s",
				l.repository, l.commit, l.lang, r.files, r.lines, float64(r.bytes)/1e6, r.defs, r.partial,
				100*float64(r.files-r.partial)/float64(max(r.files, 1)), float64(r.bytes)/1e6/r.cpu.Seconds())
			found := 0
			for _, d := range l.defs {
				if ok, got := findDef(r.parsed[d.file], d); ok {
					found++
				} else {
					t.Logf("missing %s %s:%d-%d %s (%s)", d.name, d.file, d.start, d.end, d.kind, got)
				}
			}
			t.Logf("%d of %d checked definitions found with exact lines", found, len(l.defs))
			if found*100 < len(l.defs)*99 {
				t.Errorf("found %d of %d checked definitions, want >= 99%%", found, len(l.defs))
			}
		})
	}
	if ran == 0 {
		t.Fatalf("no list's repository is cloned under %s at its commit", realRepos())
	}
}

// parseRepository parses every tracked file of root in lang (a .h file counts
// for the language it is sniffed as) and checks the invariants on each.
func parseRepository(t *testing.T, root, lang string) repoParse {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", root, err)
	}
	r := repoParse{parsed: map[string]*File{}}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if byExt := Language(rel); byExt != lang && !sniffs(byExt) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			continue // a submodule or a dangling link
		}
		c0 := cpuTime()
		f, err := Parse(rel, src, Options{})
		r.cpu += cpuTime() - c0
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if f.Language != lang {
			continue
		}
		checkInvariants(t, f, src)
		r.parsed[rel] = f
		r.files, r.bytes, r.lines = r.files+1, r.bytes+len(src), r.lines+bytes.Count(src, []byte("\n"))
		if f.Partial {
			r.partial++
			t.Logf("partial: %s %v", rel, f.Notes)
		}
		for _, s := range f.Symbols {
			if s.Kind != KindModule && s.Kind != KindBlock && s.Kind != KindPart {
				r.defs++
			}
		}
	}
	return r
}

// findDef reports whether f has the definition with its exact lines (and
// kind, when listed); otherwise it says what f has of that name.
func findDef(f *File, d evalDef) (bool, string) {
	if f == nil {
		return false, "file not parsed in this language"
	}
	notes := ""
	if len(f.Notes) > 0 {
		notes = fmt.Sprintf("; file notes %v", f.Notes)
	}
	var seen []string
	for _, s := range f.Symbols {
		if s.QualifiedName != d.name {
			continue
		}
		if s.StartLine == d.start && s.EndLine == d.end && (d.kind == "" || s.Kind == d.kind) {
			return true, ""
		}
		seen = append(seen, fmt.Sprintf("%s %d-%d", s.Kind, s.StartLine, s.EndLine))
	}
	if len(seen) == 0 {
		return false, "no such name" + notes
	}
	return false, "found " + strings.Join(seen, ", ") + notes
}
