package parse

import (
	"sort"
	"strings"
)

// Fields and field accesses, shared by the language handlers: a handler
// records a field with addField against its owner's def and an access with
// addTypedRef(RefReads|RefWrites, ...); build turns them into File.Fields and
// deduplicated refs.

// rawField is a field found in the tree, before its owner has a symbol index.
type rawField struct {
	owner      *def
	name, typ  string
	start, end int // byte range of the declaration
	exported   bool
}

// addField records field name of owner declared at [start, end). A name the
// owner already has is ignored: the first declaration wins.
func (x *extractor) addField(owner *def, name, typ string, start, end int, exported bool) {
	if owner == nil || strings.TrimSpace(name) == "" || start < x.minOff {
		return
	}
	for i := range x.fields {
		if x.fields[i].owner == owner && x.fields[i].name == name {
			return
		}
	}
	x.fields = append(x.fields, rawField{owner: owner, name: name, typ: typ, start: start, end: end, exported: exported})
}

// buildFields turns the recorded fields whose owner became a symbol into
// File.Fields, in owner then source order.
func (x *extractor) buildFields() {
	for _, rf := range x.fields {
		o := rf.owner
		if o.dropped || o.sym <= 0 || o.sym >= len(x.f.Symbols) || rf.start < o.ownStart || rf.end > o.end {
			continue
		}
		owner := x.f.Symbols[o.sym]
		qual := owner.QualifiedName
		if x.f.Language == "go" {
			qual = owner.Name // methods are Type.Method, not pkg.Type.Method
		}
		s := x.symbol(x.lineOf(rf.start), x.endLineOf(rf.start, rf.end))
		x.f.Fields = append(x.f.Fields, Field{
			Name: rf.name, QualifiedName: qual + "." + rf.name, Owner: o.sym, Type: rf.typ,
			Signature: x.signature(rf.start, rf.end),
			StartLine: s.StartLine, EndLine: s.EndLine, StartByte: s.StartByte, EndByte: s.EndByte,
			Content: s.Content, Exported: rf.exported,
		})
	}
	fs := x.f.Fields
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Owner != fs[j].Owner {
			return fs[i].Owner < fs[j].Owner
		}
		return fs[i].StartByte < fs[j].StartByte
	})
}

// accessKey identifies a field access for deduplication.
type accessKey struct {
	from            int
	kind            RefKind
	qualifier, name string
}

// dedupeAccesses keeps the first read and the first write of each field
// through each qualifier per definition (see RefReads).
func dedupeAccesses(refs []Ref) []Ref {
	seen := map[accessKey]bool{}
	out := refs[:0]
	for _, r := range refs {
		if r.Kind == RefReads || r.Kind == RefWrites {
			k := accessKey{r.From, r.Kind, r.Qualifier, r.Name}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, r)
	}
	return out
}
