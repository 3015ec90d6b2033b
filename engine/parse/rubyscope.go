package parse

import (
	"sort"
	"strings"
)

// Ruby owners and scopes by byte range: the classes a member or a call is
// in, the defs a local variable belongs to. Ranges come from query matches,
// so nothing here walks the tree.

// spanTree answers "innermost range containing off" over nested ranges.
type spanTree struct {
	s      []span // sorted by start, outer first
	parent []int
}

func newSpanTree(s []span) spanTree {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].start != s[j].start {
			return s[i].start < s[j].start
		}
		return s[i].end > s[j].end
	})
	t := spanTree{s: s, parent: make([]int, len(s))}
	var stack []int
	for i := range s {
		for len(stack) > 0 && s[stack[len(stack)-1]].end < s[i].end {
			stack = stack[:len(stack)-1]
		}
		t.parent[i] = -1
		if len(stack) > 0 {
			t.parent[i] = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	return t
}

// at returns the index of the innermost range containing off, or -1.
func (t spanTree) at(off int) int {
	i := sort.Search(len(t.s), func(i int) bool { return t.s[i].start > off }) - 1
	for i >= 0 && t.s[i].end <= off {
		i = t.parent[i]
	}
	return i
}

// defTree is a spanTree of definitions.
type defTree struct {
	spanTree
	defs []*def
}

func newDefTree(ds []*def) defTree {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].ownStart != ds[j].ownStart {
			return ds[i].ownStart < ds[j].ownStart
		}
		return ds[i].end > ds[j].end
	})
	s := make([]span, len(ds))
	for i, d := range ds {
		s[i] = span{d.ownStart, d.end}
	}
	return defTree{spanTree: newSpanTree(s), defs: ds}
}

// at returns the innermost definition containing off, or nil.
func (t defTree) at(off int) *def {
	if i := t.spanTree.at(off); i >= 0 {
		return t.defs[i]
	}
	return nil
}

// around returns the innermost definition containing d other than d.
func (t defTree) around(d *def) *def {
	i := t.spanTree.at(d.ownStart)
	for i >= 0 && (t.defs[i] == d || t.s[i].end < d.end) {
		i = t.parent[i]
	}
	if i >= 0 {
		return t.defs[i]
	}
	return nil
}

// settleMembers gives methods, accessors and constants their class: the
// receiver, "Class.name", and the visibility marks of its body. A def
// outside any class or module is a function.
func (h *rubyHandler) settleMembers(cls defTree) {
	for _, d := range h.members {
		c := cls.around(d)
		if c == nil {
			if d.kind == KindMethod {
				d.kind = KindFunction
			}
			d.qual = d.name
			continue
		}
		switch d.kind {
		case KindClass:
			d.qual = d.name
		case KindConst:
			d.qual = c.name + "." + d.name
		default:
			d.receiver, d.qual = c.name, c.name+"."+d.name
			d.exported = !h.private(cls, c, d)
		}
	}
}

// private reports whether method d of class c follows a bare private or
// protected in c's body, or is named by private :d.
func (h *rubyHandler) private(cls defTree, c, d *def) bool {
	priv, at := false, -1
	for _, v := range h.vis {
		if cls.at(v.off) != c {
			continue
		}
		if v.names == nil {
			if v.off < d.ownStart && d.ownStart < v.end && v.off > at {
				priv, at = v.private, v.off
			}
			continue
		}
		for _, n := range v.names {
			if n == d.name {
				return v.private
			}
		}
	}
	return priv
}

// methodAt returns the index of the innermost def holding off, or -1.
func (h *rubyHandler) methodAt(off int) int {
	if h.mtree.s == nil && len(h.methods) > 0 {
		h.mtree = newSpanTree(h.methods)
	}
	return h.mtree.at(off)
}

// local returns the binding of local variable name in force at off: the
// last one before it in the same def; ok is false when there is none.
func (h *rubyHandler) local(name string, off int) (b rbBind, ok bool) {
	bs := h.binds[name]
	if len(bs) == 0 {
		return b, false
	}
	scope := h.methodAt(off)
	for i := sort.Search(len(bs), func(i int) bool { return bs[i].at >= off }) - 1; i >= 0; i-- {
		if h.methodAt(bs[i].at) == scope {
			return bs[i], true
		}
	}
	return b, false
}

func (h *rubyHandler) isLocal(name string, off int) bool {
	_, ok := h.local(name, off)
	return ok
}

// valueType is the class an assignment's value is an instance of: C for
// C.new(...) and C::D.new(...), "" for anything else.
func (h *rubyHandler) valueType(x *extractor, b rbBind) string {
	if !b.hasNode {
		return ""
	}
	r := field(&b.node, "right")
	if x.kind(r) != "call" || x.text(field(r, "method")) != "new" {
		return ""
	}
	recv := field(r, "receiver")
	if k := x.kind(recv); k != "constant" && k != "scope_resolution" {
		return ""
	}
	name, _ := rbConstName(x, recv)
	return name
}

// ivarType is the class of instance variable v in class c: the type every
// assignment to it in c gives, "" when they differ or say nothing.
func (h *rubyHandler) ivarType(x *extractor, cls defTree, c *def, v string) string {
	typ := ""
	for _, b := range h.ivars[v] {
		if cls.at(b.at) != c {
			continue
		}
		t := h.valueType(x, b)
		if t == "" || (typ != "" && t != typ) {
			return ""
		}
		typ = t
	}
	return typ
}

// settleRefs answers the pending qualifier types and drops the calls that
// name a DSL block's method (describe, it): the block is the definition.
func (h *rubyHandler) settleRefs(x *extractor, cls defTree, dslCalls map[int]bool) {
	self := func(off int) string {
		if c := cls.at(off); c != nil {
			return c.name
		}
		return ""
	}
	out := make([]rawRef, 0, len(x.refs))
	for _, r := range x.refs {
		if (r.kind == RefCalls && dslCalls[r.off]) || strings.TrimSpace(r.name) == "" {
			continue // a DSL block's call, or a name error recovery made of a blank
		}
		switch r.qualType {
		case rbPendImplicit:
			r.qualType = self(r.off)
			if r.qualType != "" {
				r.qualifier = "self"
			}
		case rbPendSelf:
			r.qualType = self(r.off)
		case rbPendRecv:
			if b, ok := h.local(r.qualifier, r.off); ok {
				r.qualType = h.valueType(x, b)
				break
			}
			// The receiver is itself a call of self's method: items.sum.
			r.qualType = ""
			if strings.TrimSpace(r.qualifier) == "" {
				break
			}
			recv := rawRef{kind: RefCalls, name: r.qualifier, qualType: self(r.off), off: r.off}
			if recv.qualType != "" {
				recv.qualifier = "self"
			}
			out = append(out, recv)
		case rbPendIvar:
			r.qualType = ""
			if c := cls.at(r.off); c != nil {
				r.qualType = h.ivarType(x, cls, c, r.qualifier)
			}
		}
		out = append(out, r)
	}
	x.refs = out
}
