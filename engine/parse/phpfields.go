package parse

import (
	"strings"
)

// PHP property reads and writes (RefReads, RefWrites): $this->p, $o->p,
// $o?->p, self::$p and class constants (self::K, C::K, enum cases), with the qualifier and its type as for a method call
// on the same object. Which accesses are writes is known only once the
// whole tree is matched, so the refs are made in finish.

type phpAccess struct {
	name, qual, typ string
	off             int  // the property name
	at              span // the access expression
}

type phpAccesses struct {
	minOff int
	reads  []phpAccess
	writes map[span]bool
}

// sync drops what an earlier tree found at or after the point error
// recovery re-parses from.
func (a *phpAccesses) sync(x *extractor) {
	if x.minOff == a.minOff {
		return
	}
	a.minOff = x.minOff
	rs := a.reads[:0]
	for _, r := range a.reads {
		if r.at.start < a.minOff {
			rs = append(rs, r)
		}
	}
	a.reads = rs
	for s := range a.writes {
		if s.start >= a.minOff {
			delete(a.writes, s)
		}
	}
}

func (h *phpHandler) access(x *extractor, m *match) {
	a := &h.acc
	a.sync(x)
	n := &m.node
	if int(n.StartByte()) < x.minOff {
		return
	}
	if m.tag == "access.write" {
		t := m.value
		for t != nil && x.kind(t) == "subscript_expression" {
			t = t.NamedChild(0) // $this->items[] = $x, $this->map[$k] = $v
		}
		switch x.kind(t) {
		case "member_access_expression", "nullsafe_member_access_expression", "scoped_property_access_expression":
			if a.writes == nil {
				a.writes = map[span]bool{}
			}
			a.writes[span{int(t.StartByte()), int(t.EndByte())}] = true
		}
		return
	}
	var q, typ string
	switch x.kind(n) {
	case "class_constant_access_expression":
		if x.text(m.name) == "class" {
			return // C::class is the class's name
		}
		q, typ = h.scopeQual(x, m.qualifier)
	case "scoped_property_access_expression":
		q, typ = h.scopeQual(x, m.qualifier)
	default:
		q, typ = h.memberQual(x, m.qualifier)
	}
	a.reads = append(a.reads, phpAccess{name: strings.TrimPrefix(x.text(m.name), "$"), qual: q, typ: typ,
		off: int(m.name.StartByte()), at: span{int(n.StartByte()), int(n.EndByte())}})
}

// addAccesses makes the access refs, before their qualifier types are
// answered.
func (h *phpHandler) addAccesses(x *extractor) {
	for _, r := range h.acc.reads {
		kind := RefReads
		if h.acc.writes[r.at] {
			kind = RefWrites
		}
		x.addTypedRef(kind, r.name, r.qual, r.typ, r.off)
	}
}
