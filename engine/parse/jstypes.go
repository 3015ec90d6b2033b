package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// JavaScript/TypeScript qualifier types (Ref.QualifierType) and result types:
//
//   - this.m(), super.m() in a class method, arrow function or field
//     initialiser: the class (qualifier "this" / "super");
//   - x.m() where `const x = new C()` / `new ns.C()`: "C" / "ns.C"; where
//     `x = makeC()` / `api.make()`: "()makeC" / "()api.make";
//   - TypeScript annotations (x: C), (let x: C<T>), `v as C`: "C" (generic
//     arguments dropped; `C | null | undefined` is C; arrays, tuples,
//     functions and unions of two types are nothing);
//   - this.db.q() where the class declares `db: DB`, `db = new DB()`,
//     `constructor(private db: DB)` or the constructor assigns this.db: that
//     type;
//   - a TS function's or method's ResultType from its return annotation
//     (`: this` is the class).
//
// let/const/class bindings last to the end of their block, var and
// parameters to the end of their function; destructured names, loop and
// catch variables are untyped but shadow.

// typeMatch handles the scope.* and bind.* captures of the JS queries.
func (h *jsHandler) typeMatch(x *extractor, m *match) {
	t := &h.types
	n := &m.node
	s, e := int(n.StartByte()), int(n.EndByte())
	switch m.tag {
	case "scope.fn":
		name := ""
		if x.kind(n) == "method_definition" {
			name = x.text(field(n, "name"))
		}
		t.addScope(s, e, scopeFn, name)
	case "scope.arrow":
		t.addScope(s, e, scopeArrow, "")
	case "scope.block":
		t.addScope(s, e, scopeBlock, "")
	case "scope.class":
		name := x.text(field(n, "name"))
		if name == "" && x.kind(n) == "class" {
			if p := n.Parent(); p != nil && x.kind(p) == "variable_declarator" {
				name = x.text(field(p, "name")) // const C = class {}
			}
		}
		t.addScope(s, e, scopeClass, name)
	case "bind.var", "bind.let":
		h.bindDeclarator(x, n, m.tag == "bind.var")
	case "bind.assign":
		t.addBind(tbind{name: x.text(field(n, "left")), typ: h.valueType(x, field(n, "right")), at: s, off: e, assign: true})
	case "bind.attr":
		h.bindThisAttr(x, n)
	case "bind.for":
		kind := x.text(field(n, "kind"))
		h.bindPattern(x, m.name, int(m.name.EndByte()), kind == "var", kind == "")
	case "bind.untyped":
		h.bindPattern(x, m.name, int(m.name.EndByte()), false, false)
	case "bind.params":
		h.bindParams(x, n)
	case "bind.field":
		name, val := field(n, "name"), field(n, "value")
		if name == nil {
			name = field(n, "property") // JavaScript's field_definition
		}
		a := tattr{name: x.text(name), at: s}
		if ann := field(n, "type"); ann != nil {
			a.typ, a.explicit = jsTypeName(x, ann, ""), true
		} else {
			a.typ = h.valueType(x, val)
		}
		t.addAttr(a)
	}
}

// bindDeclarator records `const x: T = v` (var: function-scoped).
func (h *jsHandler) bindDeclarator(x *extractor, n *sitter.Node, isVar bool) {
	name := field(n, "name")
	if x.kind(name) != "identifier" {
		h.bindPattern(x, name, int(n.EndByte()), isVar, false)
		return
	}
	b := tbind{name: x.text(name), at: int(n.StartByte()), off: int(n.EndByte()), fnScoped: isVar}
	if ann := field(n, "type"); ann != nil {
		b.typ, b.annotated = jsTypeName(x, ann, ""), true
	} else {
		b.typ = h.valueType(x, field(n, "value"))
	}
	h.types.addBind(b)
}

// bindThisAttr records this.x = v (the table keeps those of constructors).
func (h *jsHandler) bindThisAttr(x *extractor, n *sitter.Node) {
	left, right := field(n, "left"), field(n, "right")
	a := tattr{name: x.text(field(left, "property")), at: int(n.StartByte()), ctor: true}
	if x.kind(right) == "identifier" {
		a.ref = x.text(right)
	} else {
		a.typ = h.valueType(x, right)
	}
	h.types.addAttr(a)
}

// bindPattern records the names a binding pattern binds, untyped.
func (h *jsHandler) bindPattern(x *extractor, n *sitter.Node, off int, fnScoped, assign bool) {
	if n == nil {
		return
	}
	switch x.kind(n) {
	case "identifier", "shorthand_property_identifier_pattern":
		h.types.addBind(tbind{name: x.text(n), at: int(n.StartByte()), off: off, fnScoped: fnScoped, assign: assign})
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, ch := range x.named(n) {
			h.bindPattern(x, &ch, off, fnScoped, assign)
		}
	case "pair_pattern":
		h.bindPattern(x, field(n, "value"), off, fnScoped, assign)
	case "assignment_pattern", "object_assignment_pattern":
		h.bindPattern(x, field(n, "left"), off, fnScoped, assign)
	}
}

// bindParams records a function's parameters; TypeScript parameter
// properties (constructor(private db: DB)) are also attributes.
func (h *jsHandler) bindParams(x *extractor, n *sitter.Node) {
	for _, p := range x.named(n) {
		switch x.kind(&p) {
		case "required_parameter", "optional_parameter":
			pat, ann := field(&p, "pattern"), field(&p, "type")
			if x.kind(pat) != "identifier" {
				h.bindPattern(x, pat, int(p.EndByte()), true, false)
				continue
			}
			b := tbind{name: x.text(pat), at: int(p.StartByte()), off: int(p.EndByte()), fnScoped: true}
			if ann != nil {
				b.typ, b.annotated = jsTypeName(x, ann, ""), true
			}
			h.types.addBind(b)
			if p.NamedChildCount() > 1 {
				for _, ch := range x.named(&p) {
					if k := x.kind(&ch); k == "accessibility_modifier" || k == "readonly" || k == "override_modifier" {
						h.types.addAttr(tattr{name: b.name, typ: b.typ, at: b.at, explicit: ann != nil, ctor: true})
						break
					}
				}
			}
		default:
			h.bindPattern(x, &p, int(p.EndByte()), true, false)
		}
	}
}

// valueType is the type of an initialiser: "C" for new C(), "()f" for f().
func (h *jsHandler) valueType(x *extractor, v *sitter.Node) string {
	for v != nil {
		switch x.kind(v) {
		case "new_expression":
			if c := x.text(field(v, "constructor")); dottedName(c) {
				return c
			}
			return ""
		case "call_expression":
			fn := x.text(field(v, "function"))
			if !dottedName(fn) || fn == "require" {
				return ""
			}
			switch head, _, _ := strings.Cut(fn, "."); head {
			case "this", "super":
				return ""
			}
			return "()" + fn
		case "as_expression":
			if v.NamedChildCount() == 2 {
				return jsTypeName(x, v.NamedChild(1), "")
			}
			return ""
		case "parenthesized_expression", "non_null_expression", "satisfies_expression":
			v = v.NamedChild(0)
		default:
			return ""
		}
	}
	return ""
}

// jsTypeName is the named type a TypeScript annotation gives, or "". self is
// the class `this` means there.
func jsTypeName(x *extractor, n *sitter.Node, self string) string {
	for depth := 0; n != nil && depth < 16; depth++ {
		switch x.kind(n) {
		case "type_annotation", "parenthesized_type":
			n = n.NamedChild(0)
		case "type_identifier":
			return x.text(n)
		case "nested_type_identifier":
			if s := x.text(n); dottedName(s) {
				return s
			}
			return ""
		case "generic_type":
			n = field(n, "name") // C<T> is a C
		case "this_type":
			return self
		case "union_type":
			var members []*sitter.Node
			jsUnion(x, n, &members, 0)
			if len(members) != 1 {
				return ""
			}
			n = members[0]
		default:
			return "" // predefined, array, tuple, function, object and literal types
		}
	}
	return ""
}

// jsUnion collects a union's members other than null, undefined and void.
func jsUnion(x *extractor, n *sitter.Node, out *[]*sitter.Node, depth int) {
	if depth > 16 {
		*out = append(*out, nil, nil)
		return
	}
	switch x.kind(n) {
	case "union_type":
		for _, ch := range x.named(n) {
			jsUnion(x, &ch, out, depth+1)
		}
	case "literal_type", "predefined_type":
		if t := x.text(n); t == "null" || t == "undefined" || t == "void" {
			return
		}
		c := *n
		*out = append(*out, &c)
	default:
		if !x.isComment(n) {
			c := *n
			*out = append(*out, &c)
		}
	}
}

// resultType is a TypeScript function's annotated return type name.
func (h *jsHandler) resultType(x *extractor, fn *sitter.Node, self string) string {
	if !h.ts || fn == nil {
		return ""
	}
	return jsTypeName(x, field(fn, "return_type"), self)
}

// jsQualType is the pending qualifier type of a call through q (its text).
func jsQualType(q string) string {
	switch {
	case q == "this" || q == "super":
		return pendThis
	case strings.HasPrefix(q, "this.") && plainIdent(strings.TrimPrefix(q[len("this."):], "#")):
		return pendAttr + q[len("this."):]
	case plainIdent(q):
		return pendVar + q
	}
	return ""
}
