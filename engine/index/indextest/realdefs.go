package indextest

import (
	"regexp"
	"slices"
	"strings"
)

// Definitions of a real source file, found by their header lines, for the
// changes the soak makes to real trees (realops.go): a body edited, a
// signature or a base changed, a definition renamed or moved to another
// file. The finder is line-based and approximate, as an editor's would be; a
// change it makes may not parse, which the index must take like any other.

// realDef is one definition of a file: lines [start, end) of its text.
type realDef struct {
	name       string
	start, end int
	indent     string
	class      bool // a class or a type, rather than a function or a method
}

var (
	pyDefRE = regexp.MustCompile(`^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)`)
	goDefRE = regexp.MustCompile(`^()(?:func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*[\[(]|type\s+([A-Za-z_]\w*)\s+(?:struct|interface)\s*\{)`)
	jsFnRE  = regexp.MustCompile(`^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*([A-Za-z_$][\w$]*)|class\s+([A-Za-z_$][\w$]*))`)
	jsMetRE = regexp.MustCompile(`^(\s{2,4})(?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*\{\s*$`)
)

var jsKeywords = []string{"if", "for", "while", "switch", "catch", "function", "return", "with"}

// findDefs lists the definitions of src in language l (go, py, js, ts).
func findDefs(l, src string) []realDef {
	lines := strings.Split(src, "\n")
	var out []realDef
	for i, line := range lines {
		d, ok := defHeader(l, line)
		if !ok {
			continue
		}
		d.start = i
		if l == "py" {
			d.end = pyEnd(lines, i, d.indent)
		} else {
			d.end = braceEnd(lines, i, d.indent)
		}
		if d.end > d.start {
			out = append(out, d)
		}
	}
	return out
}

// defHeader reports whether line opens a definition, and which.
func defHeader(l, line string) (realDef, bool) {
	switch l {
	case "py":
		if m := pyDefRE.FindStringSubmatch(line); m != nil {
			return realDef{name: m[3], indent: m[1], class: m[2] == "class"}, true
		}
	case "go":
		if m := goDefRE.FindStringSubmatch(line); m != nil {
			if m[3] != "" {
				return realDef{name: m[3], class: true}, true
			}
			return realDef{name: m[2]}, true
		}
	default:
		if m := jsFnRE.FindStringSubmatch(line); m != nil && m[2]+m[3] != "" {
			return realDef{name: m[2] + m[3], indent: m[1], class: m[3] != ""}, true
		}
		if m := jsMetRE.FindStringSubmatch(line); m != nil && !slices.Contains(jsKeywords, m[2]) {
			return realDef{name: m[2], indent: m[1]}, true
		}
	}
	return realDef{}, false
}

// pyEnd is the line after a Python definition opened at line i: the next
// non-blank line indented no deeper than it (a closing bracket of a header
// split over lines does not end it).
func pyEnd(lines []string, i int, indent string) int {
	for j := i + 1; j < len(lines); j++ {
		s := lines[j]
		trimmed := strings.TrimLeft(s, " \t")
		if trimmed == "" || strings.HasPrefix(trimmed, ")") || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if len(s)-len(trimmed) <= len(indent) {
			return trimBlank(lines, i, j)
		}
	}
	return trimBlank(lines, i, len(lines))
}

// trimBlank moves end back over blank lines.
func trimBlank(lines []string, start, end int) int {
	for end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return end
}

// braceEnd is the line after a braced definition opened at line i: the line
// after the first closing brace at its indentation (the header's line when
// it opens and closes there).
func braceEnd(lines []string, i int, indent string) int {
	h := strings.TrimSpace(lines[i])
	if strings.HasSuffix(h, "}") && strings.Count(h, "{") == strings.Count(h, "}") {
		return i + 1
	}
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(lines[j], indent+"}") {
			return j + 1
		}
		if s := strings.TrimLeft(lines[j], " \t"); s != "" && len(lines[j])-len(s) < len(indent) {
			return -1 // left the enclosing block: not a definition this finder can bound
		}
	}
	return -1
}

// headerEnd is the last line of d's header: the first line from its start
// that ends its header (":" in Python, "{" elsewhere).
func headerEnd(l string, lines []string, d realDef) int {
	for j := d.start; j < d.end; j++ {
		s := strings.TrimSpace(stripComment(l, lines[j]))
		if l == "py" && strings.HasSuffix(s, ":") || l != "py" && strings.HasSuffix(s, "{") {
			return j
		}
	}
	return d.start
}

func stripComment(l, s string) string {
	mark := "//"
	if l == "py" {
		mark = "#"
	}
	if i := strings.Index(s, mark); i >= 0 {
		return s[:i]
	}
	return s
}

// bodyIndent is the indentation of d's first body line (one level deeper
// than its header when it has none).
func bodyIndent(l string, lines []string, d realDef, after int) string {
	for j := after + 1; j < d.end; j++ {
		if s := strings.TrimLeft(lines[j], " \t"); s != "" {
			return lines[j][:len(lines[j])-len(s)]
		}
	}
	if l == "go" {
		return d.indent + "\t"
	}
	return d.indent + "    "
}
