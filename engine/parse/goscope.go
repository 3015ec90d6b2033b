package parse

import (
	"slices"
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// maxScopeScan bounds the declarations of one name passed over in a lookup;
// past it the name counts as declared with an unknown type.
const maxScopeScan = 256

// collect records the variable declarations that a lookup can reach: only
// in top-level declarations holding a qualifier worth typing, only before
// the last such qualifier (a later declaration cannot be visible to it), and
// only of the names those qualifiers use, directly or through the values of
// the declarations recorded (hence the walk backwards).
func (t *goTypes) collect(x *extractor) {
	t.vars = map[string][]*goVar{}
	units := x.topLevel()
	spans := make([]span, len(units))
	for i := range units {
		spans[i] = span{int(units[i].StartByte()), int(units[i].EndByte())}
	}
	unitOf := func(off int) int {
		u := sort.Search(len(spans), func(k int) bool { return spans[k].end > off })
		if u < len(spans) && spans[u].start <= off {
			return u
		}
		return -1
	}
	upto := make([]int, len(units))
	want := map[string]bool{}
	for i := range t.quals {
		q := &t.quals[i]
		if u := unitOf(q.off); u >= 0 && !t.importChain(q.text) {
			upto[u] = max(upto[u], q.off+1)
			want[leadName(q.text)] = true
		}
	}
	slices.SortStableFunc(t.decls, func(a, b goDeclNode) int { return a.start - b.start })
	for i := len(t.decls) - 1; i >= 0; i-- {
		d := &t.decls[i]
		u := unitOf(d.start)
		if u < 0 || d.start >= upto[u] {
			continue
		}
		switch {
		case d.tag == "local.fn":
			t.params(x, &d.n, want, "parameters", "result")
		case d.tag == "local.tswitch" || leadWanted(x.s[d.start:], want):
			t.decl(x, d, want)
		}
	}
	// Last: the values of the declarations above add wanted names.
	for u := range units {
		if k := x.kind(&units[u]); upto[u] > 0 && (k == "function_declaration" || k == "method_declaration") {
			t.params(x, &units[u], want, "receiver", "parameters", "result")
		}
	}
	for _, vs := range t.vars {
		slices.Reverse(vs) // recorded backwards
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].start < vs[j].start })
	}
}

// want adds the names exprType may look up for e.
func (t *goTypes) want(x *extractor, e *sitter.Node, want map[string]bool) {
	for depth := 0; e != nil && depth < maxTypeDepth; depth++ {
		switch x.kind(e) {
		case "identifier":
			want[x.text(e)] = true
			return
		case "parenthesized_expression":
			e = e.NamedChild(0)
		case "unary_expression", "selector_expression":
			e = goField(e, "operand")
		case "call_expression":
			e = goField(e, "function")
			if e != nil && x.kind(e) == "selector_expression" {
				e = goField(e, "operand")
			}
		default:
			return
		}
	}
}

// importChain reports whether the qualifier text q is pkg or pkg.a.b for
// an imported pkg: no type to find there (unless a local shadows pkg,
// which would cost a lookup table for every such call).
func (t *goTypes) importChain(q string) bool {
	for i := 0; i < len(q); i++ {
		if !isIdentByte(q[i]) && q[i] != '.' {
			return false
		}
	}
	pkg, _, _ := strings.Cut(q, ".")
	return t.imports[pkg]
}

// leadName is the name a qualifier's type lookup starts from: its first
// identifier, past ( & and * ("s" in s.db, "NewB" in NewB(), "b" in (*b)).
func leadName(q string) string {
	q = strings.TrimLeft(q, "(&* ")
	i := 0
	for i < len(q) && isIdentByte(q[i]) {
		i++
	}
	return q[:i]
}

// leadWanted reports whether a declaration whose source starts src may
// declare a wanted name: it reads the leading "a, b" list without cgo. It
// errs towards yes (a comment in the list).
func leadWanted(src string, want map[string]bool) bool {
	for i := 0; ; {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		j := i
		for j < len(src) && isIdentByte(src[j]) {
			j++
		}
		if want[src[i:j]] {
			return true
		}
		for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
			j++
		}
		switch {
		case j < len(src) && src[j] == '/':
			return true
		case j < len(src) && src[j] == ',' && j > i:
			i = j + 1
		default:
			return false
		}
	}
}

// decl records the wanted names one declaration node declares.
func (t *goTypes) decl(x *extractor, d *goDeclNode, want map[string]bool) {
	n := &d.n
	switch d.tag {
	case "local.short":
		t.tuple(x, goNamed(x, goField(n, "left")), n, goField(n, "right"), nil, want)
	case "local.var":
		t.tuple(x, x.fieldChildren(n, "name"), n, goField(n, "value"), goField(n, "type"), want)
	case "local.range", "local.recv":
		left, right := goField(n, "left"), goField(n, "right")
		if left == nil || right == nil || !strings.Contains(x.s[left.EndByte():right.StartByte()], ":=") {
			return
		}
		names := goNamed(x, left)
		if d.tag == "local.range" && len(names) == 2 {
			// for _, v := range xs: v is an element (or map value) of xs.
			t.tuple(x, names[:1], n, nil, nil, want)
			if sc := t.scopeOf(x, n); want[x.text(&names[1])] && sc != nil && x.kind(sc) != "source_file" {
				t.add(x, &names[1], &goVar{start: int(n.EndByte()), end: int(sc.EndByte()), elemOf: right}, want)
			}
			return
		}
		t.tuple(x, names, n, nil, nil, want)
	case "local.tswitch":
		t.typeSwitch(x, n, want)
	}
}

// goScopeKinds are the nodes that end a declaration's scope: blocks (their
// statement list, which ends with the last statement) and the statements and
// clauses whose header declares names.
var goScopeKinds = map[string]bool{
	"statement_list": true, "block": true, "func_literal": true, "function_declaration": true,
	"method_declaration": true, "for_statement": true, "if_statement": true,
	"expression_switch_statement": true, "type_switch_statement": true, "select_statement": true,
	"expression_case": true, "type_case": true, "default_case": true, "communication_case": true,
	"source_file": true,
}

// scopeOf returns the node n's declaration is scoped to. Node.Parent walks
// down from the root, so this is done only for declarations that matter.
func (t *goTypes) scopeOf(x *extractor, n *sitter.Node) *sitter.Node {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if goScopeKinds[x.kind(p)] {
			return p
		}
	}
	return nil
}

// addPkgVar records a package-level var or const spec (seen by the main
// query): visible in the whole file.
func (t *goTypes) addPkgVar(x *extractor, spec *sitter.Node) {
	if t.pkgVars == nil {
		t.pkgVars = map[string]*goVar{}
	}
	vals := goNamed(x, goField(spec, "value"))
	ty := goField(spec, "type")
	for i, nm := range x.fieldChildren(spec, "name") {
		if s := x.text(&nm); s != "_" && t.pkgVars[s] == nil {
			t.pkgVars[s] = tupleVar(0, len(x.s), i, vals, ty)
		}
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

// add records v as a declaration of name unless name is not wanted.
func (t *goTypes) add(x *extractor, name *sitter.Node, v *goVar, want map[string]bool) bool {
	if x.kind(name) != "identifier" {
		return false
	}
	s := x.text(name)
	if !want[s] {
		return false
	}
	t.vars[s] = append(t.vars[s], v)
	if v.elemOf != nil {
		t.want(x, v.elemOf, want)
	}
	if v.val != nil {
		t.want(x, v.val, want)
	}
	return true
}

// params records the receiver, parameters and named results of fn (a
// function, method or function literal) found in the given fields: visible
// in fn from the parameter on.
func (t *goTypes) params(x *extractor, fn *sitter.Node, want map[string]bool, fields ...string) {
	for _, f := range fields {
		l := goField(fn, f)
		if l == nil || x.kind(l) != "parameter_list" {
			continue
		}
		for _, p := range x.named(l) {
			k := x.kind(&p)
			if k != "parameter_declaration" && k != "variadic_parameter_declaration" || !leadWanted(x.s[p.StartByte():], want) {
				continue
			}
			ty := goField(&p, "type")
			for _, nm := range x.fieldChildren(&p, "name") {
				v := &goVar{start: int(p.EndByte()), end: int(fn.EndByte()), typ: ty, untyped: k == "variadic_parameter_declaration"}
				t.add(x, &nm, v, want)
			}
		}
	}
}

// tuple records the names declared by n (names = vals, names T = vals, or
// untyped when both are nil), visible from the end of n to the end of its
// scope.
func (t *goTypes) tuple(x *extractor, names []sitter.Node, n, vals, ty *sitter.Node, want map[string]bool) {
	if !slices.ContainsFunc(names, func(nm sitter.Node) bool { return want[x.text(&nm)] }) {
		return
	}
	sc := t.scopeOf(x, n)
	if sc == nil || x.kind(sc) == "source_file" {
		return
	}
	vs := goNamed(x, vals)
	untyped := vals == nil && ty == nil
	for i := range names {
		v := tupleVar(int(n.EndByte()), int(sc.EndByte()), i, vs, ty)
		v.untyped = v.untyped || untyped
		t.add(x, &names[i], v, want)
	}
}

// tupleVar is the i-th name of names T = vals: positional when the counts
// match (vals[i]); with one value for several names (b, err := NewB()) only
// the first name gets the value's type.
func tupleVar(start, end, i int, vals []sitter.Node, ty *sitter.Node) *goVar {
	v := &goVar{start: start, end: end}
	switch {
	case ty != nil:
		v.typ = ty
	case len(vals) == 1 && i == 0:
		v.val = &vals[0]
	case len(vals) > 1 && i < len(vals):
		v.val = &vals[i]
	default:
		v.untyped = true
	}
	return v
}

// typeSwitch records `switch v := e.(type)`: v has the case's type in a
// case that names one type, and no known type elsewhere.
func (t *goTypes) typeSwitch(x *extractor, n *sitter.Node, want map[string]bool) {
	alias := goNamed(x, goField(n, "alias"))
	if len(alias) != 1 || !want[x.text(&alias[0])] {
		return
	}
	start := int(n.EndByte())
	if val := goField(n, "value"); val != nil {
		start = int(val.EndByte())
	}
	// Cases first: recorded backwards like everything else.
	cases := x.named(n)
	for k := len(cases) - 1; k >= 0; k-- {
		c := &cases[k]
		if x.kind(c) != "type_case" {
			continue
		}
		var types []sitter.Node
		for _, ty := range x.fieldChildren(c, "type") {
			if ty.IsNamed() {
				types = append(types, ty)
			}
		}
		if len(types) == 1 {
			t.add(x, &alias[0], &goVar{start: int(c.StartByte()), end: int(c.EndByte()), typ: &types[0]}, want)
		}
	}
	t.add(x, &alias[0], &goVar{start: start, end: int(n.EndByte()), untyped: true}, want)
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
	case v.elemOf != nil:
		v.res = t.rangeElem(x, v.elemOf, depth+1)
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
		base := t.exprType(x, goField(e, "operand"), depth+1)
		if base == "" {
			return ""
		}
		field := x.text(goField(e, "field"))
		if _, local := t.structs[base]; local || strings.HasPrefix(base, "()") {
			return t.structField(x, base, field)
		}
		// A struct declared in another file: its field's type is for the
		// indexer to look up (Ref.QualifierType "T#field").
		return base + "#" + field
	case "call_expression":
		return t.callType(x, e)
	}
	return ""
}

// rangeElem is the type of the elements of range expression e: of a name
// declared as a slice, array or map, or of a struct field (of a struct in
// this file, or "T#f[]" for the indexer to look up).
func (t *goTypes) rangeElem(x *extractor, e *sitter.Node, depth int) string {
	if depth > maxTypeDepth {
		return ""
	}
	switch x.kind(e) {
	case "identifier":
		v, _ := t.lookup(x.text(e), int(e.StartByte()))
		if v == nil || v.untyped {
			return ""
		}
		if v.typ != nil {
			return t.elemTypeOf(x, v.typ)
		}
		if v.val != nil && x.kind(v.val) == "composite_literal" {
			return t.elemTypeOf(x, goField(v.val, "type"))
		}
	case "parenthesized_expression":
		return t.rangeElem(x, e.NamedChild(0), depth+1)
	case "selector_expression":
		base := t.exprType(x, goField(e, "operand"), depth+1)
		if base == "" || strings.HasPrefix(base, "()") {
			return ""
		}
		field := x.text(goField(e, "field"))
		if _, local := t.structs[base]; local {
			t.structField(x, base, field) // fills fieldTy
			if ty, ok := t.fieldTy[base][field]; ok {
				return t.elemTypeOf(x, &ty)
			}
			return ""
		}
		return base + "#" + field + "[]"
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
