package pairs

import (
	"regexp"
	"strings"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// maxCommentCode is how many code lines follow a comment in its pair.
const maxCommentCode = 8

// commentPairs gives each standalone comment inside a function or method
// (a run of comment lines, at least four words) → the code lines after it,
// up to maxCommentCode, stopping at a blank line, the next comment or the
// definition's end.
func commentPairs(r *repo, f *srcFile, emit func(Pair)) {
	for i := range f.f.Symbols {
		s := &f.f.Symbols[i]
		if s.Kind != parse.KindFunction && s.Kind != parse.KindMethod {
			continue
		}
		lines := strings.Split(strings.TrimRight(codeOf(f, i), "\n"), "\n")
		for j := 1; j < len(lines); j++ {
			text, n := commentRun(f.lang, lines[j:])
			if n == 0 {
				continue
			}
			code := codeAfter(f.lang, lines[j+n:])
			j += n - 1
			if trivialText(text) || looksLikeCode(text) || fragment.MatchString(text) || len(strings.TrimSpace(code)) < 16 {
				continue
			}
			emit(Pair{Kind: "comment", Query: clip(text, 400), Code: code, Repo: r.name, Path: f.path,
				Symbol: s.QualifiedName})
		}
	}
}

// commentRun reads the comment lines at the start of lines: their text
// without markers and how many lines they are (0: not a comment).
func commentRun(lang string, lines []string) (string, int) {
	var parts []string
	n := 0
	for _, l := range lines {
		t, ok := commentText(lang, l)
		if !ok {
			break
		}
		parts = append(parts, t)
		n++
	}
	return collapse(strings.Join(parts, " ")), n
}

// commentText is a whole-line comment's text without its marker.
func commentText(lang, line string) (string, bool) {
	t := strings.TrimSpace(line)
	if lang == "python" {
		if strings.HasPrefix(t, "#") {
			return strings.TrimLeft(t, "# "), true
		}
		return "", false
	}
	switch {
	case strings.HasPrefix(t, "//"):
		return strings.TrimLeft(t, "/! "), true
	case strings.HasPrefix(t, "/*") && strings.HasSuffix(t, "*/"):
		return strings.TrimSpace(strings.Trim(t, "/* ")), true
	}
	return "", false
}

// codeAfter is the code lines at the start of lines: up to maxCommentCode,
// ending at a blank line (after some code), a comment or the end.
func codeAfter(lang string, lines []string) string {
	var out []string
	for _, l := range lines {
		if _, ok := commentText(lang, l); ok || len(out) == maxCommentCode {
			break
		}
		if strings.TrimSpace(l) == "" {
			if len(out) > 0 {
				break
			}
			continue
		}
		out = append(out, l)
	}
	// A lone closing brace or a dedent to the definition's end is no code.
	for len(out) > 0 && strings.Trim(strings.TrimSpace(out[len(out)-1]), "})];,") == "" {
		out = out[:len(out)-1]
	}
	return dedent(out)
}

// dedent removes the indentation common to all lines.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
	}
	return strings.Join(lines, "\n")
}

// fragment matches a comment that continues an earlier one rather than
// saying something on its own.
var fragment = regexp.MustCompile(`^(\.\.\.|(?i:and|or|but|so|then|also|otherwise|else)\b)`)

var codeish = regexp.MustCompile(`[;{}]\s*$|^\s*(if|for|while|return|var|let|const|func|def|import|from)\b.*[(:=]|\w+\([^)]*\)\s*$|^[\w.]+\s*[:=]=?\s`)

// looksLikeCode reports whether a comment is commented-out code.
func looksLikeCode(text string) bool {
	if codeish.MatchString(text) {
		return true
	}
	letters := 0
	for _, r := range text {
		if r == ' ' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			letters++
		}
	}
	return float64(letters) < 0.8*float64(len([]rune(text)))
}
