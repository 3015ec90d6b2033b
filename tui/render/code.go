package render

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/muesli/termenv"
)

// TabWidth is how many columns a tab expands to in source views.
const TabWidth = 4

// Highlighter colours source code for one colour profile. It is immutable once
// built, so commands may use it concurrently.
type Highlighter struct {
	profile termenv.Profile
	seq     map[chroma.TokenType]string // SGR prefix per token type, "" = unstyled
}

// NewHighlighter builds a highlighter with spelunk's palette for dark or light
// terminals, converted to profile. With the Ascii profile it only expands tabs.
func NewHighlighter(profile termenv.Profile, dark bool) *Highlighter {
	h := &Highlighter{profile: profile, seq: map[chroma.TokenType]string{}}
	if profile == termenv.Ascii {
		return h
	}
	for tt, style := range palette {
		h.seq[tt] = style.sequence(profile, dark)
	}
	return h
}

// languageLexers names chroma's lexer for each language spelunk parses
// (engine/parse.Languages; a test keeps the two in step).
var languageLexers = map[string]string{
	"go": "Go", "python": "Python", "javascript": "JavaScript", "typescript": "TypeScript", "tsx": "TypeScript",
	"php": "PHP", "ruby": "Ruby", "java": "Java", "csharp": "C#", "rust": "Rust", "c": "C", "cpp": "C++",
}

// Lexer picks the chroma lexer for a file: by name, then by the indexed language,
// then by content analysis, else plain text. The indexed language wins over the
// name when the two name different parsed languages: the index sniffed the
// content (a .h file in C++ is highlighted as C++, not C).
func Lexer(path, language, code string) chroma.Lexer {
	l := lexers.Match(path)
	if want, ok := languageLexers[language]; ok && (l == nil || l.Config().Name != want && parsedLexer(l)) {
		if byLang := lexers.Get(want); byLang != nil {
			l = byLang
		}
	}
	if l == nil && language != "" {
		l = lexers.Get(language)
	}
	if l == nil {
		l = lexers.Analyse(code)
	}
	if l == nil {
		l = lexers.Fallback
	}
	return chroma.Coalesce(l)
}

// parsedLexer reports whether l is the lexer of a language spelunk parses.
func parsedLexer(l chroma.Lexer) bool {
	for _, name := range languageLexers {
		if l.Config().Name == name {
			return true
		}
	}
	return false
}

// Lines highlights code and returns one self-contained line per source line
// (every styled span closed on its own line, so lines can be cut, scrolled and
// truncated independently). Tabs are expanded first.
func (h *Highlighter) Lines(path, language, code string) []string {
	plain := Lines(code)
	for i, l := range plain {
		plain[i] = ExpandTabs(l, TabWidth)
	}
	if h == nil || h.profile == termenv.Ascii || len(plain) == 0 {
		return plain
	}
	src := strings.Join(plain, "\n")
	it, err := Lexer(path, language, src).Tokenise(nil, src)
	if err != nil {
		return plain
	}
	out := make([]string, 0, len(plain))
	var b strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		seq := h.lookup(tok.Type)
		parts := strings.Split(tok.Value, "\n")
		for i, part := range parts {
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
	if b.Len() > 0 || len(out) < len(plain) {
		out = append(out, b.String())
	}
	// Chroma may add a trailing newline token; keep the line count exact.
	for len(out) < len(plain) {
		out = append(out, "")
	}
	return out[:len(plain)]
}

func (h *Highlighter) lookup(tt chroma.TokenType) string {
	for t := tt; ; {
		if s, ok := h.seq[t]; ok {
			return s
		}
		switch {
		case t.SubCategory() != t:
			t = t.SubCategory()
		case t.Category() != t:
			t = t.Category()
		default:
			return ""
		}
	}
}
