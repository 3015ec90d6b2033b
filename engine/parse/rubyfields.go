package parse

import "sort"

// Ruby instance variables as fields and their reads and writes: @x is a
// field of the innermost class or module around its first assignment
// (Name "@x", Type the class of C.new when that is what is assigned); every
// @x is a read of it, or a write when assigned (=, ||=, +=), qualifier
// "self" and the enclosing class as QualifierType.

// rbIvars are the instance variable occurrences, by offset.
type rbIvars struct {
	reads  []rbIdent
	writes map[int]bool // offsets of assigned @x
}

func (h *rubyHandler) ivarAccess(x *extractor, m *match) {
	off := int(m.node.StartByte())
	if off < x.minOff {
		return
	}
	a := &h.iv
	if m.tag == "access.ivarw" {
		h.markIvarWrite(int(m.name.StartByte()))
		return
	}
	if name := x.text(&m.node); name != "" {
		a.reads = append(a.reads, rbIdent{name: name, off: off})
	}
}

func (h *rubyHandler) markIvarWrite(off int) {
	if h.iv.writes == nil {
		h.iv.writes = map[int]bool{}
	}
	h.iv.writes[off] = true
}

// settleIvars records the fields and the access refs (before settleRefs).
func (h *rubyHandler) settleIvars(x *extractor, cls defTree) {
	names := make([]string, 0, len(h.ivars))
	for name := range h.ivars {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, b := range h.ivars[name] {
			if c := cls.at(b.at); c != nil && b.hasNode {
				x.addField(c, name, h.valueType(x, b), int(b.node.StartByte()), int(b.node.EndByte()), false)
			}
		}
	}
	for _, r := range h.iv.reads {
		kind := RefReads
		if h.iv.writes[r.off] {
			kind = RefWrites
		}
		x.refs = append(x.refs, rawRef{kind: kind, name: r.name, qualifier: "self", qualType: rbPendSelf, off: r.off})
	}
}
