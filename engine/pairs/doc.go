package pairs

import (
	"regexp"
	"strings"
)

// docPairs gives a definition's doc comment or docstring → its code with the
// doc removed, for every definition of f whose doc is informative.
func docPairs(r *repo, f *srcFile, emit func(Pair)) {
	for i := range f.f.Symbols {
		s := &f.f.Symbols[i]
		if !defKinds[s.Kind] || s.Doc == "" || isTestDef(f, i) {
			continue
		}
		q := docQuery(s.Doc)
		if trivialText(q) || repeatsName(q, s.Name) {
			continue
		}
		code := codeOf(f, i)
		if strings.TrimSpace(code) == "" {
			continue
		}
		emit(Pair{Kind: "doc", Query: q, Code: code, Repo: r.name, Path: f.path, Symbol: s.QualifiedName})
	}
}

var (
	docTag   = regexp.MustCompile(`^\s*(@\w+|:(param|type|return|returns|rtype|raises|arg)\b|Args:|Arguments:|Returns:|Raises:|Parameters\b|Example|Examples\b|See also|# (Examples|Panics|Errors|Safety))`)
	docRole  = regexp.MustCompile(":[a-z]+:`([^`]*)`")
	docInTag = regexp.MustCompile(`\{@\w+\s+([^}]*)\}`)
)

// docQuery is the doc's summary: its first paragraph (the second joins it
// when the first is under four words), tags and markup removed, at most
// 400 bytes.
func docQuery(doc string) string {
	var paras []string
	var cur []string
	for _, line := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(line)
		if docTag.MatchString(t) {
			break
		}
		if t == "" || strings.HasPrefix(t, "```") {
			if len(cur) > 0 {
				paras = append(paras, strings.Join(cur, " "))
				cur = nil
			}
			if strings.HasPrefix(t, "```") {
				break
			}
			continue
		}
		cur = append(cur, t)
	}
	if len(cur) > 0 {
		paras = append(paras, strings.Join(cur, " "))
	}
	if len(paras) == 0 {
		return ""
	}
	q := paras[0]
	if wordCount(q) < 4 && len(paras) > 1 {
		q += " " + paras[1]
	}
	q = docRole.ReplaceAllString(q, "$1")
	q = docInTag.ReplaceAllString(q, "$1")
	q = strings.NewReplacer("``", "", "`", "", "<p>", " ", "</p>", " ", "<code>", "", "</code>", "").Replace(q)
	return clip(collapse(q), 400)
}

// codeOf is the symbol's content without its doc comment or docstring,
// capped at maxCode bytes.
func codeOf(f *srcFile, i int) string {
	s := &f.f.Symbols[i]
	lines := strings.Split(strings.TrimRight(s.Content, "\n"), "\n")
	if s.Doc != "" {
		if f.lang == "python" {
			lines = dropDocstring(lines)
		} else {
			lines = dropLeadingComments(lines)
		}
	}
	return clipLines(strings.Join(lines, "\n"), maxCode)
}

// dropLeadingComments removes the comment and blank lines before the first
// code line (attributes and decorators are code).
func dropLeadingComments(lines []string) []string {
	inBlock := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case inBlock:
			if strings.Contains(t, "*/") {
				inBlock = false
			}
		case t == "", strings.HasPrefix(t, "//"):
		case strings.HasPrefix(t, "/*"):
			inBlock = !strings.Contains(t[2:], "*/")
		default:
			return lines[i:]
		}
	}
	return nil
}

// dropDocstring removes a Python definition's docstring: the first string
// literal statement after the header (the def or class line through the
// line ending with ':').
func dropDocstring(lines []string) []string {
	i := 0
	for i < len(lines) && !isDefLine(lines[i]) {
		i++ // decorators
	}
	for i < len(lines) && !strings.HasSuffix(strings.TrimSpace(stripHash(lines[i])), ":") {
		i++
	}
	i++
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) {
		return lines
	}
	t := strings.TrimSpace(lines[i])
	q := quoteOf(t)
	if q == "" {
		return lines
	}
	end := i
	rest := strings.TrimLeft(t, "rRuUbBfF")[len(q):]
	for !strings.Contains(rest, q) {
		end++
		if end >= len(lines) {
			return lines
		}
		rest = lines[end]
	}
	return append(append([]string{}, lines[:i]...), lines[end+1:]...)
}

func isDefLine(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") || strings.HasPrefix(t, "class ")
}

// stripHash drops a trailing # comment (a rough cut: a # inside a string on
// a header line is rare).
func stripHash(l string) string {
	if i := strings.Index(l, " #"); i >= 0 {
		return l[:i]
	}
	return l
}

// quoteOf is the string delimiter a docstring line opens with, or "".
func quoteOf(t string) string {
	t = strings.TrimLeft(t, "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(t, q) {
			return q
		}
	}
	return ""
}
