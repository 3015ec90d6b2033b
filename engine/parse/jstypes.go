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

// jsBlocks end the range of a let, const or catch binding inside them.
var jsBlocks = map[string]bool{
	"statement_block": true, "for_statement": true, "for_in_statement": true, "catch_clause": true,
	"switch_body": true, "program": true, "class_body": true, "class_static_block": true,
	"function_declaration": true, "function_expression": true, "arrow_function": true,
	"method_definition": true, "generator_function": true, "generator_function_declaration": true,
}

// How a JS binding's type is inferred from its node (tbind.how).
const (
	jsHowDecl   uint8 = iota + 1 // a variable declarator
	jsHowAssign                  // an assignment
	jsHowField                   // a class field
)

// typeMatch handles the scope.* and bind.* captures of the JS queries.
func (h *jsHandler) typeMatch(x *extractor, m *match) {
	t := &h.types
	n := &m.node
	s, e := int(n.StartByte()), int(n.EndByte())
	switch m.tag {
	case "scope.fn":
		t.addScope(n, scopeFn, "")
	case "scope.arrow":
		t.addScope(n, scopeArrow, "")
	case "scope.class":
		name := x.text(field(n, "name"))
		if name == "" && x.kind(n) == "class" {
			if p := n.Parent(); p != nil && x.kind(p) == "variable_declarator" {
				name = x.text(field(p, "name")) // const C = class {}
			}
		}
		t.addScope(n, scopeClass, name)
	case "bind.var", "bind.let":
		if x.kind(m.name) != "identifier" {
			h.bindPattern(x, m.name, e, m.tag == "bind.var", false)
			return
		}
		t.addBind(tbind{name: x.text(m.name), at: s, off: e, fnScoped: m.tag == "bind.var", how: jsHowDecl, node: *n})
	case "bind.assign":
		t.addBind(tbind{name: x.text(m.name), at: s, off: e, assign: true, how: jsHowAssign, node: *n})
	case "bind.attr":
		t.addAttr(tattr{name: x.text(m.name), at: s, ctor: true, how: jsHowAssign, node: *n})
	case "bind.for":
		kind := x.text(field(n, "kind"))
		h.bindPattern(x, m.name, int(m.name.EndByte()), kind == "var", kind == "")
	case "bind.untyped":
		h.bindPattern(x, m.name, int(m.name.EndByte()), false, false)
	case "bind.field":
		t.addAttr(tattr{name: x.text(m.name), at: s, how: jsHowField, node: *n})
	}
}

// fnScope records a class method's scope. A constructor's parameters are
// bound at once: parameter properties are attributes, needed before lookups.
func (h *jsHandler) fnScope(x *extractor, n *sitter.Node, name string) {
	t := &h.types
	t.addScope(n, scopeFn, name)
	if name == "constructor" && len(t.scopes) > 0 && t.scopes[len(t.scopes)-1].start == int(n.StartByte()) {
		t.scopes[len(t.scopes)-1].lazy = false
		h.params(x, n)
	}
}

// infer implements langTypes: a TypeScript annotation, else the value's
// type; ref names the variable assigned (this.db = db).
func (h *jsHandler) infer(x *extractor, n *sitter.Node, how uint8) (typ, ref string, annotated bool) {
	if how != jsHowAssign && h.ts {
		if ann := field(n, "type"); ann != nil {
			return jsTypeName(x, ann, ""), "", true
		}
	}
	var v *sitter.Node
	if how == jsHowAssign {
		v = field(n, "right")
	} else {
		v = field(n, "value")
	}
	if x.kind(v) == "identifier" {
		return "", x.text(v), false
	}
	return h.valueType(x, v), "", false
}

// params implements langTypes: a function's parameters, `x` of x => ....
func (h *jsHandler) params(x *extractor, n *sitter.Node) {
	if x.kind(n) == "arrow_function" {
		if p := field(n, "parameter"); p != nil {
			h.bindPattern(x, p, int(p.EndByte()), true, false)
			return
		}
	}
	h.bindParams(x, field(n, "parameters"))
}

// bindPattern records the names a binding pattern binds, untyped.
func (h *jsHandler) bindPattern(x *extractor, n *sitter.Node, off int, fnScoped, assign bool) {
	if n == nil {
		return
	}
	switch x.kind(n) {
	case "identifier", "shorthand_property_identifier_pattern":
		h.types.addBind(tbind{name: x.text(n), at: int(n.StartByte()), off: off, fnScoped: fnScoped, assign: assign, node: *n})
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
	if n == nil {
		return
	}
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
						h.types.addAttr(tattr{name: b.name, typ: b.typ, at: b.at, explicit: ann != nil, ctor: true, node: p})
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
		return pendAttr
	case plainIdent(q):
		return pendVar
	}
	return ""
}
