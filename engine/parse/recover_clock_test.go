package parse

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRecoveryDoesNotDependOnTheClock: error recovery's re-parses are bounded
// by their count and bytes, not by the wall clock: with the time budget spent
// before recovery starts (as on a loaded machine) a file with several broken
// statements gives the same definitions and notes. Recovery used to stop at
// half the parse budget, on the wall clock, and the soak found a broken Go
// file indexed two ways (issue 36). Not parallel: it sets the package's
// budget.
func TestRecoveryDoesNotDependOnTheClock(t *testing.T) {
	var b strings.Builder
	for i := range 4 {
		fmt.Fprintf(&b, "x%d = call(\n\ndef after_%d(a):\n    return a + %d\n\n", i, i, i)
	}
	src := []byte(b.String())
	want, err := Parse("broken.py", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(want.Notes, "; "), "parsing resumed") {
		t.Fatalf("notes %v: the file needs no recovery", want.Notes)
	}
	saved := parseTimeout
	parseTimeout = func(int) time.Duration { return 0 } // tree-sitter's own limit off; any clock budget already spent
	defer func() { parseTimeout = saved }()
	got, err := Parse("broken.py", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := defNames(got), defNames(want); g != w || strings.Join(got.Notes, "; ") != strings.Join(want.Notes, "; ") {
		t.Fatalf("with the clock budget spent:\n%s\n%v\nwant\n%s\n%v", g, got.Notes, w, want.Notes)
	}
}

func defNames(f *File) string {
	var out []string
	for _, s := range f.Symbols {
		out = append(out, fmt.Sprintf("%s:%s:%d-%d", s.Kind, s.QualifiedName, s.StartLine, s.EndLine))
	}
	return strings.Join(out, " ")
}
