package render

import (
	"testing"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// TestEveryLanguageHasALexer: every language spelunk parses is highlighted by
// chroma's lexer for it, whether found by the file's name, by the indexed
// language alone (no name chroma knows), or against the name (.h in C++), and
// its keywords come out styled, unlike plain text.
func TestEveryLanguageHasALexer(t *testing.T) {
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
	for _, lang := range parse.Languages() {
		want, ok := languageLexers[lang]
		if !ok {
			t.Errorf("%s: no chroma lexer named in languageLexers", lang)
			continue
		}
		if lexers.Get(want) == nil {
			t.Errorf("%s: chroma has no lexer %q", lang, want)
		}
		s, ok := samples[lang]
		if !ok {
			t.Errorf("%s: no sample in this test", lang)
			continue
		}
		for _, path := range []string{s.path, "", "NOTES"} {
			if got := Lexer(path, lang, s.code).Config().Name; got != want {
				t.Errorf("%s %q: lexer %s, want %s", lang, path, got, want)
			}
		}
		styled, plain := h.Lines(s.path, lang, s.code), h.Lines("a.txt", "text", s.code)
		if len(styled) != len(plain) || styled[0] == plain[0] {
			t.Errorf("%s: %q is not highlighted (plain text gives %q)", lang, styled, plain)
		}
	}
	if got := Lexer("a.h", "c", "int f(void);").Config().Name; got != "C" {
		t.Errorf("a C header: lexer %s, want C", got)
	}
}
