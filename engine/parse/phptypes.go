package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// PHP qualifier types (Ref.QualifierType), through the scope table of
// pyjsscope.go:
//
//   - $this->m(), self::m(), static::m(): the enclosing class; parent::m():
//     qualifier "super", the enclosing class (the resolver looks in its bases);
//   - $x->m() where $x is a typed parameter (Request $x), or was assigned
//     new C(...), or is caught as `catch (E $x)`: that class;
//   - $this->p->m() where the class declares `private Repo $p`, promotes a
//     constructor parameter `private Repo $p`, or assigns $this->p = new Repo()
//     (or a typed parameter) in __construct: that class;
//   - C::m() and [C::class, 'm'] route actions: C.
//
// A class name imported with `use A\B\C as D` is written "D.C" (the binding
// and the class, as Go writes pkg.T), so the indexer finds C in the file the
// import resolves to, and leaves a call on a class imported from outside the
// repository (vendor code) unresolved rather than guessing. Other names stay
// as written, without their namespace. Variables are function-scoped; a
// closure sees the enclosing function's variables and $this.

// How a PHP binding's or attribute's type is inferred from its node.
const (
	phpHowAssign uint8 = iota + 1 // $x = new C(), $this->p = $x
	phpHowType                    // a declared type (a property, a promoted parameter)
	phpHowCatch                   // catch (A | B $e): the first type
)

// phpNoClass are type names that are no class.
var phpNoClass = map[string]bool{"self": true, "static": true, "parent": true, "array": true, "callable": true,
	"iterable": true, "object": true, "mixed": true, "null": true, "void": true, "never": true, "bool": true,
	"int": true, "float": true, "string": true, "false": true, "true": true}

func (h *phpHandler) bind(x *extractor, m *match) {
	n := &m.node
	t := &h.types
	at := int(n.StartByte())
	switch m.tag {
	case "bind.assign":
		t.addBind(tbind{name: x.text(m.name), at: at, off: int(n.EndByte()), assign: true, fnScoped: true, how: phpHowAssign, node: *n})
	case "bind.attr":
		if x.text(m.qualifier) == "$this" {
			t.addAttr(tattr{name: x.text(m.name), at: at, ctor: true, how: phpHowAssign, node: *n})
		}
	case "bind.catch":
		t.addBind(tbind{name: x.text(m.name), at: at, off: int(m.name.EndByte()), assign: true, fnScoped: true, how: phpHowCatch, node: *m.value})
	case "bind.untyped":
		t.addBind(tbind{name: x.text(m.name), at: at, off: int(m.name.EndByte()), assign: true, fnScoped: true, node: *m.name})
	}
}

// infer implements langTypes.
func (h *phpHandler) infer(x *extractor, n *sitter.Node, how uint8) (typ, ref string, annotated bool) {
	switch how {
	case phpHowType:
		return h.typeOfDecl(x, n), "", true
	case phpHowCatch:
		for _, ch := range x.named(n) {
			return h.typeOfDecl(x, &ch), "", true
		}
	case phpHowAssign:
		right := field(n, "right")
		switch x.kind(right) {
		case "object_creation_expression":
			for _, ch := range x.named(right) {
				if k := x.kind(&ch); k == "name" || k == "qualified_name" {
					return h.classType(x.text(&ch)), "", false
				}
			}
		case "variable_name":
			return "", x.text(right), false
		}
	}
	return "", "", false
}

// params implements langTypes: a function's parameters, typed or not.
func (h *phpHandler) params(x *extractor, n *sitter.Node) {
	for _, p := range x.named(field(n, "parameters")) {
		switch x.kind(&p) {
		case "simple_parameter", "property_promotion_parameter", "variadic_parameter":
		default:
			continue
		}
		name := field(&p, "name")
		if x.kind(name) != "variable_name" {
			continue
		}
		b := tbind{name: x.text(name), at: int(p.StartByte()), off: int(p.EndByte()), assign: true, fnScoped: true}
		if t := field(&p, "type"); t != nil && x.kind(&p) != "variadic_parameter" {
			b.typ, b.annotated = h.typeOfDecl(x, t), true
		}
		h.types.addBind(b)
	}
}

// typeOfDecl is the class a declared type names: C, ?C; none for unions,
// intersections and builtin types.
func (h *phpHandler) typeOfDecl(x *extractor, t *sitter.Node) string {
	for t != nil {
		switch x.kind(t) {
		case "optional_type", "named_type":
			t = t.NamedChild(0)
		case "name", "qualified_name":
			return h.classType(x.text(t))
		default:
			return ""
		}
	}
	return ""
}

// classType writes class name c as a qualifier type (see above).
func (h *phpHandler) classType(c string) string {
	if strings.Contains(c, "\\") {
		return phpLastSegment(c)
	}
	if phpNoClass[strings.ToLower(c)] {
		return ""
	}
	if full, ok := h.imports[c]; ok {
		return c + "." + phpLastSegment(full)
	}
	return c
}

// finish answers the pending qualifier types once every binding is known.
func (h *phpHandler) finish(x *extractor) {
	t := &h.types
	t.ctor, t.lang = "__construct", h
	h.addAccesses(x)
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
		switch {
		case q == pendVar:
			r.qualType = t.lookup(r.qualifier, r.off)
		case q == pendThis:
			if c := t.thisClass(r.off); c >= 0 {
				r.qualType = t.scopes[c].name
			}
		case q == phpPendProp:
			if c := t.thisClass(r.off); c >= 0 {
				r.qualType = t.attrType(c, r.qualifier[strings.LastIndex(r.qualifier, ">")+1:])
			}
		case strings.HasPrefix(q, phpPendClass):
			r.qualType = h.classType(q[len(phpPendClass):])
		}
	}
}
