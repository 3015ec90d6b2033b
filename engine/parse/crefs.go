package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// C and C++ references: calls (bare, through an object, scoped), `new`, and
// base classes.

// call is f(x), s->cb(x), obj.m(x), this->m<T>(x).
func (h *cHandler) call(x *extractor, m *match) {
	nameNode := m.name
	if nameNode == nil && m.callee != nil {
		nameNode = x.templateMethodName(m.callee)
	}
	if nameNode == nil {
		return
	}
	name, off := x.text(nameNode), int(nameNode.StartByte())
	if m.qualifier == nil {
		x.addRef(RefCalls, name, "", off)
		return
	}
	x.addRef(RefCalls, name, x.qualifierText(m.qualifier), off)
	if h.cpp {
		h.types.qualifier(x, off, m.qualifier)
	}
}

// templateMethodName is m in obj.m<T>() and obj.template m<T>().
func (x *extractor) templateMethodName(n *sitter.Node) *sitter.Node {
	for depth := 0; n != nil && depth < 4; depth++ {
		switch x.kind(n) {
		case "template_method":
			return field(n, "name")
		case "dependent_name":
			n = n.NamedChild(0)
		default:
			return nil
		}
	}
	return nil
}

// scopedCall is ns::f(x), Foo::make(), f<T>(x). The scope is the qualifier,
// with dots. Calls into std:: are left out: the standard library is never the
// repository's, and a same-named function of the repository is not it.
func (h *cHandler) scopedCall(x *extractor, callee *sitter.Node) {
	if callee == nil {
		return
	}
	scope, name := x.cNameParts(callee)
	if name == "" || (len(scope) > 0 && scope[0] == "std") || cCasts[name] {
		return
	}
	off := int(callee.StartByte())
	x.addRef(RefCalls, name, strings.Join(scope, "."), off)
	if len(scope) > 0 {
		h.types.static(off, scope[len(scope)-1])
	}
}

// cCasts look like calls of template functions.
var cCasts = map[string]bool{"static_cast": true, "dynamic_cast": true, "reinterpret_cast": true, "const_cast": true}

// newCall is new Foo(x): a call to Foo, whose constructor is the class.
func (h *cHandler) newCall(x *extractor, t *sitter.Node) {
	if t == nil {
		return
	}
	switch x.kind(t) {
	case "type_identifier", "qualified_identifier", "template_type":
	default:
		return
	}
	scope, name := x.cNameParts(t)
	if name == "" || (len(scope) > 0 && scope[0] == "std") {
		return
	}
	x.addRef(RefCalls, name, strings.Join(scope, "."), int(t.StartByte()))
}

// bases are the classes in a base_class_clause: class Foo : public Base<T>,
// ns::Other. Standard library bases are left out, as calls into std:: are.
func (h *cHandler) bases(x *extractor, n *sitter.Node) {
	for _, b := range x.named(n) {
		switch x.kind(&b) {
		case "type_identifier", "qualified_identifier", "template_type":
		default:
			continue
		}
		scope, name := x.cNameParts(&b)
		if name == "" || (len(scope) > 0 && scope[0] == "std") {
			continue
		}
		x.addRef(RefInherits, name, strings.Join(scope, "."), int(b.StartByte()))
	}
}
