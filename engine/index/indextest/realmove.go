package indextest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

var (
	pyImportRE = regexp.MustCompile(`^(?:from\s+\S+\s+)?import\s+[^(\\]*$`)
	goImportRE = regexp.MustCompile(`^\t(?:[\w.]+\s+)?"[^"]+"\s*$`)
	jsImportRE = regexp.MustCompile(`^(?:const|let|var)\s+.*=\s*require\(|^import\s.*\sfrom\s`)
	goModRE    = regexp.MustCompile(`(?m)^module\s+(\S+)`)
)

// changeImport removes one import of a file, or adds one of another file of
// its language (a Python module of its directory, a Go package of the
// module, a JavaScript file by relative path).
func (tr *Tree) changeImport(o Op) string {
	p, ok := pick(tr.sources(), o.R[0])
	if !ok {
		return ""
	}
	l := lang(p)
	lines := strings.Split(tr.read(p), "\n")
	re := map[string]*regexp.Regexp{"py": pyImportRE, "go": goImportRE}[l]
	if re == nil {
		re = jsImportRE
	}
	var imports []int
	for i, line := range lines {
		if re.MatchString(line) {
			imports = append(imports, i)
		}
	}
	if at, ok := pick(imports, o.R[1]); ok && o.R[3] < 0.5 {
		gone := lines[at]
		tr.write(p, strings.Join(slices.Delete(lines, at, at+1), "\n"))
		return fmt.Sprintf("remove %q from %s", strings.TrimSpace(gone), p)
	}
	stmt, at := tr.newImport(l, p, lines, imports, o.R[2])
	if stmt == "" {
		return ""
	}
	tr.write(p, strings.Join(slices.Insert(lines, at, stmt), "\n"))
	return fmt.Sprintf("add %q to %s", strings.TrimSpace(stmt), p)
}

// newImport is an import statement for file p of another file of its
// language, and the line to put it at.
func (tr *Tree) newImport(l, p string, lines []string, imports []int, r float64) (string, int) {
	var others []string
	for _, q := range tr.sources() {
		if lang(q) == l && q != p && (l != "py" || filepath.Dir(q) == filepath.Dir(p)) {
			others = append(others, q)
		}
	}
	q, ok := pick(others, r)
	if !ok {
		return "", 0
	}
	at := 0
	if len(imports) > 0 {
		at = imports[len(imports)-1] + 1
	}
	base := strings.TrimSuffix(filepath.Base(q), filepath.Ext(q))
	switch l {
	case "py":
		defs := findDefs(l, tr.read(q))
		if len(defs) == 0 {
			return "", 0
		}
		return fmt.Sprintf("from .%s import %s", base, defs[int(r*1e6)%len(defs)].name), at
	case "go":
		if len(imports) == 0 {
			return "", 0
		}
		mod := goModRE.FindStringSubmatch(tr.readOr("go.mod"))
		if mod == nil {
			return "", 0
		}
		dir := filepath.ToSlash(filepath.Dir(q))
		if dir == "." {
			return "\t\"" + mod[1] + "\"", at
		}
		return "\t\"" + mod[1] + "/" + dir + "\"", at
	}
	rel, err := filepath.Rel(filepath.Dir(p), q)
	if err != nil {
		return "", 0
	}
	if !strings.HasPrefix(rel, ".") {
		rel = "./" + rel
	}
	return fmt.Sprintf("const %s = require('%s');", jsIdent(base), filepath.ToSlash(rel)), at
}

func jsIdent(s string) string {
	return regexp.MustCompile(`[^\w$]`).ReplaceAllString(s, "_") + "Mod"
}

// readOr is a file's content, "" when it cannot be read.
func (tr *Tree) readOr(rel string) string {
	data, err := readFile(tr.abs(rel))
	if err != nil {
		return ""
	}
	return data
}

// moveRealDef moves a top-level definition to the end of another file of its
// language (a Go file of the same package).
func (tr *Tree) moveRealDef(o Op) string {
	x, ok := pick(tr.realDefs(false, true), o.R[0])
	if !ok {
		return ""
	}
	l := lang(x.path)
	var to []string
	for _, q := range tr.sources() {
		if lang(q) == l && q != x.path && (l != "go" || filepath.Dir(q) == filepath.Dir(x.path)) {
			to = append(to, q)
		}
	}
	dst, ok := pick(to, o.R[1])
	if !ok {
		return ""
	}
	lines := strings.Split(tr.read(x.path), "\n")
	start := x.def.start
	for start > 0 && isLeading(l, lines[start-1]) { // its decorators and doc comment go with it
		start--
	}
	moved := strings.Join(lines[start:x.def.end], "\n")
	tr.write(x.path, strings.Join(slices.Delete(lines, start, x.def.end), "\n"))
	tr.appendDef(dst, moved+"\n")
	return fmt.Sprintf("move %s from %s to %s", x.def.name, x.path, dst)
}

// isLeading reports whether a line just above a definition belongs to it: a
// decorator or a comment.
func isLeading(l, line string) bool {
	s := strings.TrimSpace(line)
	if l == "py" {
		return strings.HasPrefix(s, "@") || strings.HasPrefix(s, "#")
	}
	return strings.HasPrefix(s, "//") || strings.HasPrefix(s, "*") || strings.HasPrefix(s, "/*")
}
