package render

import (
	"regexp"
	"strings"

	"github.com/muesli/termenv"
)

// Markdown renders the Markdown a memory is written in at width cells (a
// 2-cell margin included) for profile: paragraphs wrapped, headings, lists,
// block quotes, rules, fenced code highlighted like the symbol viewer, and
// inline code, bold and italic. It is the subset agents write; anything else
// stays as typed. spelunk renders it itself rather than with glamour, whose
// HTML sanitiser and style registries cost ~14 ms of every process's start-up
// (GODEBUG=inittrace=1) for this one pane. Every line is self-contained: each
// styled word opens and closes its own style, so lines can be cut and scrolled.
func Markdown(md string, width int, profile termenv.Profile, dark bool) string {
	r := mdRenderer{width: max(width, 10) - mdMargin, profile: profile, hl: NewHighlighter(profile, dark)}
	r.inline = inlineStyles(profile, dark)
	var out []string
	prev := ""
	for _, b := range mdBlocks(strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")) {
		if len(out) > 0 && !(b.kind == "li" && prev == "li") { // a list stays tight
			out = append(out, "")
		}
		prev = b.kind
		for _, l := range r.block(b) {
			out = append(out, strings.Repeat(" ", mdMargin)+l)
		}
	}
	return strings.Join(out, "\n")
}

const mdMargin = 2

// mdBlock is one block of the document: its kind and its source lines with
// the block's own markers removed.
type mdBlock struct {
	kind   string // "p", "h", "li", "quote", "code", "rule"
	marker string // a list item's bullet or number
	indent int    // a list item's nesting, in levels
	info   string // a code block's language
	lines  []string
}

var (
	fenceRe   = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([\\w+#.-]*)")
	headingRe = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	itemRe    = regexp.MustCompile(`^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$`)
	quoteRe   = regexp.MustCompile(`^\s*>\s?(.*)$`)
)

// isRule reports a thematic break: three or more of one of - * _, spaces allowed.
func isRule(l string) bool {
	s := strings.ReplaceAll(strings.TrimSpace(l), " ", "")
	return len(s) >= 3 && strings.Trim(s, s[:1]) == "" && strings.Contains("-*_", s[:1])
}

// mdBlocks splits lines into blocks. A paragraph, item or quote goes on over
// the lines that follow it up to a blank line or another block's start.
func mdBlocks(lines []string) []mdBlock {
	var out []mdBlock
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fenceRe.FindStringSubmatch(l); m != nil {
			b := mdBlock{kind: "code", info: m[2]}
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), m[1]); i++ {
				b.lines = append(b.lines, lines[i])
			}
			out = append(out, b)
			continue
		}
		b, ok := blockStart(l)
		if !ok {
			continue // a blank line
		}
		if b.kind == "p" || b.kind == "li" || b.kind == "quote" {
			for i+1 < len(lines) && continues(b, lines[i+1]) {
				i++
				next := lines[i]
				if m := quoteRe.FindStringSubmatch(next); b.kind == "quote" && m != nil {
					next = m[1]
				}
				b.lines = append(b.lines, next)
			}
		}
		out = append(out, b)
	}
	return out
}

// blockStart reads the block a line opens; false for a blank line.
func blockStart(l string) (mdBlock, bool) {
	switch {
	case strings.TrimSpace(l) == "":
		return mdBlock{}, false
	case isRule(l):
		return mdBlock{kind: "rule"}, true
	}
	if m := headingRe.FindStringSubmatch(l); m != nil {
		return mdBlock{kind: "h", lines: []string{m[1]}}, true
	}
	if m := itemRe.FindStringSubmatch(l); m != nil {
		marker := "•"
		if m[2][0] >= '0' && m[2][0] <= '9' {
			marker = m[2]
		}
		return mdBlock{kind: "li", marker: marker, indent: len(strings.ReplaceAll(m[1], "\t", "  ")) / 2, lines: []string{m[3]}}, true
	}
	if m := quoteRe.FindStringSubmatch(l); m != nil {
		return mdBlock{kind: "quote", lines: []string{m[1]}}, true
	}
	return mdBlock{kind: "p", lines: []string{l}}, true
}

// continues reports whether next carries block b on (a lazy continuation line).
func continues(b mdBlock, next string) bool {
	if strings.TrimSpace(next) == "" || fenceRe.MatchString(next) {
		return false
	}
	nb, _ := blockStart(next)
	if b.kind == "quote" {
		return nb.kind == "quote" || nb.kind == "p"
	}
	return nb.kind == "p"
}

type mdRenderer struct {
	width   int
	profile termenv.Profile
	hl      *Highlighter
	inline  map[inlineKind]string
}

// block renders one block as lines of at most r.width cells (a code line is
// cut, not wrapped, as the symbol viewer shows code).
func (r mdRenderer) block(b mdBlock) []string {
	text := strings.Join(b.lines, " ")
	switch b.kind {
	case "code":
		lines := r.hl.Lines("", b.info, strings.Join(b.lines, "\n"))
		for i, l := range lines {
			lines[i] = Truncate("  "+l, r.width)
		}
		return lines
	case "rule":
		return []string{strings.Repeat("─", r.width)}
	case "h":
		return r.wrap(parseInline(text, inlineHeading), r.width, "", "")
	case "quote":
		return r.wrap(parseInline(text, inlinePlain), r.width-2, "│ ", "│ ")
	case "li":
		pad := strings.Repeat("  ", b.indent)
		first := pad + b.marker + " "
		return r.wrap(parseInline(text, inlinePlain), r.width-Width(first), first, strings.Repeat(" ", Width(first)))
	}
	return r.wrap(parseInline(text, inlinePlain), r.width, "", "")
}
