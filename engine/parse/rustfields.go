package parse

import (
	"sort"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Rust field reads and writes: every a.f through a chain of names (self,
// a local, a.b) is a read; one that is a call's callee is not an access; an
// assignment or compound assignment to it, or to an element of it
// (self.m[k] = v), is a write. The field's qualifier is typed like a call's.

type rustAccesses struct {
	spans   map[int]span // by field name offset: the field expression
	callees map[int]bool // field name offsets of method calls
	targets []span       // assignment targets
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
	if a.spans == nil {
		a.spans = map[int]span{}
	}
	a.spans[off] = span{int(m.node.StartByte()), int(m.node.EndByte())}
	h.types.qualify(off, m.qualifier, false)
}

func (a *rustAccesses) callee(off int) {
	if a.callees == nil {
		a.callees = map[int]bool{}
	}
	a.callees[off] = true
}

func (a *rustAccesses) target(n *sitter.Node) {
	if n != nil {
		a.targets = append(a.targets, span{int(n.StartByte()), int(n.EndByte())})
	}
}

// settle drops the reads that are callees and turns assignment targets into
// writes.
func (a *rustAccesses) settle(x *extractor) {
	if len(a.spans) == 0 {
		return
	}
	sort.Slice(a.targets, func(i, j int) bool { return a.targets[i].start < a.targets[j].start })
	refs := x.refs[:0]
	for _, r := range x.refs {
		sp, ok := a.spans[r.off]
		if r.kind != RefReads || !ok {
			refs = append(refs, r)
			continue
		}
		if a.callees[r.off] {
			continue
		}
		i := sort.Search(len(a.targets), func(k int) bool { return a.targets[k].start >= sp.start })
		for ; i < len(a.targets) && a.targets[i].start == sp.start; i++ {
			if t := a.targets[i]; t.end == sp.end || (t.end > sp.end && x.s[sp.end] == '[') {
				r.kind = RefWrites
				break
			}
		}
		refs = append(refs, r)
	}
	x.refs = refs
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
