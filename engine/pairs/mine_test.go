package pairs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash paths → content) under a new temporary
// directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mineKind loads dir as a repository and returns the pairs of one kind.
func mineKind(t *testing.T, dir, kind string) []Pair {
	t.Helper()
	r, err := loadRepo(context.Background(), "test/repo", dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []Pair
	emit := func(p Pair) {
		if p.Kind == kind {
			got = append(got, p)
		}
	}
	switch kind {
	case "doc", "comment", "test":
		for _, f := range r.files {
			map[string]func(*repo, *srcFile, func(Pair)){"doc": docPairs, "comment": commentPairs, "test": testPairs}[kind](r, f, emit)
		}
	case "readme":
		readmePairs(r, emit)
	case "commit":
		r.gitDir, r.rev = dir, "HEAD"
		if err := commitPairs(context.Background(), r, 2, emit); err != nil {
			t.Fatal(err)
		}
	}
	return got
}

type want struct {
	query, symbol string
	codeHas       []string // substrings the code must hold
	codeLacks     []string // substrings it must not
}

func check(t *testing.T, got []Pair, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		for _, p := range got {
			t.Logf("got %q -> %s\n%s", p.Query, p.Symbol, p.Code)
		}
		t.Fatalf("got %d pairs, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		p := got[i]
		if p.Query != w.query || p.Symbol != w.symbol {
			t.Errorf("pair %d: got %q -> %s, want %q -> %s", i, p.Query, p.Symbol, w.query, w.symbol)
		}
		for _, s := range w.codeHas {
			if !strings.Contains(p.Code, s) {
				t.Errorf("pair %d: code lacks %q:\n%s", i, s, p.Code)
			}
		}
		for _, s := range w.codeLacks {
			if strings.Contains(p.Code, s) {
				t.Errorf("pair %d: code holds %q:\n%s", i, s, p.Code)
			}
		}
	}
}

func TestDocPairs(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"go doc removed, trivial and name-only docs skipped", map[string]string{"a.go": `package a

// Refund returns the money to the customer's card and records the reversal.
func Refund(id int) error {
	return nil
}

// Close closes.
func Close() {}

// NewThing returns a new Thing.
func NewThing() *Thing { return nil }

// TODO: rewrite this whole thing later on
func Later() {}
`}, []want{{"Refund returns the money to the customer's card and records the reversal.", "a.Refund",
			[]string{"func Refund(id int) error"}, []string{"customer's card"}}}},
		{"python docstring removed, multi-line header", map[string]string{"m.py": `def dedupe(items,
           key=None):
    """Drop repeated items while keeping the first of each.

    Args:
        items: the input.
    """
    return list(dict.fromkeys(items))
`}, []want{{"Drop repeated items while keeping the first of each.", "dedupe",
			[]string{"def dedupe(items,", "return list"}, []string{`"""`, "Args"}}}},
		{"java javadoc and rust doc", map[string]string{"A.java": `class A {
    /**
     * Parses the header block of an HTTP request.
     * @param s the input
     */
    int parseHeader(String s) { return 0; }
}
`, "lib.rs": `/// Computes the checksum of a buffer in constant time.
pub fn checksum(b: &[u8]) -> u32 { 0 }
`}, []want{
			{"Parses the header block of an HTTP request.", "A.parseHeader", []string{"int parseHeader"}, []string{"@param", "/**"}},
			{"Computes the checksum of a buffer in constant time.", "checksum", []string{"pub fn checksum"}, []string{"///"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, mineKind(t, writeTree(t, c.files), "doc"), c.want)
		})
	}
}

func TestCommentPairs(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"go comment to the code block after it", map[string]string{"a.go": `package a

func Sum(xs []int) int {
	// add every element to the running total
	t := 0
	for _, x := range xs {
		t += x
	}

	// short one
	x := 1
	// and then the rest of what the comment above said
	x++
	// t = t + x; commented out code
	return t + x
}
`}, []want{{"add every element to the running total", "a.Sum",
			[]string{"t := 0", "t += x"}, []string{"short one", "return", "x++"}}}},
		{"python comment, at most eight lines", map[string]string{"m.py": `def f(n):
    # walk the numbers and keep only the even ones
    a = 1
    b = 2
    c = 3
    d = 4
    e = 5
    g = 6
    h = 7
    i = 8
    j = 9
    return a
`}, []want{{"walk the numbers and keep only the even ones", "f", []string{"a = 1", "i = 8"}, []string{"j = 9"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, mineKind(t, writeTree(t, c.files), "comment"), c.want)
		})
	}
}

func TestTestPairs(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"go test to its best-overlapping callee", map[string]string{
			"url.go": `package u

func ParseURL(s string) string { return s }

func helper() {}
`,
			"url_test.go": `package u

import "testing"

func TestParseURLWithPort(t *testing.T) {
	helper()
	if ParseURL("x:1") == "" {
		t.Fatal("empty")
	}
}

func TestNothingMatches(t *testing.T) {
	helper()
}
`}, []want{{"parse url with port", "u.ParseURL", []string{"func ParseURL"}, nil}}},
		{"python test, ambiguous callee skipped", map[string]string{
			"pkg/outbox.py": "def dedupe(xs):\n    return xs\n\ndef send(xs):\n    return xs\n",
			"pkg/other.py":  "def send(xs):\n    return xs\n",
			"tests/test_outbox.py": `from pkg.outbox import dedupe, send

def test_dedupes_outbox_twice():
    assert dedupe(dedupe([1, 1])) == [1]

def test_send_twice():
    send([1])
`}, []want{{"dedupes outbox twice", "dedupe", []string{"def dedupe"}, nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, mineKind(t, writeTree(t, c.files), "test"), c.want)
		})
	}
}

func TestTestWords(t *testing.T) {
	for in, want := range map[string]string{
		"TestParseURLWithPort":      "parse url with port",
		"test_dedupes_outbox_twice": "dedupes outbox twice",
		"testRetryBackoffTest":      "retry backoff",
	} {
		if got := testWords(in); got != want {
			t.Errorf("testWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadmePairs(t *testing.T) {
	files := map[string]string{
		"README.md": "# Retries\n\nCall {func}`Backoff()` (see https://x.org/a) to wait longer after every failed attempt, up to a cap.\n\n" +
			"```go\nBackoff()\n```\n\n## Other\n\nThe `Dup` helper exists twice so it names nothing here at all.\n\n" +
			"Words only, with a `plain` span and no API named in it at all.\n",
		"retry.go": "package retry\n\nfunc Backoff() {}\n",
		"a/dup.go": "package a\n\nfunc Dup() {}\n",
		"b/dup.go": "package b\n\nfunc Dup() {}\n",
	}
	check(t, mineKind(t, writeTree(t, files), "readme"), []want{{
		"Retries. Call Backoff() to wait longer after every failed attempt, up to a cap.", "retry.Backoff",
		[]string{"func Backoff()"}, nil}})
}

func TestCommitPairs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := writeTree(t, map[string]string{"calc.go": `package calc

func Add(a, b int) int {
	return a + b
}

func Mul(a, b int) int {
	return a * b
}
`})
	git := gitIn(t, dir)
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "add the calculator package with two operations")
	src := "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Mul(a, b int) int {\n\tif a == 0 {\n\t\treturn 0\n\t}\n\treturn a * b\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	git("commit", "-qam", "short-circuit multiplication by zero\n\nSkips the multiply when the left operand is zero.\n\nSigned-off-by: t <t@t>")
	got := mineKind(t, dir, "commit")
	check(t, got, []want{
		{"short-circuit multiplication by zero. Skips the multiply when the left operand is zero.", "calc.Mul",
			[]string{"if a == 0"}, nil},
		{"add the calculator package with two operations.", "calc.Add", []string{"return a + b"}, nil},
		{"add the calculator package with two operations.", "calc.Mul", []string{"return a * b"}, []string{"a == 0"}},
	})
}

// TestCommitPairsPastAMissingBlob checks that a history git cannot read to
// its end (a partial clone without an old blob) still gives the pairs of the
// commits before the failure, and says it stopped.
func TestCommitPairsPastAMissingBlob(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := writeTree(t, map[string]string{
		"calc.go":  "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
		"data.txt": "a large data file the clone left out\n",
	})
	git := gitIn(t, dir)
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "add the calculator package and its data")
	blob := git("rev-parse", "HEAD:data.txt")
	for i, body := range []string{"return b + a", "return a + b + 0"} {
		src := "package calc\n\nfunc Add(a, b int) int {\n\t" + body + "\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		git("commit", "-qam", fmt.Sprintf("rewrite the addition in its form number %d", i+2))
	}
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	r, err := loadRepo(context.Background(), "test/repo", dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	r.gitDir, r.rev = dir, "HEAD"
	var got []string
	err = commitPairs(context.Background(), r, 2, func(p Pair) { got = append(got, p.Query) })
	if err == nil || !strings.Contains(err.Error(), "stopped after") {
		t.Errorf("commitPairs: %v, want it to say the history stopped", err)
	}
	want := []string{"rewrite the addition in its form number 3.", "rewrite the addition in its form number 2."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pairs %q, want %q", got, want)
	}
}

// gitIn returns a runner of git commands in dir, as a test author, that
// fails the test on an error and returns the trimmed output.
func gitIn(t *testing.T, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t",
			"-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
