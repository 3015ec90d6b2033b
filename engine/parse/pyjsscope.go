package parse

import (
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The scope table behind Ref.QualifierType for Python and JavaScript/TypeScript.
// Functions and classes come from query matches as byte ranges, so no handler
// walks the tree for them; finish() sorts them into a tree once and answers
// each call's qualifier by interval lookups.
//
// A binding applies from where it is written to the end of its block, or of
// its function for a JS var or a parameter. The latest binding that applies
// wins, and a different rebinding of the same variable in between that does
// not apply (one made in a branch) makes the type unknown rather than a
// guess. An untyped binding still shadows.
//
// Most bindings are never asked about (only names used as a call's qualifier
// are), and every node the Go binding hands out costs a cgo call and an
// allocation, so a binding's type, its block and a function's parameters are
// worked out from their nodes only when a lookup needs them.

// Scope kinds.
const (
	scopeFn    = iota // a function, method, lambda or (Python) comprehension
	scopeArrow        // a JS arrow function: a function that keeps `this`
	scopeClass
)

type tscope struct {
	start, end int
	kind       uint8
	lazy       bool   // node's parameters are not yet bindings
	name       string // class name; function name (to find __init__ / constructor)
	parent     int    // enclosing scope, -1 for the file
	node       sitter.Node
}

type tbind struct {
	name      string
	typ       string // "" unknown: it still shadows
	at, off   int    // where it is written; where it takes effect
	fnScoped  bool   // JS var and parameters: the enclosing function
	assign    bool   // rebinds an existing variable (every Python binding; JS x = ...)
	how       uint8  // != 0: typ is still to be inferred from node (langTypes.infer)
	node      sitter.Node
	end, fn   int // computed: end of its range (0: not yet); its function scope (-1: the file)
	annotated bool
}

// tattr is a candidate type of an instance attribute: `db: DB` in a class
// body, self.db = DB() in __init__, this.db = new DB() in a constructor.
type tattr struct {
	name, typ string
	ref       string // the type is that of this variable at `at` (self.db = db)
	at        int
	explicit  bool  // an annotation, which wins over inferred types
	ctor      bool  // written in the constructor, not the class body
	how       uint8 // as in tbind
	node      sitter.Node
}

type attrKey struct {
	class int
	name  string
}

// langTypes is what the table asks of the language handler, lazily.
type langTypes interface {
	// infer works out the type of a binding or attribute recorded with how.
	infer(x *extractor, n *sitter.Node, how uint8) (typ, ref string, annotated bool)
	// params records the parameters of function scope node as bindings.
	params(x *extractor, n *sitter.Node)
}

type typeTable struct {
	scopes  []tscope
	binds   []tbind
	attrs   []tattr
	minOff  int
	ctor    string          // "__init__" or "constructor"
	py      bool            // Python scoping: a name bound in a function is local to all of it
	blocks  map[string]bool // node kinds that end a block-scoped binding's range
	lang    langTypes
	x       *extractor
	fileEnd int

	byName map[string][]int // bindings by name, in order of off
	attrTy map[attrKey]string
}

// sync drops what an earlier tree found at or after the point error recovery
// re-parses from (the extractor drops refs and defs there the same way).
// Nodes of the old tree stay valid: its tree stays open until the end.
func (t *typeTable) sync(x *extractor) {
	if x.minOff == t.minOff {
		return
	}
	cut := x.minOff
	t.minOff = cut
	sc := t.scopes[:0]
	for _, s := range t.scopes {
		if s.start < cut {
			s.end = min(s.end, cut)
			sc = append(sc, s)
		}
	}
	t.scopes = sc
	t.binds = keepBefore(t.binds, cut, func(e tbind) int { return e.at })
	t.attrs = keepBefore(t.attrs, cut, func(e tattr) int { return e.at })
}

// addScope records a scope; a function node's parameters are bound lazily.
func (t *typeTable) addScope(n *sitter.Node, kind uint8, name string) {
	if s := int(n.StartByte()); s >= t.minOff {
		t.scopes = append(t.scopes, tscope{start: s, end: int(n.EndByte()), kind: kind, name: name, node: *n, lazy: kind != scopeClass})
	}
}

func (t *typeTable) addBind(b tbind) {
	if b.at >= t.minOff && b.name != "" {
		t.binds = append(t.binds, b)
	}
}

func (t *typeTable) addAttr(a tattr) {
	if a.at >= t.minOff && a.name != "" {
		t.attrs = append(t.attrs, a)
	}
}

// prepare nests the scopes, indexes the bindings by name, and moves Python
// class-body bindings to the class's attributes.
func (t *typeTable) prepare(x *extractor) {
	t.x, t.fileEnd, t.minOff = x, len(x.src), 0
	sort.Slice(t.scopes, func(i, j int) bool {
		a, b := t.scopes[i], t.scopes[j]
		if a.start != b.start {
			return a.start < b.start
		}
		return a.end > b.end
	})
	var stack []int
	for i := range t.scopes {
		s := &t.scopes[i]
		for len(stack) > 0 && t.scopes[stack[len(stack)-1]].end < s.end {
			stack = stack[:len(stack)-1]
		}
		s.parent = -1
		if len(stack) > 0 {
			s.parent = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	sort.SliceStable(t.binds, func(i, j int) bool { return t.binds[i].off < t.binds[j].off })
	t.byName = make(map[string][]int, len(t.binds))
	for i := range t.binds {
		b := &t.binds[i]
		s := t.innermost(b.at)
		if t.py && s >= 0 && t.scopes[s].kind == scopeClass {
			t.attrs = append(t.attrs, tattr{name: b.name, typ: b.typ, at: b.at, how: b.how, node: b.node})
			continue
		}
		t.index(i, s)
	}
	t.attrTy = map[attrKey]string{}
}

// index files binding i, written in scope s, under its name.
func (t *typeTable) index(i, s int) {
	b := &t.binds[i]
	b.fn = t.fnOf(s)
	if b.fnScoped {
		b.end = t.fileEnd
		if b.fn >= 0 {
			b.end = t.scopes[b.fn].end
		}
	}
	idx := t.byName[b.name]
	j := sort.Search(len(idx), func(j int) bool { return t.binds[idx[j]].off > b.off })
	idx = append(idx, 0)
	copy(idx[j+1:], idx[j:])
	idx[j] = i
	t.byName[b.name] = idx
}

// expandParams binds the parameters of function scope s, once.
func (t *typeTable) expandParams(s int) {
	sc := &t.scopes[s]
	if !sc.lazy {
		return
	}
	sc.lazy = false
	before := len(t.binds)
	t.lang.params(t.x, &sc.node)
	for i := before; i < len(t.binds); i++ {
		t.binds[i].fnScoped = true
		t.index(i, s)
	}
}

// innermost returns the innermost scope containing off, or -1.
func (t *typeTable) innermost(off int) int {
	i := sort.Search(len(t.scopes), func(i int) bool { return t.scopes[i].start > off }) - 1
	for i >= 0 && t.scopes[i].end <= off {
		i = t.scopes[i].parent
	}
	return i
}

// fnOf returns the function scope s is in (s itself if it is one), or -1;
// class scopes are passed over, as a class body does not enclose its methods.
func (t *typeTable) fnOf(s int) int {
	for s >= 0 && t.scopes[s].kind == scopeClass {
		s = t.scopes[s].parent
	}
	return s
}

// endOf returns where b stops applying: the end of the innermost block,
// function or class around its node.
func (t *typeTable) endOf(b *tbind) int {
	if b.end == 0 {
		b.end = t.fileEnd
		for p := b.node.Parent(); p != nil; p = p.Parent() {
			if t.blocks[t.x.kind(p)] {
				b.end = int(p.EndByte())
				break
			}
		}
	}
	return b.end
}

func (t *typeTable) typeOf(b *tbind) string {
	if b.how != 0 {
		b.typ, _, b.annotated = t.lang.infer(t.x, &b.node, b.how)
		b.how = 0
	}
	return b.typ
}

// lookup returns the type of variable name at off ("" when unknown). In
// Python a name bound anywhere in a function is local to all of it.
func (t *typeTable) lookup(name string, off int) string {
	var chain [16]int
	n := 0
	for f := t.fnOf(t.innermost(off)); f >= 0 && n < len(chain); f = t.fnOf(t.scopes[f].parent) {
		t.expandParams(f)
		chain[n] = f
		n++
	}
	idx := t.byName[name]
	if len(idx) == 0 {
		return ""
	}
	target := -2 // any function scope
	if t.py {
		target = -1
	search:
		for _, f := range chain[:n] {
			for _, i := range idx {
				if t.binds[i].fn == f {
					target = f
					break search
				}
			}
		}
	}
	ub := sort.Search(len(idx), func(i int) bool { return t.binds[idx[i]].off > off })
	best := -1
	for j := ub - 1; j >= 0; j-- {
		b := &t.binds[idx[j]]
		if (target == -2 || b.fn == target) && t.endOf(b) > off {
			best = j
			break
		}
	}
	if best < 0 {
		return ""
	}
	bb := &t.binds[idx[best]]
	typ := t.typeOf(bb)
	for j := best + 1; j < ub; j++ {
		if b := &t.binds[idx[j]]; b.assign && b.fn == bb.fn && t.typeOf(b) != typ {
			return "" // rebound differently on some path
		}
	}
	return typ
}

// attrType is the type of attribute name of class scope cls: the annotation
// when there is exactly one, else the inferred types when they all agree.
func (t *typeTable) attrType(cls int, name string) string {
	k := attrKey{cls, name}
	if typ, ok := t.attrTy[k]; ok {
		return typ
	}
	var explicit, inferred string
	nExp, nInf, conflict := 0, 0, [2]bool{}
	for i := range t.attrs {
		a := &t.attrs[i]
		if a.name != name || t.classOfAttr(a) != cls {
			continue
		}
		if a.how != 0 {
			a.typ, a.ref, a.explicit = t.lang.infer(t.x, &a.node, a.how)
			a.how = 0
		}
		typ := a.typ
		if a.ref != "" {
			typ = t.lookup(a.ref, a.at)
		}
		if a.explicit {
			conflict[0] = conflict[0] || (nExp > 0 && explicit != typ)
			explicit, nExp = typ, nExp+1
		} else {
			conflict[1] = conflict[1] || (nInf > 0 && inferred != typ)
			inferred, nInf = typ, nInf+1
		}
	}
	typ := ""
	switch {
	case nExp > 0 && !conflict[0]:
		typ = explicit
	case nExp == 0 && !conflict[1]:
		typ = inferred
	}
	t.attrTy[k] = typ
	return typ
}

// classOfAttr returns the class an attribute candidate belongs to, or -1 when
// it is written neither in the class body nor in its constructor.
func (t *typeTable) classOfAttr(a *tattr) int {
	s := t.innermost(a.at)
	if a.ctor {
		for s >= 0 && t.scopes[s].kind == scopeArrow {
			s = t.scopes[s].parent
		}
		if s < 0 || t.scopes[s].kind != scopeFn || t.scopes[s].name != t.ctor {
			return -1
		}
		s = t.scopes[s].parent
	}
	if s < 0 || t.scopes[s].kind != scopeClass {
		return -1
	}
	return s
}

// thisClass returns the scope of the class whose instance self/this is at
// off, or -1. In JavaScript only methods and arrow functions (or field
// initialisers) in a class body see the instance; in Python any function
// inside the class does.
func (t *typeTable) thisClass(off int) int {
	inFn := false
	for s := t.innermost(off); s >= 0; s = t.scopes[s].parent {
		sc := &t.scopes[s]
		switch sc.kind {
		case scopeClass:
			if (t.py && !inFn) || sc.name == "" {
				return -1
			}
			return s
		case scopeFn:
			if !t.py {
				// A method's scope sits directly in its class; a function's does not.
				if p := sc.parent; p < 0 || t.scopes[p].kind != scopeClass {
					return -1
				}
			}
			inFn = true
		}
	}
	return -1
}

// Pending qualifier types: a handler marks what to look up when it sees the
// call (the name is the qualifier itself), and resolve answers it once every
// binding is known.
const (
	pendVar  = "\x00v" // the qualifier is a variable
	pendThis = "\x00t" // self, this, cls, super
	pendAttr = "\x00a" // the qualifier is self.attr / this.attr
)

// resolve replaces the pending qualifier types of x's refs.
func (t *typeTable) resolve(x *extractor) {
	prepared := false
	for i := range x.refs {
		r := &x.refs[i]
		if r.qualType == "" || r.qualType[0] != 0 {
			continue
		}
		if !prepared {
			t.prepare(x)
			prepared = true
		}
		q := r.qualType
		r.qualType = ""
		switch q {
		case pendVar:
			r.qualType = t.lookup(r.qualifier, r.off)
		case pendThis:
			if c := t.thisClass(r.off); c >= 0 {
				r.qualType = t.scopes[c].name
			}
		case pendAttr:
			_, attr, _ := strings.Cut(r.qualifier, ".")
			if c := t.thisClass(r.off); c >= 0 {
				r.qualType = t.attrType(c, attr)
			}
		}
	}
}
