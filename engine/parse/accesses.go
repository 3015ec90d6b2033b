package parse

import (
	"sort"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// fieldAccesses holds a handler's field reads until every match of the file is
// in (a call or an assignment may match before or after its selector, and
// asking the tree for parents costs an allocation a node), then settles them:
// a read that is a call's callee is no access, and one that is an assignment
// target, or what a target indexes (s.m[k] = v), is a write. Go and Rust share it.
type fieldAccesses struct {
	spans   map[int]span // by field name offset: the access expression's span
	callees map[int]bool // field name offsets of method calls: not accesses
	targets []span       // assignment, ++/--, delete and compound-assignment targets
}

// read records the access whose field name is at off, spanning n.
func (a *fieldAccesses) read(off int, n *sitter.Node) {
	if a.spans == nil {
		a.spans = map[int]span{}
	}
	a.spans[off] = span{int(n.StartByte()), int(n.EndByte())}
}

// callee marks the field name at off as a method call's.
func (a *fieldAccesses) callee(off int) {
	if a.callees == nil {
		a.callees = map[int]bool{}
	}
	a.callees[off] = true
}

// target records n as something written to.
func (a *fieldAccesses) target(n *sitter.Node) {
	if n != nil {
		a.targets = append(a.targets, span{int(n.StartByte()), int(n.EndByte())})
	}
}

// settle drops the reads that are callees and turns assignment targets into writes.
func (a *fieldAccesses) settle(x *extractor) {
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
		if a.writes(x, sp) {
			r.kind = RefWrites
		}
		refs = append(refs, r)
	}
	x.refs = refs
}

// writes reports whether the access spanning sp is an assignment target or
// the indexed part of one.
func (a *fieldAccesses) writes(x *extractor, sp span) bool {
	i := sort.Search(len(a.targets), func(k int) bool { return a.targets[k].start >= sp.start })
	for ; i < len(a.targets) && a.targets[i].start == sp.start; i++ {
		t := a.targets[i]
		if t.end == sp.end || (t.end > sp.end && x.s[sp.end] == '[') {
			return true
		}
	}
	return false
}
