package index

import "strings"

// The typed steps (resolve_typed.go) in memory: a call or field access whose
// qualifier's type is known resolves on that type, its embedded types or its
// bases.

// tRow is a typed edge (res_typed): the type as written, then as read from
// the context file on, and once found where it is defined (res_tloc: the
// type symbol and its file, its scope rank, how many definitions of its name
// no scope reaches).
type tRow struct {
	r        *rEdge
	ctx      *mFile
	t        string
	ts       *mSym // nil: not located
	tf       *mFile
	rnk, far int32
}

// parentRow is an embedded type or a base of a type (res_parents).
type parentRow struct {
	parent             int64
	pname, pdir, plang string
	ord                int
}

// order is the order candidates are ranked in: rnk, then (path, start_line,
// kind, qualified name) as candOrder, then the id (SQL leaves ties to chance).
type order struct {
	rnk         int
	path        string
	line        int32
	kind, qname string
	id          int64
}

func (a order) less(b order) bool {
	switch {
	case a.rnk != b.rnk:
		return a.rnk < b.rnk
	case a.path != b.path:
		return a.path < b.path
	case a.line != b.line:
		return a.line < b.line
	case a.kind != b.kind:
		return a.kind < b.kind
	case a.qname != b.qname:
		return a.qname < b.qname
	}
	return a.id < b.id
}

func symOrder(rnk int, s *mSym, f *mFile) order {
	return order{rnk: rnk, path: f.path, line: s.line, kind: s.kind, qname: s.qname, id: s.id}
}

func (g *memGraph) decideTyped() {
	for _, ref := range g.typeRef {
		r := &g.res[ref.res]
		g.typed = append(g.typed, &tRow{r: r, ctx: r.f, t: ref.t})
	}
	g.typeRef = nil
	g.callResults()
	for range 3 {
		g.fieldTypes()
	}
	g.externalResults()
	g.keepTyped(func(row *tRow) bool {
		return row.t != "" && !strings.HasPrefix(row.t, "()") && !strings.Contains(row.t, "#")
	})
	for _, row := range g.typed {
		g.locateType(row)
	}
	g.interfaceImplementations()
	// "unknown types": through an interface, or a class defined more than
	// once in no scope, the type is not known after all.
	g.keepTyped(func(row *tRow) bool {
		return row.ts == nil || (row.ts.kind != "interface" && (row.rnk != 3 || row.far <= 1))
	})
	g.typedMethods()
	g.inheritedMethods()
	for _, row := range g.typed {
		record(row.r, decision{conf: cUnresolved})
	}
	g.typed, g.parents = nil, nil // done with: the name steps take their place
}

// keepTyped keeps the typed rows keep holds for.
func (g *memGraph) keepTyped(keep func(*tRow) bool) {
	kept := g.typed[:0]
	for _, row := range g.typed {
		if keep(row) {
			kept = append(kept, row)
		}
	}
	g.typed = kept
}

// inScope ranks where definition s (in file f) stands from the typed row's
// context file, as inScope in resolve_typed.go; false: out of reach.
func (g *memGraph) inScope(row *tRow, tpkg string, s *mSym, f *mFile) (int, bool) {
	lang := row.r.f.lang
	if tpkg == "" && s.file == row.ctx.id {
		return 0, true
	}
	if tpkg == "" && lang == "go" && f.lang == "go" && f.dir == row.ctx.dir {
		return 1, true
	}
	for _, i := range g.imports[row.ctx.id] {
		if i.qual == tpkg && bindingReaches(i, lang, s, f) {
			return 2, true
		}
	}
	return 0, false
}

// bindingReaches: import i, in a file of language lang, reaches definition s
// (in file f): it names s's file, or in Go, s's package.
func bindingReaches(i mImport, lang string, s *mSym, f *mFile) bool {
	return (i.pathFile != 0 && i.pathFile == s.file) || (lang == "go" && f.lang == "go" && i.hasPath && i.path == f.dir)
}

// nearest is the symbol named name that fits, nearest the typed row's
// context file in scope (inScope), then first in the candidate order; nil
// when none is in reach.
func (g *memGraph) nearest(row *tRow, tpkg, name string, fits func(s *mSym) bool) *mSym {
	var best *mSym
	var bestOrder order
	for _, s := range g.symsByName[name] {
		f := g.files[s.file]
		if f == nil || !fits(s) {
			continue
		}
		if rnk, ok := g.inScope(row, tpkg, s, f); ok {
			if o := symOrder(rnk, s, f); best == nil || o.less(bestOrder) {
				best, bestOrder = s, o
			}
		}
	}
	return best
}

// callResults is "call results": "()F" becomes F's result type, read from
// F's file on; calling a class gives the class.
func (g *memGraph) callResults() {
	for _, row := range g.typed {
		if !strings.HasPrefix(row.t, "()") {
			continue
		}
		tpkg, tname := splitTypeName(row.t[2:])
		best := g.nearest(row, tpkg, tname, func(s *mSym) bool { return s.kind == "function" || s.kind == "class" })
		if best == nil {
			continue
		}
		row.t = best.result
		if best.kind == "class" {
			row.t = best.name
		}
		row.ctx = g.files[best.file]
	}
}

// fieldTypes is one round of "field types": "T#f..." becomes the type of T's
// field f ("T#f[]": the element type of a slice field), read from the field's
// file on.
func (g *memGraph) fieldTypes() {
	for _, row := range g.typed {
		if !strings.Contains(row.t, "#") || strings.HasPrefix(row.t, "()") {
			continue
		}
		head, tail, _ := strings.Cut(row.t, "#")
		part, rest, more := strings.Cut(tail, "#")
		if more {
			rest = "#" + rest
		}
		field, elem := strings.TrimSuffix(part, "[]"), strings.HasSuffix(part, "[]")
		tpkg, tname := splitTypeName(head)
		best := g.nearest(row, tpkg, field, func(s *mSym) bool { return s.kind == "field" && !s.recvNull && s.recv == tname })
		if best == nil {
			continue
		}
		ft := ""
		switch slice := strings.HasPrefix(best.result, "[]"); {
		case elem && slice:
			ft = best.result[2:]
		case !elem && !slice:
			ft = best.result
		}
		row.t = ""
		if ft != "" {
			row.t = ft + rest
		}
		row.ctx = g.files[best.file]
	}
}

// externalResults is "external results": F or T of a package imported from
// outside the repository gives an external type, and the edge stays
// unresolved.
func (g *memGraph) externalResults() {
	for _, row := range g.typed {
		t := row.t
		head, _, _ := strings.Cut(t, "#")
		if !(strings.HasPrefix(t, "()") && strings.Contains(t[2:], ".")) && !strings.Contains(head, ".") {
			continue
		}
		pkg, _, _ := strings.Cut(strings.TrimPrefix(t, "()"), "#")
		if i := strings.LastIndexByte(pkg, '.'); i >= 0 {
			pkg = pkg[:i]
		}
		for _, im := range g.imports[row.ctx.id] {
			if !im.hasPath && im.qual == pkg {
				record(row.r, decision{conf: cUnresolved})
				break
			}
		}
	}
}

// locateType is "type locations": the type's definition, nearest first, and
// how many definitions of its name no scope reaches (far).
func (g *memGraph) locateType(row *tRow) {
	tpkg, tname := splitTypeName(row.t)
	lang := row.r.f.lang
	var best *mSym
	var bestOrder order
	far := int32(0)
	consider := func(rnk int, s *mSym, f *mFile) {
		if o := symOrder(rnk, s, f); best == nil || o.less(bestOrder) {
			best, bestOrder = s, o
		}
	}
	for _, s := range g.symsByName[tname] {
		f := g.files[s.file]
		if f == nil || !isTypeKind(s.kind) {
			continue
		}
		if tpkg == "" && s.file == row.ctx.id {
			consider(0, s, f)
		}
		if tpkg == "" && lang == "go" && f.dir == row.ctx.dir && f.lang == "go" {
			consider(1, s, f)
		}
		for _, i := range g.imports[row.ctx.id] {
			if i.qual == tpkg && bindingReaches(i, lang, s, f) {
				consider(2, s, f)
			}
		}
		if tpkg == "" && lang != "" && lang != "go" && f.lang != "" && f.lang != "go" {
			consider(3, s, f)
			far++
		}
	}
	if best != nil {
		row.ts, row.tf, row.rnk, row.far = best, g.files[best.file], int32(bestOrder.rnk), far
	}
}

// isTypeKind: the kinds a qualifier's type can be (typeKinds).
func isTypeKind(kind string) bool {
	switch kind {
	case "class", "struct", "interface", "type", "enum":
		return true
	}
	return false
}

// memberKind is the kind of member a typed edge looks for on its type.
func memberKindOf(k edgeKind) string {
	if k == kCalls {
		return "method"
	}
	return "field"
}

// interfaceImplementations is "interface implementations": a call through a
// Go interface, to the methods of the types implementing it.
func (g *memGraph) interfaceImplementations() {
	type impl struct{ dir, name string }
	var pending []pendingDecision
	for _, row := range g.typed {
		if row.ts == nil || row.ts.kind != "interface" || row.tf.lang != "go" || row.r.kind != kCalls {
			continue
		}
		var cands []cand
		seen := map[impl]bool{}
		for _, ty := range g.implOf[row.ts.id] {
			s := g.syms[ty]
			f := g.files[s.file]
			if f == nil || seen[impl{f.dir, s.name}] {
				continue
			}
			seen[impl{f.dir, s.name}] = true
			for _, d := range g.defsInDir(f.dir, row.r.name) {
				if d.s.kind == "method" && d.f.lang == "go" && d.s.recvBase == s.name {
					cands = append(cands, defCand(d, 0, cInferred))
				}
			}
		}
		pending = appendSettled(pending, row.r, cands)
	}
	recordAll(pending)
}

// typedMethods is "typed methods": the member on the located type itself.
func (g *memGraph) typedMethods() {
	var pending []pendingDecision
	for _, row := range g.typed {
		r := row.r
		if row.ts == nil || r.qual == "super" {
			continue
		}
		mkind := memberKindOf(r.kind)
		var cands []cand
		switch {
		case row.tf.lang == "go":
			for _, d := range g.defsInDir(row.tf.dir, r.name) {
				if d.s.kind == mkind && d.f.lang == "go" && d.s.recvBase == row.ts.name {
					cands = append(cands, defCand(d, 0, cExact))
				}
			}
		case row.tf.lang != "":
			for _, d := range g.membersOf(row.ts.id, r.name) {
				if d.s.kind == mkind {
					cands = append(cands, defCand(d, 0, cExact))
				}
			}
		}
		pending = appendSettled(pending, r, cands)
	}
	recordAll(pending)
}

// inheritedMethods is "embedded and base methods": promoted (Go, exact) or
// inherited (the first base in order that has it, inferred), two levels deep.
func (g *memGraph) inheritedMethods() {
	var pending []pendingDecision
	for _, row := range g.typed {
		r := row.r
		if row.ts == nil || r.decided {
			continue
		}
		mkind := memberKindOf(r.kind)
		var cands []cand
		visit := func(p parentRow, depth, ord int) {
			if p.plang == "go" {
				for _, d := range g.defsInDir(p.pdir, r.name) {
					if d.s.kind == mkind && d.f.lang == "go" && d.s.recvBase == p.pname {
						cands = append(cands, defCand(d, depth*1000000, cExact))
					}
				}
				return
			}
			for _, d := range g.membersOf(p.parent, r.name) {
				if d.s.kind == mkind {
					cands = append(cands, defCand(d, depth*1000000+ord, cInferred))
				}
			}
		}
		for _, p1 := range g.parentsOf(row.ts.id) {
			visit(p1, 1, p1.ord)
			for _, p2 := range g.parentsOf(p1.parent) {
				visit(p2, 2, p1.ord*1000+p2.ord)
			}
		}
		pending = appendSettled(pending, r, cands)
	}
	recordAll(pending)
}
