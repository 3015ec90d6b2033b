package parse

import (
	"go/token"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Go struct fields and the selector expressions that read or write them.

// structFields records the fields of struct type t declared by def d; an
// embedded field is named after its type, as Go names it.
func (h *goHandler) structFields(x *extractor, d *def, t *sitter.Node) {
	if x.kind(t) != "struct_type" {
		return
	}
	for _, list := range x.named(t) {
		if x.kind(&list) != "field_declaration_list" {
			continue
		}
		for _, fd := range x.named(&list) {
			if x.kind(&fd) != "field_declaration" {
				continue
			}
			ty := h.types.fieldTypeName(x, goField(&fd, "type"))
			start, end := int(fd.StartByte()), int(fd.EndByte())
			names := x.fieldChildren(&fd, "name")
			if len(names) == 0 && ty != "" {
				base := ty[strings.LastIndexByte(ty, '.')+1:]
				x.addField(d, base, ty, start, end, token.IsExported(base))
			}
			for _, nm := range names {
				name := x.text(&nm)
				x.addField(d, name, ty, start, end, token.IsExported(name))
			}
		}
	}
}

// access records the selector expression n (operand.field) as a read of
// field, unless it is reached through something other than names (f().x,
// a[i].x) or is a package member. Whether it is a call's callee (then a
// "calls" ref already) or a write is settled by fieldAccesses.settle, once every
// match is in: a call or an assignment may match before or after its
// selector, and asking the tree for parents costs an allocation a node.
func (h *goHandler) access(x *extractor, m *match) {
	n := &m.node
	if m.qualifier == nil || m.name == nil || !goNameChain(x, m.qualifier) {
		return
	}
	q := x.qualifierText(m.qualifier)
	if x.kind(m.qualifier) == "identifier" && h.importBound(x, q) {
		return
	}
	off := int(m.name.StartByte())
	added := len(x.refs)
	x.addRef(RefReads, x.text(m.name), q, off)
	if len(x.refs) > added {
		h.fields.read(off, n)
		h.types.quals = append(h.types.quals, goQual{off: off, q: *m.qualifier, text: q})
	}
}

// assigned records the targets of an assignment, ++/-- or delete(m, k): the
// spans an access writes when it is one of them or what they index.
func (h *goHandler) assigned(x *extractor, m *match) {
	n := &m.node
	switch m.tag {
	case "local.assign":
		for _, e := range x.named(goField(n, "left")) {
			h.fields.target(&e)
		}
	case "local.incdec":
		h.fields.target(n.NamedChild(0))
	}
}

// goNameChain reports whether e is a name or a selector chain of names (s,
// s.db, (*p)), the qualifiers whose type the file can say.
func goNameChain(x *extractor, e *sitter.Node) bool {
	for depth := 0; e != nil && depth < 8; depth++ {
		switch x.kind(e) {
		case "identifier":
			return true
		case "selector_expression":
			e = goField(e, "operand")
		case "parenthesized_expression":
			e = e.NamedChild(0)
		case "unary_expression":
			if x.text(goField(e, "operator")) != "*" {
				return false
			}
			e = goField(e, "operand")
		default:
			return false
		}
	}
	return false
}

// importBound reports whether name is a package the file imports. Go's
// imports come before any code, so they are all known when accesses are.
func (h *goHandler) importBound(x *extractor, name string) bool {
	if h.importNames == nil || h.importsSeen != len(x.f.Imports) {
		h.importNames = map[string]bool{}
		for _, imp := range x.f.Imports {
			h.importNames[goImportName(imp)] = true
		}
		h.importsSeen = len(x.f.Imports)
	}
	return h.importNames[name]
}
