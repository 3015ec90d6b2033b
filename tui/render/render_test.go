package render

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

func TestFitIsExact(t *testing.T) {
	tests := []struct {
		in   string
		w, h int
	}{
		{"", 5, 2}, {"abc", 5, 1}, {"a very long line indeed", 5, 1}, {"a\nb\nc\nd", 3, 2},
		{"\x1b[31mred text that is long\x1b[0m", 6, 1}, {"日本語のテキスト", 5, 1},
	}
	for _, tt := range tests {
		got := Fit(tt.in, tt.w, tt.h)
		lines := strings.Split(got, "\n")
		if len(lines) != tt.h {
			t.Errorf("Fit(%q, %d, %d): %d lines", tt.in, tt.w, tt.h, len(lines))
		}
		for _, l := range lines {
			if Width(l) != tt.w && !(Width(l) == tt.w-1 && strings.ContainsAny(tt.in, "日")) {
				t.Errorf("Fit(%q, %d, %d): line %q is %d wide", tt.in, tt.w, tt.h, l, Width(l))
			}
		}
	}
}

func TestTruncation(t *testing.T) {
	tests := []struct{ fn, in, want string }{
		{"right", "engine/search/fuse.go:12-40", "engine/se…"},
		{"left", "engine/search/fuse.go:12-40", "…go:12-40"},
		{"right", "short", "short"},
		{"left", "short", "short"},
	}
	for _, tt := range tests {
		got := Truncate(tt.in, 10)
		if tt.fn == "left" {
			got = TruncateLeft(tt.in, 9)
		}
		if got != tt.want {
			t.Errorf("%s(%q) = %q, want %q", tt.fn, tt.in, got, tt.want)
		}
	}
	if got := ExpandTabs("\tx\ty", 4); got != "    x   y" {
		t.Errorf("ExpandTabs = %q", got)
	}
	if got := Wrap("one two three four", 9); strings.Join(got, "|") != "one two|three|four" {
		t.Errorf("Wrap = %q", got)
	}
}

// TestHighlightKeepsLines checks that highlighted output has exactly one
// self-contained line per source line, also across multi-line tokens (block
// comments, strings).
func TestHighlightKeepsLines(t *testing.T) {
	src := "// Package x.\npackage x\n\n/* a\nblock\ncomment */\nfunc F() string {\n\treturn `multi\nline`\n}\n"
	for _, prof := range []termenv.Profile{termenv.Ascii, termenv.ANSI256, termenv.TrueColor} {
		h := NewHighlighter(prof, true)
		lines := h.Lines("x.go", "go", src)
		if len(lines) != 10 {
			t.Fatalf("profile %v: %d lines, want 10", prof, len(lines))
		}
		for i, l := range lines {
			plain := stripANSI(l)
			want := ExpandTabs(strings.Split(strings.TrimRight(src, "\n"), "\n")[i], TabWidth)
			if plain != want {
				t.Errorf("profile %v line %d: %q, want %q", prof, i, plain, want)
			}
			if prof != termenv.Ascii && strings.Count(l, "\x1b[") > 0 && !strings.HasSuffix(l, "\x1b[0m") && !strings.HasSuffix(plain, " ") {
				// A styled span left open would bleed into the next line.
				if strings.LastIndex(l, "\x1b[0m") < strings.LastIndex(l, "\x1b[3") {
					t.Errorf("profile %v line %d leaves a style open: %q", prof, i, l)
				}
			}
		}
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
