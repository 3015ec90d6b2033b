package parse

import (
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// goScopeKinds are the nodes that end a declaration's scope: blocks and the
// statements and clauses whose header declares names.
var goScopeKinds = map[string]bool{
	"block": true, "func_literal": true, "function_declaration": true, "method_declaration": true,
	"for_statement": true, "if_statement": true, "expression_switch_statement": true,
	"type_switch_statement": true, "select_statement": true, "expression_case": true,
	"type_case": true, "default_case": true, "communication_case": true, "source_file": true,
}

// maxScopeScan bounds the declarations of one name passed over in a lookup;
// past it the name counts as declared with an unknown type.
const maxScopeScan = 256

// collect records every variable declaration in the file.
func (t *goTypes) collect(x *extractor) {
	t.vars = map[string][]*goVar{}
	t.pkgVars = map[string]*goVar{}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	ms := qc.Matches(goDecl.query, x.root, x.src)
	for qm := ms.Next(); qm != nil; qm = ms.Next() {
		for _, c := range qm.Captures {
			n := c.Node
			switch goDecl.names[c.Index] {
			case "param", "variadic":
				t.param(x, &n, goDecl.names[c.Index] == "variadic")
			case "short":
				if sc := t.scopeOf(x, &n); sc != nil {
					t.tuple(x, goNamed(x, goField(&n, "left")), goNamed(x, goField(&n, "right")), nil, int(n.EndByte()), sc)
				}
			case "var":
				if sc := t.scopeOf(x, &n); sc != nil {
					t.tuple(x, x.fieldChildren(&n, "name"), goNamed(x, goField(&n, "value")), goField(&n, "type"), int(n.EndByte()), sc)
				}
			case "range", "recv":
				t.untypedAssign(x, &n)
			case "tswitch":
				t.typeSwitch(x, &n)
			}
		}
	}
	for _, vs := range t.vars {
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].start < vs[j].start })
	}
}

// goNamed returns n's named children without comments.
func goNamed(x *extractor, n *sitter.Node) []sitter.Node {
	out := x.named(n)
	k := 0
	for _, ch := range out {
		if !x.isComment(&ch) {
			out[k] = ch
			k++
		}
	}
	return out[:k]
}

func (t *goTypes) scopeOf(x *extractor, n *sitter.Node) *sitter.Node {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if goScopeKinds[x.kind(p)] {
			return p
		}
	}
	return nil
}

func (t *goTypes) add(x *extractor, name *sitter.Node, v *goVar, scope *sitter.Node) {
	if x.kind(name) != "identifier" {
		return
	}
	s := x.text(name)
	if s == "_" {
		return
	}
	if x.kind(scope) == "source_file" {
		// Package-level: visible in the whole file, before it too.
		if _, dup := t.pkgVars[s]; !dup {
			v.start = 0
			t.pkgVars[s] = v
		}
		return
	}
	t.vars[s] = append(t.vars[s], v)
}

// param records a parameter, receiver or named result of a function,
// method or function literal (not of a function type or interface method).
func (t *goTypes) param(x *extractor, n *sitter.Node, variadic bool) {
	list := n.Parent()
	if list == nil {
		return
	}
	fn := list.Parent()
	switch x.kind(fn) {
	case "function_declaration", "method_declaration", "func_literal":
	default:
		return
	}
	ty := goField(n, "type")
	for _, nm := range x.fieldChildren(n, "name") {
		v := &goVar{start: int(list.EndByte()), end: int(fn.EndByte()), typ: ty, untyped: variadic}
		t.add(x, &nm, v, fn)
	}
}

// tuple records names = vals (or names T = vals): positional when the
// counts match; with one value for several names (b, err := NewB()) only
// the first name gets the value's type.
func (t *goTypes) tuple(x *extractor, names, vals []sitter.Node, ty *sitter.Node, start int, scope *sitter.Node) {
	for i := range names {
		v := &goVar{start: start, end: int(scope.EndByte())}
		switch {
		case ty != nil:
			v.typ = ty
		case len(vals) == len(names):
			v.val = &vals[i]
		case len(vals) == 1 && i == 0:
			v.val = &vals[0]
		default:
			v.untyped = true
		}
		t.add(x, &names[i], v, scope)
	}
}

// untypedAssign records the names of `for k, v := range` and `case v :=
// <-ch`: they shadow, but the file does not say their type cheaply.
func (t *goTypes) untypedAssign(x *extractor, n *sitter.Node) {
	left, right := goField(n, "left"), goField(n, "right")
	if left == nil || right == nil || !strings.Contains(x.s[left.EndByte():right.StartByte()], ":=") {
		return
	}
	sc := t.scopeOf(x, n)
	if sc == nil {
		return
	}
	for _, nm := range goNamed(x, left) {
		t.add(x, &nm, &goVar{start: int(n.EndByte()), end: int(sc.EndByte()), untyped: true}, sc)
	}
}

// typeSwitch records `switch v := e.(type)`: v has the case's type in a
// case that names one type, and no known type elsewhere.
func (t *goTypes) typeSwitch(x *extractor, n *sitter.Node) {
	alias := goNamed(x, goField(n, "alias"))
	if len(alias) != 1 {
		return
	}
	start := int(n.EndByte())
	if val := goField(n, "value"); val != nil {
		start = int(val.EndByte())
	}
	t.add(x, &alias[0], &goVar{start: start, end: int(n.EndByte()), untyped: true}, n)
	for _, c := range x.named(n) {
		if x.kind(&c) != "type_case" {
			continue
		}
		var types []sitter.Node
		for _, ty := range x.fieldChildren(&c, "type") {
			if ty.IsNamed() {
				types = append(types, ty)
			}
		}
		if len(types) == 1 {
			t.add(x, &alias[0], &goVar{start: int(c.StartByte()), end: int(c.EndByte()), typ: &types[0]}, &c)
		}
	}
}

// lookup finds the declaration of name visible at off: the latest one
// whose scope contains off (scopes nest, so that is the innermost).
// ok is false when the file does not declare name there (a package, or a
// package-level name of another file).
func (t *goTypes) lookup(name string, off int) (v *goVar, ok bool) {
	vs := t.vars[name]
	i := sort.Search(len(vs), func(i int) bool { return vs[i].start > off })
	for k := i - 1; k >= 0; k-- {
		if i-k > maxScopeScan {
			return nil, true
		}
		if vs[k].end > off {
			return vs[k], true
		}
	}
	v, ok = t.pkgVars[name]
	return v, ok
}

// maxTypeDepth bounds the chain b := a; a := c; ... followed for a type.
const maxTypeDepth = 8

func (t *goTypes) varType(x *extractor, v *goVar, depth int) string {
	if v == nil || v.done || v.busy || depth > maxTypeDepth {
		if v != nil && v.done {
			return v.res
		}
		return ""
	}
	v.busy = true
	switch {
	case v.untyped:
	case v.typ != nil:
		v.res = t.namedType(x, v.typ)
	case v.val != nil:
		v.res = t.exprType(x, v.val, depth+1)
	}
	v.busy, v.done = false, true
	return v.res
}

// exprType is the type of an expression when the file says it cheaply: a
// declared name, a composite literal, a conversion or assertion, a call's
// result ("()F"), a field of a struct declared in the file.
func (t *goTypes) exprType(x *extractor, e *sitter.Node, depth int) string {
	if depth > maxTypeDepth {
		return ""
	}
	switch x.kind(e) {
	case "identifier":
		v, _ := t.lookup(x.text(e), int(e.StartByte()))
		return t.varType(x, v, depth)
	case "parenthesized_expression":
		return t.exprType(x, e.NamedChild(0), depth+1)
	case "unary_expression":
		if op := x.text(goField(e, "operator")); op == "&" || op == "*" {
			return t.exprType(x, goField(e, "operand"), depth+1)
		}
	case "composite_literal", "type_assertion_expression":
		return t.namedType(x, goField(e, "type"))
	case "selector_expression":
		if base := t.exprType(x, goField(e, "operand"), depth+1); base != "" {
			return t.structField(x, base, x.text(goField(e, "field")))
		}
	case "call_expression":
		return t.callType(x, e)
	}
	return ""
}

// callType is the type of a call: new(T) is T, a conversion to a type of the
// file is that type, F() is "()F" and pkg.F() "()pkg.F" for an imported pkg.
func (t *goTypes) callType(x *extractor, e *sitter.Node) string {
	fn := goField(e, "function")
	switch x.kind(fn) {
	case "identifier":
		name := x.text(fn)
		if name == "new" {
			args := goNamed(x, goField(e, "arguments"))
			if len(args) == 1 {
				return t.namedType(x, &args[0])
			}
			return ""
		}
		if goBuiltins[name] || t.isTypeParam(name, int(fn.StartByte())) {
			return ""
		}
		if _, local := t.lookup(name, int(fn.StartByte())); local {
			return "" // a func value
		}
		if t.types[name] {
			return name
		}
		return "()" + name
	case "selector_expression":
		op := goField(fn, "operand")
		if x.kind(op) != "identifier" {
			return ""
		}
		p := x.text(op)
		if _, local := t.lookup(p, int(op.StartByte())); local || !t.imports[p] {
			return ""
		}
		return "()" + p + "." + x.text(goField(fn, "field"))
	}
	return ""
}
