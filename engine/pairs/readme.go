package pairs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// maxSection caps a readme query, in bytes.
const maxSection = 600

// maxSectionPairs caps the pairs one section gives.
const maxSectionPairs = 3

// readmeDoc reports whether a Markdown file is prose about the code: a
// README anywhere, or a file under doc/ or docs/; change logs and licences
// are not.
func readmeDoc(p string) bool {
	low := strings.ToLower(p)
	base := filepath.Base(low)
	for _, no := range []string{"change", "history", "license", "licence", "contributing", "code_of_conduct", "security", "release", "authors", "news"} {
		if strings.Contains(base, no) {
			return false
		}
	}
	return strings.HasPrefix(base, "readme") || strings.HasPrefix(low, "doc/") || strings.HasPrefix(low, "docs/") ||
		strings.Contains(low, "/doc/") || strings.Contains(low, "/docs/")
}

// readmePairs reads the repository's Markdown and gives each section
// (heading and paragraph text) → the definitions its code spans name, when a
// name resolves to exactly one definition.
func readmePairs(r *repo, emit func(Pair)) {
	for _, p := range r.docs {
		if !readmeDoc(p) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(p)))
		if err != nil || len(b) > 1<<20 {
			continue
		}
		for _, sec := range sections(string(b)) {
			sectionPairs(r, p, sec, emit)
		}
	}
}

// section is one paragraph of Markdown prose under its heading, and the
// code spans the paragraph holds.
type section struct {
	heading string
	text    string
	spans   []string
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag  = regexp.MustCompile(`<[^>]+>`)
	identEnd = regexp.MustCompile(`([A-Za-z_$][A-Za-z0-9_$]*)\s*(\(.*\))?\s*$`)
)

// sections splits Markdown into paragraphs under their headings; fenced
// code, tables and badges are left out.
func sections(md string) []section {
	var out []section
	heading := ""
	cur := section{}
	var text []string
	flush := func() {
		cur.text = collapse(strings.Join(text, " "))
		if cur.text != "" {
			cur.heading = heading
			out = append(out, cur)
		}
		cur, text = section{}, nil
	}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if strings.HasPrefix(t, "#") {
			flush()
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			continue
		}
		if t == "" {
			flush()
			continue
		}
		if strings.HasPrefix(t, "|") || strings.HasPrefix(t, "[!") || strings.HasPrefix(t, "<!--") {
			continue // tables, badges, comments
		}
		for _, m := range codeSpan.FindAllStringSubmatch(t, -1) {
			cur.spans = append(cur.spans, m[1])
		}
		text = append(text, t)
	}
	flush()
	return out
}

// sectionPairs emits the section's pairs.
func sectionPairs(r *repo, p string, sec section, emit func(Pair)) {
	body := mdLink.ReplaceAllString(sec.text, "$1")
	body = htmlTag.ReplaceAllString(body, " ")
	body = strings.NewReplacer("`", "", "**", "", "__", "", "*", "").Replace(body)
	q := clip(collapse(strings.TrimSpace(sec.heading+". "+body)), maxSection)
	if sec.heading == "" {
		q = clip(collapse(body), maxSection)
	}
	if trivialText(body) {
		return
	}
	seen := map[string]bool{}
	n := 0
	for _, span := range sec.spans {
		m := identEnd.FindStringSubmatch(span)
		if m == nil || len(m[1]) < 4 || seen[m[1]] || !apiName(span, m[1], r.name) {
			continue
		}
		seen[m[1]] = true
		d, ok := r.resolve(m[1])
		if !ok {
			continue
		}
		emit(Pair{Kind: "readme", Query: q, Code: codeOf(d.file, d.idx), Repo: r.name, Path: d.file.path,
			Symbol: d.sym().QualifiedName})
		if n++; n == maxSectionPairs {
			return
		}
	}
}

// apiName reports whether a code span names an API rather than a word or
// the package itself: a call, a qualified name, or a mixed-case or
// snake_case identifier that is not the package's name.
func apiName(span, name, repoName string) bool {
	if strings.Contains(strings.ToLower(repoName), strings.ToLower(name)) {
		return false
	}
	if strings.ContainsAny(span, "(.") || strings.Contains(name, "_") {
		return true
	}
	return strings.ToLower(name) != name && strings.ToUpper(name) != name
}
