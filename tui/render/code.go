package render

import (
	"strings"

	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// TabWidth is how many columns a tab expands to in source views.
const TabWidth = 4

// Highlighter colours source code for one colour profile. It is immutable once
// built, so commands may use it concurrently. Tokens come from the tree-sitter
// grammars of the parsed languages (parse.Highlight); other text is drawn plain.
type Highlighter struct {
	profile termenv.Profile
	seq     map[parse.Class]string // SGR prefix per token class, "" = unstyled
}

// NewHighlighter builds a highlighter with spelunk's palette for dark or light
// terminals, converted to profile. With the Ascii profile it only expands tabs.
func NewHighlighter(profile termenv.Profile, dark bool) *Highlighter {
	h := &Highlighter{profile: profile, seq: map[parse.Class]string{}}
	if profile == termenv.Ascii {
		return h
	}
	for cl, style := range palette {
		h.seq[cl] = style.sequence(profile, dark)
	}
	return h
}

// Lines highlights code and returns one self-contained line per source line
// (every styled span closed on its own line, so lines can be cut, scrolled and
// truncated independently). Tabs are expanded first. The grammar is the
// indexed language's, else the one path's name or a fence's info names.
func (h *Highlighter) Lines(path, language, code string) []string {
	plain := Lines(code)
	for i, l := range plain {
		plain[i] = ExpandTabs(l, TabWidth)
	}
	if h == nil || h.profile == termenv.Ascii || len(plain) == 0 {
		return plain
	}
	lang := parse.HighlightLanguage(path, language)
	if lang == "" {
		return plain
	}
	src := strings.Join(plain, "\n")
	spans, ok := parse.Highlight(lang, []byte(src))
	if !ok {
		return plain
	}
	out := make([]string, 0, len(plain))
	var b strings.Builder
	write := func(text, seq string) {
		for i, part := range strings.Split(text, "\n") {
			if i > 0 {
				out = append(out, b.String())
				b.Reset()
			}
			if part == "" {
				continue
			}
			if seq == "" {
				b.WriteString(part)
				continue
			}
			b.WriteString(seq)
			b.WriteString(part)
			b.WriteString("\x1b[0m")
		}
	}
	at := 0
	for _, s := range spans {
		if s.Start < at || s.End > len(src) {
			continue // overlapping or outside: drawn plain
		}
		write(src[at:s.Start], "")
		write(src[s.Start:s.End], h.seq[s.Class])
		at = s.End
	}
	write(src[at:], "")
	out = append(out, b.String())
	for len(out) < len(plain) {
		out = append(out, "")
	}
	return out[:len(plain)]
}
