package parse

import (
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Rust field reads and writes: every a.f through a chain of names (self,
// a local, a.b) is a read; one that is a call's callee is not an access; an
// assignment or compound assignment to it, or to an element of it
// (self.m[k] = v), is a write. The field's qualifier is typed like a call's.

type rustAccesses struct {
	fieldAccesses // accesses.go
}

// access records a.f as a read, settled in settle.
func (a *rustAccesses) access(x *extractor, h *rustHandler, m *match) {
	if m.qualifier == nil || m.name == nil || !rustNameChain(x, m.qualifier) {
		return
	}
	off := int(m.name.StartByte())
	added := len(x.refs)
	x.addRef(RefReads, x.text(m.name), x.qualifierText(m.qualifier), off)
	if len(x.refs) == added {
		return
	}
	a.read(off, &m.node)
	h.types.qualify(off, m.qualifier, false)
}

// rustNameChain reports whether e is self, a name or a field chain of names,
// the qualifiers whose type the file can say.
func rustNameChain(x *extractor, e *sitter.Node) bool {
	for depth := 0; e != nil && depth < 8; depth++ {
		switch x.kind(e) {
		case "identifier", "self":
			return true
		case "field_expression":
			e = field(e, "value")
		default:
			return false
		}
	}
	return false
}
