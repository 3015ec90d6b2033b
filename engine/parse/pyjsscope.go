package parse

import (
	"sort"
	"strings"
)

// The scope table behind Ref.QualifierType for Python and JavaScript/TypeScript.
// Everything comes from query matches (scopes, bindings, attribute types) as
// byte ranges, so no handler walks the tree for it; finish() sorts the scopes
// into a tree once and answers each call's qualifier by interval lookups.
//
// A binding applies from where it is written to the end of its scope (the
// innermost block, or the function for a JS var or a parameter). The latest
// binding that applies wins, and a different rebinding of the same variable
// in between that does not apply (one made in a branch) makes the type
// unknown rather than a guess. An untyped binding still shadows.

// Scope kinds.
const (
	scopeBlock = iota // Python block; JS statement block, for, catch, switch body
	scopeFn           // a function, method, lambda or (Python) comprehension
	scopeArrow        // a JS arrow function: a function that keeps `this`
	scopeClass
)

type tscope struct {
	start, end int
	kind       uint8
	name       string // class name; function name (to find __init__ / constructor)
	parent     int    // enclosing scope, -1 for the file
}

type tbind struct {
	name      string
	typ       string // "" unknown: it still shadows
	at, off   int    // where it is written; where it takes effect
	fnScoped  bool   // JS var and function parameters: the enclosing function
	assign    bool   // rebinds an existing variable (every Python binding; JS x = ...)
	annotated bool   // the type is declared, not inferred
	end, fn   int    // computed: end of its range; its function scope (-1: the file)
}

// tattr is a candidate type of an instance attribute: `db: DB` in a class
// body, self.db = DB() in __init__, this.db = new DB() in a constructor.
type tattr struct {
	name, typ string
	ref       string // the type is that of this variable at `at` (self.db = db)
	at        int
	explicit  bool // an annotation, which wins over inferred types
	ctor      bool // written in the constructor, not the class body
}

type attrKey struct {
	class int
	name  string
}

type typeTable struct {
	scopes []tscope
	binds  []tbind
	attrs  []tattr
	minOff int
	ctor   string // "__init__" or "constructor"
	py     bool   // Python scoping: a name bound in a function is local to all of it

	byName map[string][]int // bindings by name, in order of off
	local  map[attrKey]bool // (function scope, name) pairs that have a binding
	attrTy map[attrKey]string
}

// sync drops what an earlier tree found at or after the point error recovery
// re-parses from (the extractor drops refs and defs there the same way).
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
	bs := t.binds[:0]
	for _, b := range t.binds {
		if b.at < cut {
			bs = append(bs, b)
		}
	}
	t.binds = bs
	as := t.attrs[:0]
	for _, a := range t.attrs {
		if a.at < cut {
			as = append(as, a)
		}
	}
	t.attrs = as
}

func (t *typeTable) addScope(start, end int, kind uint8, name string) {
	if start >= t.minOff {
		t.scopes = append(t.scopes, tscope{start: start, end: end, kind: kind, name: name})
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

// prepare nests the scopes, gives each binding its range, and moves Python
// class-body bindings to the class's attributes.
func (t *typeTable) prepare(fileEnd int) {
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
	t.byName = map[string][]int{}
	t.local = map[attrKey]bool{}
	for i := range t.binds {
		b := &t.binds[i]
		s := t.innermost(b.at)
		if t.py {
			if c := t.climbBlocks(s); c >= 0 && t.scopes[c].kind == scopeClass {
				t.attrs = append(t.attrs, tattr{name: b.name, typ: b.typ, at: b.at, explicit: b.annotated})
				b.name = ""
				continue
			}
		}
		if b.fnScoped {
			s = t.fnOf(s)
		}
		b.end = fileEnd
		if s >= 0 {
			b.end = t.scopes[s].end
		}
		b.fn = t.fnOf(s)
		t.byName[b.name] = append(t.byName[b.name], i)
		t.local[attrKey{b.fn, b.name}] = true
	}
	t.attrTypes()
}

// innermost returns the innermost scope containing off, or -1.
func (t *typeTable) innermost(off int) int {
	i := sort.Search(len(t.scopes), func(i int) bool { return t.scopes[i].start > off }) - 1
	for i >= 0 && t.scopes[i].end <= off {
		i = t.scopes[i].parent
	}
	return i
}

// climbBlocks returns s or its first enclosing scope that is not a block.
func (t *typeTable) climbBlocks(s int) int {
	for s >= 0 && t.scopes[s].kind == scopeBlock {
		s = t.scopes[s].parent
	}
	return s
}

// fnOf returns the function scope s is in (s itself if it is one), or -1;
// class scopes are passed over, as a class body does not enclose its methods.
func (t *typeTable) fnOf(s int) int {
	for s >= 0 && t.scopes[s].kind != scopeFn && t.scopes[s].kind != scopeArrow {
		s = t.scopes[s].parent
	}
	return s
}

// attrTypes decides each class attribute's type: the annotation when there
// is exactly one, else the inferred types when they all agree.
func (t *typeTable) attrTypes() {
	type acc struct {
		explicit, inferred string
		nExp, nInf         int
		conflict           [2]bool
	}
	accs := map[attrKey]*acc{}
	for _, a := range t.attrs {
		cls := t.classOfAttr(a)
		if cls < 0 {
			continue
		}
		typ := a.typ
		if a.ref != "" {
			typ = t.lookup(a.ref, a.at)
		}
		k := attrKey{cls, a.name}
		c := accs[k]
		if c == nil {
			c = &acc{}
			accs[k] = c
		}
		if a.explicit {
			if c.nExp > 0 && c.explicit != typ {
				c.conflict[0] = true
			}
			c.explicit, c.nExp = typ, c.nExp+1
		} else {
			if c.nInf > 0 && c.inferred != typ {
				c.conflict[1] = true
			}
			c.inferred, c.nInf = typ, c.nInf+1
		}
	}
	t.attrTy = map[attrKey]string{}
	for k, c := range accs {
		switch {
		case c.nExp > 0 && !c.conflict[0]:
			t.attrTy[k] = c.explicit
		case c.nExp == 0 && !c.conflict[1]:
			t.attrTy[k] = c.inferred
		}
	}
}

// classOfAttr returns the class an attribute candidate belongs to, or -1 when
// it is written neither in the class body nor in its constructor.
func (t *typeTable) classOfAttr(a tattr) int {
	s := t.climbBlocks(t.innermost(a.at))
	if a.ctor {
		for s >= 0 && t.scopes[s].kind == scopeArrow {
			s = t.climbBlocks(t.scopes[s].parent)
		}
		if s < 0 || t.scopes[s].kind != scopeFn || t.scopes[s].name != t.ctor {
			return -1
		}
		s = t.climbBlocks(t.scopes[s].parent)
	}
	if s < 0 || t.scopes[s].kind != scopeClass {
		return -1
	}
	return s
}

// lookup returns the type of variable name at off ("" when unknown). In
// Python a name bound anywhere in a function is local to all of it.
func (t *typeTable) lookup(name string, off int) string {
	idx := t.byName[name]
	if len(idx) == 0 {
		return ""
	}
	target := -2 // any function scope
	if t.py {
		target = -1
		for f := t.fnOf(t.innermost(off)); f >= 0; f = t.fnOf(t.scopes[f].parent) {
			if t.local[attrKey{f, name}] {
				target = f
				break
			}
		}
	}
	ub := sort.Search(len(idx), func(i int) bool { return t.binds[idx[i]].off > off })
	best := -1
	for j := ub - 1; j >= 0; j-- {
		b := &t.binds[idx[j]]
		if b.end > off && (target == -2 || b.fn == target) {
			best = j
			break
		}
	}
	if best < 0 {
		return ""
	}
	bb := &t.binds[idx[best]]
	for j := best + 1; j < ub; j++ {
		if b := &t.binds[idx[j]]; b.assign && b.fn == bb.fn && b.typ != bb.typ {
			return "" // rebound differently on some path
		}
	}
	return bb.typ
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

// Pending qualifier types: a handler records what to look up when it sees the
// call, and resolve answers it once every binding is known.
const (
	pendVar  = "\x00v" // + variable name
	pendThis = "\x00t" // self, this, cls, super
	pendAttr = "\x00a" // + attribute of self/this
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
			t.prepare(len(x.src))
			prepared = true
		}
		q := r.qualType
		r.qualType = ""
		switch {
		case strings.HasPrefix(q, pendVar):
			r.qualType = t.lookup(q[len(pendVar):], r.off)
		case q == pendThis:
			if c := t.thisClass(r.off); c >= 0 {
				r.qualType = t.scopes[c].name
			}
		case strings.HasPrefix(q, pendAttr):
			if c := t.thisClass(r.off); c >= 0 {
				r.qualType = t.attrTy[attrKey{c, q[len(pendAttr):]}]
			}
		}
	}
}
