// Package render does the TUI's expensive and fiddly drawing: source highlighted
// over the index's tree-sitter grammars, its own small Markdown renderer, and
// width-exact text fitting. The highlighters are built once and are safe for
// concurrent use, because they run inside tea.Cmds (never on the Update/View hot
// path).
package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Width is the display width of s in cells, escape sequences ignored.
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts s to at most w cells, ending in "…" when it was cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// TruncateLeft cuts s to at most w cells by dropping its start, so a path keeps
// its file name: "…/search/fuse.go:12-40".
func TruncateLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s)
	if n <= w {
		return s
	}
	return ansi.TruncateLeft(s, n-w+1, "…")
}

// Pad fits s to exactly w cells: truncated, or filled with spaces on the right.
func Pad(s string, w int) string {
	s = Truncate(s, w)
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// PadLeft fits s to exactly w cells, right-aligned.
func PadLeft(s string, w int) string {
	s = Truncate(s, w)
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// Cut returns the cells [left, left+w) of s, escape sequences kept: horizontal
// scrolling of a highlighted line.
func Cut(s string, left, w int) string {
	if left <= 0 {
		return Truncate(s, w)
	}
	return Truncate(ansi.Cut(s, left, left+w+1), w)
}

// Fit makes block exactly h lines of exactly w cells: longer lines are truncated,
// missing lines are blank, extra lines are dropped. The root applies it to every
// pane, so no pane can break the layout whatever it draws.
func Fit(block string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(block, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	b.Grow((w + 8) * h)
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(Pad(lines[i], w))
		} else {
			b.WriteString(strings.Repeat(" ", w))
		}
	}
	return b.String()
}

// Lines splits s into lines without a trailing empty one.
func Lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ExpandTabs replaces tabs with spaces to the next multiple of width, so that cell
// arithmetic on a line is exact.
func ExpandTabs(line string, width int) string {
	if !strings.Contains(line, "\t") {
		return line
	}
	var b strings.Builder
	col := 0
	for _, r := range line {
		if r == '\t' {
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// HJoin lays blocks side by side, each padded to its width, separated by sep.
func HJoin(sep string, widths []int, blocks ...[]string) []string {
	h := 0
	for _, b := range blocks {
		h = max(h, len(b))
	}
	out := make([]string, h)
	for i := 0; i < h; i++ {
		var b strings.Builder
		for j, blk := range blocks {
			if j > 0 {
				b.WriteString(sep)
			}
			line := ""
			if i < len(blk) {
				line = blk[i]
			}
			b.WriteString(Pad(line, widths[j]))
		}
		out[i] = b.String()
	}
	return out
}

// Wrap breaks plain text into lines of at most w cells at spaces (hard-breaking
// words longer than w). Newlines in s are kept.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		line := ""
		for _, word := range words {
			for ansi.StringWidth(word) > w {
				if line != "" {
					out = append(out, line)
					line = ""
				}
				cut := ansi.Truncate(word, w, "")
				out = append(out, cut)
				word = word[len(cut):]
			}
			switch {
			case line == "":
				line = word
			case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= w:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}
