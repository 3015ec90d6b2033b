package main

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

// section is a Markdown heading with the prose under it and the code spans
// that prose holds.
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

// sections splits Markdown into sections; fenced code is left out.
func sections(md string) []section {
	var out []section
	cur := section{}
	var text []string
	flush := func() {
		cur.text = collapse(strings.Join(text, " "))
		if cur.heading != "" || cur.text != "" {
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
			cur.heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
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
		if m == nil || len(m[1]) < 3 || seen[m[1]] {
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
