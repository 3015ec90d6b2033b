package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// inlineKind is how a run of inline Markdown is drawn.
type inlineKind int

const (
	inlinePlain inlineKind = iota
	inlineCode
	inlineBold
	inlineItalic
	inlineHeading
)

// inlineStyles are the SGR prefixes of the inline kinds for profile (none for
// Ascii, where code keeps its backticks so that it still reads as code).
func inlineStyles(profile termenv.Profile, dark bool) map[inlineKind]string {
	if profile == termenv.Ascii {
		return map[inlineKind]string{}
	}
	return map[inlineKind]string{
		inlineCode:    palette[parse.String].sequence(profile, dark),
		inlineBold:    tokenStyle{bold: true}.sequence(profile, dark),
		inlineItalic:  tokenStyle{italic: true}.sequence(profile, dark),
		inlineHeading: headingStyle.sequence(profile, dark),
	}
}

// mdPiece is a run of one kind; an mdWord is the pieces between two spaces
// ("`f`," is a code piece and a plain one), wrapped as a unit.
type mdPiece struct {
	text string
	kind inlineKind
}

type mdWord []mdPiece

// parseInline splits text into words, reading `code`, **bold** / __bold__ and
// *italic* / _italic_ spans. A marker without its closing twin is text, and
// an emphasis marker inside a word (snake_case, 2*3*4) is never one.
func parseInline(text string, base inlineKind) []mdWord {
	var words []mdWord
	var cur mdWord
	add := func(s string, k inlineKind) {
		for i, part := range strings.Split(s, " ") {
			if i > 0 && len(cur) > 0 {
				words, cur = append(words, cur), nil
			}
			if part != "" {
				cur = append(cur, mdPiece{part, k})
			}
		}
	}
	for text != "" {
		open, marker, kind := nextSpan(text)
		if open < 0 {
			add(text, base)
			break
		}
		add(text[:open], base)
		rest := text[open+len(marker):]
		end := strings.Index(rest, marker)
		span := rest[:end]
		if kind == inlineCode {
			span = strings.ReplaceAll(span, " ", "\u00a0") // a code span is not broken
		}
		add(span, kind)
		text = rest[end+len(marker):]
	}
	if len(cur) > 0 {
		words = append(words, cur)
	}
	return words
}

// nextSpan finds the first complete span in text: its start, marker and kind
// (-1 when there is none).
func nextSpan(text string) (int, string, inlineKind) {
	for i := 0; i < len(text); i++ {
		var marker string
		var kind inlineKind
		switch {
		case text[i] == '`':
			marker, kind = "`", inlineCode
		case strings.HasPrefix(text[i:], "**") || strings.HasPrefix(text[i:], "__"):
			marker, kind = text[i:i+2], inlineBold
		case text[i] == '*' || text[i] == '_':
			marker, kind = text[i:i+1], inlineItalic
		default:
			continue
		}
		if kind != inlineCode && i > 0 && isWordByte(text[i-1]) {
			continue
		}
		rest := text[i+len(marker):]
		end := strings.Index(rest, marker)
		if end <= 0 || kind != inlineCode && (rest[0] == ' ' || rest[end-1] == ' ') {
			i += len(marker) - 1
			continue
		}
		if after := i + len(marker) + end + len(marker); kind != inlineCode && after < len(text) && isWordByte(text[after]) {
			continue
		}
		return i, marker, kind
	}
	return -1, "", inlinePlain
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// wrap lays words out in lines of at most w cells after their prefix (first
// for the first line, rest for the others), breaking only between words.
func (r mdRenderer) wrap(words []mdWord, w int, first, rest string) []string {
	w = max(w, 1)
	var out []string
	var line strings.Builder
	lineW := 0
	flush := func() {
		prefix := rest
		if len(out) == 0 {
			prefix = first
		}
		out = append(out, prefix+line.String())
		line.Reset()
		lineW = 0
	}
	for _, word := range hardBreak(words, w) {
		ww := 0
		drawn := make([]string, len(word))
		for i, p := range word {
			drawn[i] = r.draw(p)
			ww += Width(drawn[i])
		}
		if lineW > 0 && lineW+1+ww > w {
			flush()
		}
		if lineW > 0 {
			line.WriteByte(' ')
			lineW++
		}
		for _, d := range drawn {
			line.WriteString(d)
		}
		lineW += ww
	}
	if lineW > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// hardBreak cuts a one-piece word wider than w (a long path or URL) into
// pieces of w cells, each its own word; other words are left whole.
func hardBreak(words []mdWord, w int) []mdWord {
	var out []mdWord
	for _, word := range words {
		if len(word) != 1 || Width(word[0].text) <= w {
			out = append(out, word)
			continue
		}
		for text := word[0].text; text != ""; {
			cut := ansi.Truncate(text, w, "")
			if cut == "" {
				cut = text // one character wider than w
			}
			out = append(out, mdWord{{cut, word[0].kind}})
			text = text[len(cut):]
		}
	}
	return out
}

// draw renders one piece in its own style, closed at its end.
func (r mdRenderer) draw(p mdPiece) string {
	text := strings.ReplaceAll(p.text, "\u00a0", " ")
	seq := r.inline[p.kind]
	if p.kind == inlineCode && seq == "" {
		return "`" + text + "`"
	}
	if seq == "" {
		return text
	}
	return seq + text + "\x1b[0m"
}
