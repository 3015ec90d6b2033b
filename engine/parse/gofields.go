package parse

import (
	"go/token"
	"sort"
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
// "calls" ref already) or a write is settled in classifyAccesses, once every
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
		if h.accesses == nil {
			h.accesses = map[int]span{}
		}
		h.accesses[off] = span{int(n.StartByte()), int(n.EndByte())}
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
			h.targets = append(h.targets, span{int(e.StartByte()), int(e.EndByte())})
		}
	case "local.incdec":
		if e := n.NamedChild(0); e != nil {
			h.targets = append(h.targets, span{int(e.StartByte()), int(e.EndByte())})
		}
	}
}

// classifyAccesses drops the reads that are calls' callees and makes writes
// of those that are assignment targets (see assigned): s.x = v writes x,
// s.m[k] = v writes m, s.a.b = v writes b and reads a.
func (h *goHandler) classifyAccesses(x *extractor) {
	if len(h.accesses) == 0 {
		return
	}
	sort.Slice(h.targets, func(i, j int) bool { return h.targets[i].start < h.targets[j].start })
	refs := x.refs[:0]
	for _, r := range x.refs {
		sp, ok := h.accesses[r.off]
		if r.kind != RefReads || !ok {
			refs = append(refs, r)
			continue
		}
		if h.callees[r.off] {
			continue
		}
		if h.writes(x, sp) {
			r.kind = RefWrites
		}
		refs = append(refs, r)
	}
	x.refs = refs
}

// writes reports whether the access spanning sp is an assignment target or
// the indexed part of one.
func (h *goHandler) writes(x *extractor, sp span) bool {
	i := sort.Search(len(h.targets), func(k int) bool { return h.targets[k].start >= sp.start })
	for ; i < len(h.targets) && h.targets[i].start == sp.start; i++ {
		t := h.targets[i]
		if t.end == sp.end || (t.end > sp.end && x.s[sp.end] == '[') {
			return true
		}
	}
	return false
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
