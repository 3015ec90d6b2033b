package indextest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The changes the soak (engine/index soak_test.go) makes to real trees, on top
// of Ops's: a real definition's body edited (a call added, a line deleted),
// its signature changed, it renamed with its uses in its file, a class's base
// or a Go struct's embedded type changed, an import added or removed, a
// top-level definition moved to another file, and every uncommitted change
// discarded (an editor's undo, git restore).
const (
	OpEditBody  OpKind = "edit-body"
	OpSignature OpKind = "change-signature"
	OpRenameDef OpKind = "rename-definition"
	OpBase      OpKind = "change-base"
	OpImport    OpKind = "change-import"
	OpMoveReal  OpKind = "move-real-definition"
	OpRevert    OpKind = "revert-working-tree"
)

var realWeights = []opWeight{
	{OpEditBody, 10}, {OpSignature, 4}, {OpRenameDef, 3}, {OpBase, 3}, {OpImport, 4}, {OpMoveReal, 3},
	{OpRevert, 2}, {OpAddDef, 3}, {OpRemoveDef, 1}, {OpMoveDef, 1}, {OpChangeDef, 1}, {OpTouch, 1},
	{OpAddFile, 2}, {OpDeleteFile, 1}, {OpRenameFile, 2}, {OpCommit, 5}, {OpSwitch, 2},
}

// RealOps generates n changes for a real tree from seed (see Ops).
func RealOps(seed uint64, n int) []Op {
	return drawOps(rand.New(rand.NewPCG(seed, seed^0x7ea1)), realWeights, n)
}

// NewRealTree wraps a real repository at root, on branch main, for Apply:
// the names its generated definitions call are the tree's own.
func NewRealTree(t testing.TB, root string) *Tree {
	tr := NewTree(t, root)
	tr.names, tr.types = map[string][]string{}, map[string][]string{}
	for _, p := range tr.sources() {
		l := lang(p)
		for _, d := range findDefs(l, tr.read(p)) {
			if d.class {
				tr.types[l] = appendNew(tr.types[l], d.name)
			} else {
				tr.names[l] = appendNew(tr.names[l], d.name)
			}
		}
	}
	for l := range tr.names {
		tr.names[l] = capNames(tr.names[l])
	}
	for l := range tr.types {
		tr.types[l] = capNames(tr.types[l])
	}
	return tr
}

func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// capNames keeps a sorted sample of at most 300 names: enough to move the
// graph, few enough to scan.
func capNames(xs []string) []string {
	slices.Sort(xs)
	if len(xs) <= 300 {
		return xs
	}
	out := make([]string, 0, 300)
	for i := range 300 {
		out = append(out, xs[i*len(xs)/300])
	}
	return out
}

// applyReal makes one of the real-tree changes.
func (tr *Tree) applyReal(o Op) string {
	switch o.Kind {
	case OpEditBody, OpSignature, OpRenameDef, OpBase:
		return tr.editDef(o)
	case OpImport:
		return tr.changeImport(o)
	case OpMoveReal:
		return tr.moveRealDef(o)
	case OpRevert:
		return tr.revert()
	}
	return ""
}

// located is a definition with its file.
type located struct {
	path string
	def  realDef
}

// realDefs lists the definitions of every source file, classes only when
// classes is set.
func (tr *Tree) realDefs(classes, topOnly bool) []located {
	var out []located
	for _, p := range tr.sources() {
		for _, d := range findDefs(lang(p), tr.read(p)) {
			if (!classes || d.class) && (!topOnly || d.indent == "") {
				out = append(out, located{p, d})
			}
		}
	}
	return out
}

// editDef changes one real definition: its body, signature, name or base.
func (tr *Tree) editDef(o Op) string {
	x, ok := pick(tr.realDefs(o.Kind == OpBase, false), o.R[0])
	if !ok {
		return ""
	}
	l := lang(x.path)
	lines := strings.Split(tr.read(x.path), "\n")
	var did string
	switch o.Kind {
	case OpEditBody:
		lines, did = tr.editBody(l, lines, x.def, o)
	case OpSignature:
		lines, did = addParam(l, lines, x.def, o.ID)
	case OpRenameDef:
		lines, did = tr.renameDef(l, lines, x.def, o.ID)
	case OpBase:
		lines, did = tr.changeBase(l, lines, x.def, o.R[2])
	}
	if did == "" {
		return ""
	}
	tr.write(x.path, strings.Join(lines, "\n"))
	return fmt.Sprintf("%s %s in %s", did, x.def.name, x.path)
}

// editBody adds a call to a known name after the header, or deletes a line
// of the body.
func (tr *Tree) editBody(l string, lines []string, d realDef, o Op) ([]string, string) {
	h := headerEnd(l, lines, d)
	if o.R[3] < 0.35 && d.end-h > 3 {
		at := h + 1 + int(o.R[1]*float64(d.end-h-2))
		return slices.Delete(lines, at, at+1), fmt.Sprintf("delete line %d of", at+1)
	}
	callee, ok := pick(tr.names[l], o.R[2])
	if !ok {
		return lines, ""
	}
	ind := bodyIndent(l, lines, d, h)
	var stmt string
	switch l {
	case "py":
		stmt = fmt.Sprintf("%sedit_%d = %s(self)", ind, o.ID, callee)
	case "go":
		stmt = fmt.Sprintf("%s_ = %s()", ind, callee)
	default:
		stmt = fmt.Sprintf("%s%s(this);", ind, callee)
	}
	return slices.Insert(lines, h+1, stmt), "call " + callee + " from"
}

// addParam adds a parameter to d's parameter list (the parentheses after
// its name).
func addParam(l string, lines []string, d realDef, id int) ([]string, string) {
	text := strings.Join(lines[d.start:d.end], "\n")
	open := strings.Index(text, d.name+"(")
	if open < 0 {
		return lines, ""
	}
	open += len(d.name)
	closeAt := matchParen(text, open)
	if closeAt < 0 {
		return lines, ""
	}
	param := map[string]string{"py": "extra%d=None", "go": "extra%d int"}[l]
	if param == "" {
		param = "extra%d"
	}
	param = fmt.Sprintf(param, id)
	if strings.TrimSpace(text[open+1:closeAt]) != "" {
		param = ", " + param
	}
	text = text[:closeAt] + param + text[closeAt:]
	return slices.Concat(lines[:d.start], strings.Split(text, "\n"), lines[d.end:]), "add a parameter to"
}

// matchParen is the index of the parenthesis closing the one at open.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// renameDef renames d and every use of its name in its file.
func (tr *Tree) renameDef(l string, lines []string, d realDef, id int) ([]string, string) {
	name := fmt.Sprintf("%sR%d", d.name, id)
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(d.name) + `\b`)
	out := strings.Split(re.ReplaceAllString(strings.Join(lines, "\n"), name), "\n")
	tr.names[l] = appendNew(tr.names[l], name)
	return out, "rename to " + name
}

// changeBase gives a class another base (a Go struct another embedded type).
func (tr *Tree) changeBase(l string, lines []string, d realDef, r float64) ([]string, string) {
	base, ok := pick(tr.types[l], r)
	if !ok || base == d.name {
		return lines, ""
	}
	h := lines[d.start]
	switch l {
	case "py":
		if i, j := strings.Index(h, "("), strings.LastIndex(h, ")"); i > 0 && j > i {
			lines[d.start] = h[:i+1] + base + h[j:]
		} else if k := strings.LastIndex(h, ":"); k > 0 {
			lines[d.start] = h[:k] + "(" + base + ")" + h[k:]
		} else {
			return lines, ""
		}
	case "go":
		if !strings.Contains(h, "struct") {
			return lines, ""
		}
		lines = slices.Insert(lines, d.start+1, "\t"+base)
	default:
		ext := regexp.MustCompile(`\s+extends\s+[\w$.]+`)
		h = ext.ReplaceAllString(h, "")
		lines[d.start] = strings.Replace(h, d.name, d.name+" extends "+base, 1)
	}
	return lines, "base " + base + " for"
}

// revert discards every uncommitted change.
func (tr *Tree) revert() string {
	changed := Git(tr.t, tr.Root, "diff", "--name-only", "--no-renames", "HEAD") + "\n" +
		Git(tr.t, tr.Root, "ls-files", "--others", "--exclude-standard")
	for _, p := range strings.Split(changed, "\n") {
		if p != "" {
			tr.touched[p] = true
		}
	}
	Git(tr.t, tr.Root, "checkout", "-q", "--", ".")
	Git(tr.t, tr.Root, "clean", "-fdq")
	return "revert the working tree"
}

// remove deletes a file of the tree (a helper of the changes above).
func (tr *Tree) remove(rel string) {
	if err := os.Remove(tr.abs(rel)); err != nil {
		tr.t.Fatal(err)
	}
	tr.touched[rel] = true
}
