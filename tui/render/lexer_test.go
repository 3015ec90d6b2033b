package render

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// TestEveryLanguageIsHighlighted: every language spelunk parses is highlighted
// by its grammar, whether found by the file's name, by the indexed language
// alone (no name known), or against the name (.h in C++), and its keywords
// come out styled, unlike plain text.
func TestEveryLanguageIsHighlighted(t *testing.T) {
	samples := map[string]struct{ path, code string }{
		"go":         {"a.go", "func f() int { return 1 }"},
		"python":     {"a.py", "def f():\n    return 1"},
		"javascript": {"a.js", "function f() { return 1; }"},
		"typescript": {"a.ts", "function f(): number { return 1; }"},
		"tsx":        {"a.tsx", "function f(): number { return 1; }"},
		"php":        {"a.php", "function f() { return 1; }"}, // a chunk has no <?php
		"ruby":       {"config.ru", "def f\n  return 1\nend"},
		"java":       {"A.java", "class A { int f() { return 1; } }"},
		"csharp":     {"A.cs", "class A { int F() { return 1; } }"},
		"rust":       {"a.rs", "fn f() -> i32 { return 1; }"},
		"c":          {"a.c", "int f(void) { return 1; }"},
		"cpp":        {"a.h", "namespace n { class A { int f() { return 1; } }; }"},
	}
	h := NewHighlighter(termenv.TrueColor, true)
	keyword := h.seq[parse.Keyword]
	for _, lang := range parse.Languages() {
		s, ok := samples[lang]
		if !ok {
			t.Errorf("%s: no sample in this test", lang)
			continue
		}
		for _, path := range []string{s.path, "", "NOTES"} {
			if got := parse.HighlightLanguage(path, lang); got != lang {
				t.Errorf("%s %q: grammar %q", lang, path, got)
			}
		}
		styled, plain := h.Lines(s.path, lang, s.code), h.Lines("a.txt", "text", s.code)
		if len(styled) != len(plain) || styled[0] == plain[0] || !strings.Contains(strings.Join(styled, "\n"), keyword+"return") {
			t.Errorf("%s: %q has no styled keyword (plain text gives %q)", lang, styled, plain)
		}
		for i := range styled {
			if got := stripANSI(styled[i]); got != plain[i] {
				t.Errorf("%s line %d: %q, want %q", lang, i, got, plain[i])
			}
		}
	}
	if got := parse.HighlightLanguage("a.h", "c"); got != "c" {
		t.Errorf("a C header: grammar %s, want c", got)
	}
	if got := parse.HighlightLanguage("", "py"); got != "python" {
		t.Errorf("a py fence: grammar %q, want python", got)
	}
}

// TestHighlightClasses: declarations, calls, strings, numbers and comments
// each take their own colour.
func TestHighlightClasses(t *testing.T) {
	h := NewHighlighter(termenv.TrueColor, true)
	src := "// doc\nfunc Add(a int) string { return fmt.Sprint(a + 1, \"x\", true) }"
	out := strings.Join(h.Lines("a.go", "go", src), "\n")
	for _, want := range []struct {
		class parse.Class
		text  string
	}{
		{parse.Comment, "// doc"}, {parse.Keyword, "func"}, {parse.Function, "Add"}, {parse.Type, "int"},
		{parse.String, `"x"`}, {parse.Number, "1"}, {parse.Constant, "true"}, {parse.Operator, "+"},
	} {
		if !strings.Contains(out, h.seq[want.class]+want.text+"\x1b[0m") {
			t.Errorf("%q is not drawn as class %d in %q", want.text, want.class, out)
		}
	}
}
