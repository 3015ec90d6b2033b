package parse

import (
	"strconv"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// TypeScript overload signatures and ambient declarations.

// signature merges TS overload signatures into the implementation that follows
// them, or groups a run of same-named ambient signatures into one chunk.
func (h *jsHandler) signature(x *extractor, m *match) {
	n := &m.node
	name := stringValue(x, m.name)
	outer := h.outerOf(x, n)
	parent := outer.Parent()
	if parent == nil {
		return
	}
	// Find the next non-comment sibling that is not another same-named signature.
	next := outer.NextNamedSibling()
	for next != nil {
		if x.isComment(next) {
			next = next.NextNamedSibling()
			continue
		}
		inner := h.unwrap(x, next)
		k := x.kind(inner)
		if (k == "function_signature" || k == "method_signature") && stringValue(x, field(inner, "name")) == name {
			next = next.NextNamedSibling()
			continue
		}
		break
	}
	if next != nil {
		inner := h.unwrap(x, next)
		if k := x.kind(inner); (k == "function_declaration" || k == "method_definition") && stringValue(x, field(inner, "name")) == name {
			if i, ok := x.claimed[inner.Id()]; ok {
				d := x.defs[i]
				if s := int(outer.StartByte()); s < d.ownStart {
					d.ownStart = s
					d.start, d.doc = x.attachDocs(s)
					d.sig = x.signature(x.sigStart(outer), bodyOrEnd(inner))
				}
				return
			}
		}
	}
	// An ambient run: extend the run's chunk when this continues it.
	if h.sigRuns == nil {
		h.sigRuns = map[string]int{}
	}
	key := strconv.FormatUint(uint64(parent.Id()), 16) + "/" + name
	if i, ok := h.sigRuns[key]; ok {
		d := x.defs[i]
		prev := outer.PrevNamedSibling()
		for prev != nil && x.isComment(prev) {
			prev = prev.PrevNamedSibling()
		}
		if prev != nil && int(prev.EndByte()) == d.end {
			d.end = int(outer.EndByte())
			x.claimed[n.Id()] = i
			return
		}
	}
	d := &def{name: name, kind: KindFunction, mode: qualNested, exported: isExportOuter(x, outer)}
	if x.kind(n) == "method_signature" {
		d.kind = KindMethod
		if ci, ok := x.claimed[parent.Parent().Id()]; ok {
			d.receiver = x.defs[ci].name
			d.exported = x.defs[ci].exported
		}
	}
	d.sig = x.signature(x.sigStart(outer), int(outer.EndByte()))
	d.result = h.resultType(x, n, d.receiver)
	if i := x.addDef(d, n, outer); i >= 0 {
		h.sigRuns[key] = i
	}
}

// bodyOrEnd returns where an implementation's body starts, or its end.
func bodyOrEnd(impl *sitter.Node) int {
	if b := field(impl, "body"); b != nil {
		return int(b.StartByte())
	}
	return int(impl.EndByte())
}

// unwrap looks through export/ambient wrappers to the declaration.
func (h *jsHandler) unwrap(x *extractor, n *sitter.Node) *sitter.Node {
	for n != nil {
		switch x.kind(n) {
		case "export_statement":
			if d := field(n, "declaration"); d != nil {
				n = d
				continue
			}
			return n
		case "ambient_declaration":
			if c := n.NamedChild(0); c != nil {
				n = c
				continue
			}
			return n
		}
		return n
	}
	return n
}
