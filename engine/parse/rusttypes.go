package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Qualifier types for Rust calls, from what the file says cheaply: `self`
// (the impl's type), a typed parameter or `let`, a struct literal, Type::new()
// and a same-file associated function returning Self, a field of a struct of
// the file (self.db.query()), and Type::f() itself. Smart pointers and
// references are looked through (&Foo, Box<Foo>, Arc<Foo> call Foo's
// methods); generic parameters give no type. Every binding is recorded, typed
// or not, because an untyped one shadows an outer typed one.

type rustBinding struct {
	name     string
	typ      string       // settled type; "" untyped or unknown
	value    *sitter.Node // a let's initialiser, typed in resolve
	from, to int          // visible in [from, to)
	self     string       // the impl type where the binding is
	generics []string
}

type rustQual struct {
	off   int          // the call name's offset: the ref's key
	value *sitter.Node // the qualifier expression or path
	path  bool         // value is the path of a::f(), not an expression
	chain []string     // or, in macro arguments, the names of a.b.m() (dots) or A::f() (path)
	self  string       // the impl's type
	gen   []string     // generic parameters in scope
}

type rustTypes struct {
	binds   []rustBinding
	quals   []rustQual
	fields  map[string]map[string]*sitter.Node // struct -> field -> type node
	results map[string]*sitter.Node            // "Type.f" or "f" -> return type node
	self    map[string]string                  // the impl type of those results
	h       *rustHandler
	slab    nodeSlab
}

func (t *rustTypes) cut(off int) {
	t.binds = keepBefore(t.binds, off, func(e rustBinding) int { return e.from })
	t.quals = keepBefore(t.quals, off, func(e rustQual) int { return e.off })
}

// addStruct records the named fields of struct d, as File.Fields and for
// typing self.field.m() in the file.
func (t *rustTypes) addStruct(x *extractor, d *def, body *sitter.Node) {
	if body == nil || x.kind(body) != "field_declaration_list" {
		return
	}
	name := d.name
	gen := rustGenerics(x, field(&d.node, "type_parameters"))
	if t.fields == nil {
		t.fields = map[string]map[string]*sitter.Node{}
	}
	fs := t.fields[name]
	if fs == nil {
		fs = map[string]*sitter.Node{}
		t.fields[name] = fs
	}
	for _, fd := range x.named(body) {
		if x.kind(&fd) != "field_declaration" {
			continue
		}
		if nm, ty := field(&fd, "name"), field(&fd, "type"); nm != nil && ty != nil {
			fs[x.text(nm)] = t.slab.put(*ty)
			x.addField(d, x.text(nm), rustTypeName(x, ty, name, gen), int(fd.StartByte()), int(fd.EndByte()), rustPub(x, &fd))
		}
	}
}

// addResult records what function name (of impl type self) returns.
func (t *rustTypes) addResult(x *extractor, self, name string, ret *sitter.Node) {
	if ret == nil {
		return
	}
	if t.results == nil {
		t.results, t.self = map[string]*sitter.Node{}, map[string]string{}
	}
	key := name
	if self != "" {
		key = self + "." + name
	}
	if _, dup := t.results[key]; !dup {
		t.results[key] = t.slab.put(*ret)
		t.self[key] = self
	}
}

// binding records the names a let, parameter, closure, for, if-let or match
// arm declares, with the range they are visible in.
func (t *rustTypes) binding(x *extractor, m *match) {
	h := t.h
	n := &m.node
	s, e := int(n.StartByte()), int(n.EndByte())
	self := ""
	if sc := h.scopeAt("impl", s); sc != nil {
		self = sc.self
	}
	gen := h.genericsAt(s)
	add := func(pat *sitter.Node, typ string, value *sitter.Node, from, to int) {
		if pat != nil && x.kind(pat) == "identifier" {
			t.binds = append(t.binds, rustBinding{name: x.text(pat), typ: typ, value: value, from: from, to: to, self: self, generics: gen})
			return
		}
		for _, id := range rustPatternNames(x, pat) {
			t.binds = append(t.binds, rustBinding{name: id, from: from, to: to})
		}
	}
	switch m.tag {
	case "local.let":
		to := e
		if p := n.Parent(); p != nil {
			to = int(p.EndByte())
		}
		pat, ty := field(n, "pattern"), field(n, "type")
		typ := ""
		if ty != nil {
			typ = rustTypeName(x, ty, self, gen)
		}
		var value *sitter.Node
		if ty == nil {
			if v := field(n, "value"); v != nil {
				value = t.slab.put(*v)
			}
		}
		add(pat, typ, value, e, to)
	case "local.param":
		p := n.Parent()
		if p == nil {
			return
		}
		scope := p.Parent() // the function or closure
		if scope == nil {
			return
		}
		typ := rustTypeName(x, field(n, "type"), self, gen)
		add(field(n, "pattern"), typ, nil, int(scope.StartByte()), int(scope.EndByte()))
	case "local.closure":
		scope := n.Parent()
		if scope == nil {
			return
		}
		for _, ch := range x.named(n) {
			if x.kind(&ch) != "parameter" {
				add(&ch, "", nil, int(scope.StartByte()), int(scope.EndByte()))
			}
		}
	case "local.for":
		if body := field(n, "body"); body != nil {
			add(field(n, "pattern"), "", nil, int(body.StartByte()), int(body.EndByte()))
		}
	case "local.cond":
		to := e
		if p := n.Parent(); p != nil {
			to = int(p.EndByte())
		}
		add(field(n, "pattern"), "", nil, e, to)
	case "local.arm":
		add(field(n, "pattern"), "", nil, s, e)
	}
}

// rustPatternNames lists the names a pattern binds: identifiers, not the
// types and paths of tuple-struct and struct patterns.
func rustPatternNames(x *extractor, pat *sitter.Node) []string {
	var out []string
	var walk func(n *sitter.Node, depth int)
	walk = func(n *sitter.Node, depth int) {
		if n == nil || depth > 24 {
			return
		}
		switch x.kind(n) {
		case "identifier":
			out = append(out, x.text(n))
			return
		case "shorthand_field_identifier":
			out = append(out, x.text(n))
			return
		case "scoped_identifier", "type_identifier", "scoped_type_identifier":
			return
		}
		typ, cond := field(n, "type"), field(n, "condition")
		for _, ch := range x.named(n) {
			if (typ != nil && ch.Id() == typ.Id()) || (cond != nil && ch.Id() == cond.Id()) {
				continue
			}
			walk(&ch, depth+1)
		}
	}
	walk(pat, 0)
	return out
}

// qualify notes the qualifier of the call whose name is at off, typed in
// resolve once every binding and struct of the file is known.
func (t *rustTypes) qualify(off int, value *sitter.Node, path bool) {
	if value == nil {
		return
	}
	t.quals = append(t.quals, t.newQual(rustQual{off: off, value: t.slab.put(*value), path: path}))
}

// qualifyTokens is qualify for a call in macro arguments, whose qualifier is
// a run of names: a.b.m() when dots, A::f() when path.
func (t *rustTypes) qualifyTokens(off int, chain []string, path bool) {
	if len(chain) > 0 {
		t.quals = append(t.quals, t.newQual(rustQual{off: off, chain: chain, path: path}))
	}
}

func (t *rustTypes) newQual(q rustQual) rustQual {
	if sc := t.h.scopeAt("impl", q.off); sc != nil {
		q.self = sc.self
	}
	q.gen = t.h.genericsAt(q.off)
	return q
}

// resolve sets the qualifier types of the calls noted by qualify, but for
// the types in split.
func (t *rustTypes) resolve(x *extractor, split map[string]bool) {
	imports := map[string]bool{}
	for _, imp := range x.f.Imports {
		if imp.Alias != "" {
			imports[imp.Alias] = true
		}
	}
	for i := range x.fields {
		x.fields[i].typ = rustLocalName(x.fields[i].typ, imports)
	}
	types := map[int]string{}
	for _, q := range t.quals {
		var typ string
		switch {
		case q.chain != nil:
			typ = t.chainType(x, q, imports)
		case q.path:
			typ = t.pathType(x, q.value, q.self, q.gen, imports)
		default:
			typ = t.exprType(x, q.value, q.off, q.self, q.gen, imports, 0)
		}
		if typ != "" {
			types[q.off] = typ
		}
	}
	for i := range x.refs {
		r := &x.refs[i]
		if (r.kind == RefCalls || r.kind == RefReads || r.kind == RefWrites) && r.qualType == "" {
			if typ, ok := types[r.off]; ok {
				typ = rustLocalName(typ, imports)
				if base, _, _ := strings.Cut(typ, "#"); !split[base[strings.LastIndexByte(base, '.')+1:]] {
					r.qualType = typ
				}
			}
		}
	}
}

// rustLocalName keeps the module of a type written m::T ("m.T") only when m
// is an import binding of the file, which is how the indexer locates it;
// else the type is T, found by its name.
func rustLocalName(typ string, imports map[string]bool) string {
	fn := ""
	if strings.HasPrefix(typ, "()") {
		fn, typ = "()", typ[2:]
	}
	head, rest, _ := strings.Cut(typ, "#")
	if i := strings.LastIndexByte(head, '.'); i >= 0 && !imports[head[:i]] {
		head = head[i+1:]
	}
	if rest != "" {
		head += "#" + rest
	}
	return fn + head
}

// chainType types the qualifier of a call in macro arguments: self, a
// binding and the fields after it, or the type a path names.
func (t *rustTypes) chainType(x *extractor, q rustQual, imports map[string]bool) string {
	if q.path {
		return t.segmentsType(q.chain, q.self, q.gen, imports)
	}
	typ := q.self
	if q.chain[0] != "self" {
		b := t.lookup(q.chain[0], q.off)
		if b == nil {
			return ""
		}
		typ = t.bindingType(x, b, imports)
	}
	for _, f := range q.chain[1:] {
		if typ == "" {
			return ""
		}
		ty := t.fields[typ][f]
		switch {
		case ty != nil:
			typ = rustTypeName(x, ty, typ, nil)
		case t.fields[typ] == nil:
			typ += "#" + f
		default:
			return ""
		}
	}
	return typ
}

// bindingType settles and returns the type of binding b.
func (t *rustTypes) bindingType(x *extractor, b *rustBinding, imports map[string]bool) string {
	if b.typ == "" && b.value != nil {
		val := b.value
		b.value = nil // a let x = x.y() would recurse
		b.typ = t.exprType(x, val, int(val.StartByte()), b.self, b.generics, imports, 1)
	}
	return b.typ
}

// pathType is the type a::T names in a::T::f(): T when it looks like a type
// (capitalised), with its module when that is an import binding ("m.T").
func (t *rustTypes) pathType(x *extractor, p *sitter.Node, self string, gen []string, imports map[string]bool) string {
	return t.segmentsType(rustSegments(x, p, nil), self, gen, imports)
}

func (t *rustTypes) segmentsType(segs []string, self string, gen []string, imports map[string]bool) string {
	if len(segs) == 0 {
		return ""
	}
	last := segs[len(segs)-1]
	if last == "Self" {
		return self
	}
	if last == "" || last[0] < 'A' || last[0] > 'Z' || rustHas(gen, last) {
		return ""
	}
	if len(segs) > 1 && imports[segs[len(segs)-2]] {
		return segs[len(segs)-2] + "." + last
	}
	return last
}

// exprType is the type of expression v at offset off, or "".
func (t *rustTypes) exprType(x *extractor, v *sitter.Node, off int, self string, gen []string, imports map[string]bool, depth int) string {
	if v == nil || depth > 6 {
		return ""
	}
	switch x.kind(v) {
	case "self":
		return self
	case "identifier":
		b := t.lookup(x.text(v), off)
		if b == nil {
			return ""
		}
		return t.bindingType(x, b, imports)
	case "field_expression":
		base := t.exprType(x, field(v, "value"), off, self, gen, imports, depth+1)
		f := field(v, "field")
		if base == "" || f == nil {
			return ""
		}
		if ty := t.fields[base][x.text(f)]; ty != nil {
			return rustTypeName(x, ty, base, nil)
		}
		if t.fields[base] == nil && x.kind(f) == "field_identifier" {
			return base + "#" + x.text(f) // a struct of another file: the indexer reads its field's type
		}
	case "struct_expression":
		name, q := rustPathName(x, field(v, "name"))
		if name == "Self" {
			return self
		}
		if q != "" && imports[q[strings.LastIndexByte(q, '.')+1:]] {
			return q[strings.LastIndexByte(q, '.')+1:] + "." + name
		}
		return name
	case "reference_expression", "parenthesized_expression":
		c := field(v, "value")
		if c == nil {
			c = v.NamedChild(0)
		}
		return t.exprType(x, c, off, self, gen, imports, depth+1)
	case "try_expression":
		return t.callType(x, v.NamedChild(0), self, gen, imports, true)
	case "call_expression":
		// x.unwrap() and x.expect(..) unwrap what x is.
		if fn := field(v, "function"); fn != nil && x.kind(fn) == "field_expression" {
			if f := x.text(field(fn, "field")); f == "unwrap" || f == "expect" {
				return t.callType(x, field(fn, "value"), self, gen, imports, true)
			}
		}
		return t.callType(x, v, self, gen, imports, false)
	}
	return ""
}

// callType is the type a call returns: T for T::new() and for a same-file
// T::f() or f() declared to return T or Self; "()f" for another f() (the
// indexer looks its result type up). unwrapped: the call's Result or Option
// is unwrapped (?, .unwrap()).
func (t *rustTypes) callType(x *extractor, c *sitter.Node, self string, gen []string, imports map[string]bool, unwrapped bool) string {
	if c == nil || x.kind(c) != "call_expression" {
		return ""
	}
	fn := field(c, "function")
	if x.kind(fn) == "generic_function" {
		fn = field(fn, "function")
	}
	switch x.kind(fn) {
	case "identifier":
		name := x.text(fn)
		if ret, ok := t.results[name]; ok {
			return rustReturned(x, ret, "", gen, unwrapped)
		}
		if !unwrapped {
			return "()" + name
		}
	case "scoped_identifier":
		typ := t.pathType(x, field(fn, "path"), self, gen, imports)
		name := x.text(field(fn, "name"))
		if typ == "" {
			return ""
		}
		if ret, ok := t.results[typ+"."+name]; ok {
			return rustReturned(x, ret, typ, gen, unwrapped)
		}
		if name == "new" && !strings.Contains(typ, ".") {
			return typ
		}
	}
	return ""
}

// rustReturned is the type a return type gives the caller: the T of
// Result<T, E> or Option<T> when the call is unwrapped, else the type itself.
func rustReturned(x *extractor, ret *sitter.Node, self string, gen []string, unwrapped bool) string {
	if unwrapped && x.kind(ret) == "generic_type" {
		if base := x.text(field(ret, "type")); base == "Result" || base == "Option" || strings.HasSuffix(base, "::Result") {
			return rustTypeName(x, rustTypeArg(x, ret), self, gen)
		}
		return ""
	}
	if unwrapped {
		return ""
	}
	return rustTypeName(x, ret, self, gen)
}

// lookup returns the innermost binding of name visible at off.
func (t *rustTypes) lookup(name string, off int) *rustBinding {
	var best *rustBinding
	for i := range t.binds {
		b := &t.binds[i]
		if b.name == name && b.from <= off && off < b.to && (best == nil || b.from >= best.from) {
			best = b
		}
	}
	return best
}

// rustTypeName is the type name of a type expression as a qualifier type:
// Foo for Foo, &mut Foo, Box<Foo>, Rc<Foo>, Arc<Foo>; self for Self; "m.Foo"
// for m::Foo; "" for generic parameters, tuples, slices, functions and
// impl/dyn Trait.
func rustTypeName(x *extractor, t *sitter.Node, self string, gen []string) string {
	for depth := 0; t != nil && depth < 8; depth++ {
		switch x.kind(t) {
		case "reference_type", "pointer_type":
			t = field(t, "type")
		case "generic_type":
			base := x.text(field(t, "type"))
			switch base {
			case "Box", "Rc", "Arc", "std::rc::Rc", "std::sync::Arc":
				t = rustTypeArg(x, t)
				continue
			}
			t = field(t, "type")
		case "type_identifier", "primitive_type":
			name := x.text(t)
			if name == "Self" {
				return self
			}
			if rustHas(gen, name) {
				return ""
			}
			return name
		case "scoped_type_identifier":
			name, q := rustPathName(x, t)
			if i := strings.LastIndexByte(q, '.'); i >= 0 {
				q = q[i+1:]
			}
			if q == "" || q == "Self" {
				return name
			}
			return q + "." + name
		default:
			return ""
		}
	}
	return ""
}

// rustTypeBase is the name of the type an impl block is for: Foo for Foo,
// Foo<T>, &'a m::Foo, Box<Foo>.
func rustTypeBase(x *extractor, t *sitter.Node) string {
	for depth := 0; t != nil && depth < 8; depth++ {
		switch x.kind(t) {
		case "reference_type", "pointer_type":
			t = field(t, "type")
		case "generic_type":
			t = field(t, "type")
		case "type_identifier", "primitive_type":
			return x.text(t)
		case "scoped_type_identifier":
			name, _ := rustPathName(x, t)
			return name
		default:
			return ""
		}
	}
	return ""
}

// rustTypeArg is the first type argument of a generic type (lifetimes skipped).
func rustTypeArg(x *extractor, t *sitter.Node) *sitter.Node {
	for _, a := range x.named(field(t, "type_arguments")) {
		if k := x.kind(&a); k != "lifetime" && k != "block_comment" && k != "line_comment" {
			return &a
		}
	}
	return nil
}

// rustResult is a function's Symbol.ResultType: its return type's name, with
// references and smart pointers looked through and Self as the impl type (a
// primitive too: its methods are the standard library's, never a guess).
func rustResult(x *extractor, ret *sitter.Node, self string, gen []string) string {
	if ret == nil {
		return ""
	}
	return rustTypeName(x, ret, self, gen)
}

// rustGenerics lists the names of the type parameters in a type_parameters node.
func rustGenerics(x *extractor, tp *sitter.Node) []string {
	var out []string
	for _, p := range x.named(tp) {
		switch x.kind(&p) {
		case "type_identifier":
			out = append(out, x.text(&p))
		case "constrained_type_parameter", "optional_type_parameter", "type_parameter":
			if l := field(&p, "left"); l != nil {
				out = append(out, x.text(l))
			} else if nm := field(&p, "name"); nm != nil {
				out = append(out, x.text(nm))
			} else if c := p.NamedChild(0); c != nil && x.kind(c) == "type_identifier" {
				out = append(out, x.text(c))
			}
		}
	}
	return out
}

func rustHas(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
