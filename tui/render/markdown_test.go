package render

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

const sampleMemory = "# Refunds\n\nRefunds over **$500** need `approve_refund()` from a *manager*;\n" +
	"snake_case_name and 2*3*4 stay as typed, and so does an **unclosed marker.\n\n" +
	"- the first item, long enough to wrap in a narrow pane\n- `second`\n  1. nested\n\n" +
	"> quoted\n> on two lines\n\n---\n\n```go\nfunc f() int { return 1 }\n```\n" +
	"https://example.com/a/path/far/longer/than/the/pane/is/wide"

// TestMarkdownPlain pins the layout on the Ascii profile (NO_COLOR and the
// goldens): markers read, code keeps its backticks, a list stays tight.
func TestMarkdownPlain(t *testing.T) {
	want := strings.Join([]string{
		"  Refunds",
		"",
		"  Refunds over $500 need",
		"  `approve_refund()` from a manager;",
		"  snake_case_name and 2*3*4 stay as",
		"  typed, and so does an **unclosed",
		"  marker.",
		"",
		"  • the first item, long enough to",
		"    wrap in a narrow pane",
		"  • `second`",
		"    1. nested",
		"",
		"  │ quoted on two lines",
		"",
		"  ────────────────────────────────────",
		"",
		"    func f() int { return 1 }",
		"",
		"  https://example.com/a/path/far/longe",
		"  r/than/the/pane/is/wide",
	}, "\n")
	if got := Markdown(sampleMemory, 38, termenv.Ascii, true); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestMarkdownStyledLinesStandAlone: in colour every line fits the width and
// closes every style it opens (the view cuts and scrolls lines one by one),
// emphasis and code are styled without their markers, and fenced code is
// highlighted as the symbol viewer highlights it.
func TestMarkdownStyledLinesStandAlone(t *testing.T) {
	for _, w := range []int{12, 38, 80} {
		out := Markdown(sampleMemory, w, termenv.ANSI256, true)
		for _, l := range strings.Split(out, "\n") {
			if Width(l) > w {
				t.Errorf("width %d: %q is %d wide", w, l, Width(l))
			}
			if opens, closes := strings.Count(l, "\x1b["), strings.Count(l, "\x1b[0m"); opens != 2*closes {
				t.Errorf("width %d: %q leaves a style open", w, l)
			}
		}
		if strings.Contains(out, "`approve") || strings.Contains(out, "*manager*") {
			t.Errorf("width %d: markers left in styled output:\n%s", w, out)
		}
	}
	out := Markdown(sampleMemory, 80, termenv.ANSI256, true)
	code := NewHighlighter(termenv.ANSI256, true).Lines("", "go", "func f() int { return 1 }")[0]
	if !strings.Contains(out, code) {
		t.Errorf("fenced Go is not highlighted as %q:\n%q", code, out)
	}
}
