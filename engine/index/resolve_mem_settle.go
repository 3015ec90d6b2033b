package index

import (
	"cmp"
	"slices"
)

// cand is a candidate target of an edge in one step.
type cand struct {
	o    order // rnk, then the candidate order
	conf confidence
}

func defCand(d *mDef, rnk int, conf confidence) cand {
	return cand{o: symOrder(rnk, d.s, d.f), conf: conf}
}

// pendingDecision is a step's decision, recorded once the step has looked at
// every edge: a step reads the decisions made before it, never its own (as
// one SQL statement reads res_out as it was before it).
type pendingDecision struct {
	r *rEdge
	d decision
}

// settled is settle (resolve.go) for one edge: the candidates of the lowest
// rnk remain; one is the target with its confidence, several make the edge
// ambiguous, listed in the candidate order. false without candidates.
func settled(cands []cand) (decision, bool) {
	if len(cands) == 0 {
		return decision{}, false
	}
	low := cands[0].o.rnk
	for _, c := range cands[1:] {
		low = min(low, c.o.rnk)
	}
	var kept []cand
	for _, c := range cands {
		if c.o.rnk == low {
			kept = append(kept, c)
		}
	}
	slices.SortFunc(kept, func(a, b cand) int {
		if a.o.less(b.o) {
			return -1
		}
		if b.o.less(a.o) {
			return 1
		}
		return cmp.Compare(a.conf, b.conf)
	})
	ids := make([]int64, 0, len(kept))
	conf := kept[0].conf
	for i, c := range kept {
		if i > 0 && c.o.id == kept[i-1].o.id {
			continue
		}
		ids = append(ids, c.o.id)
		conf = min(conf, c.conf)
	}
	if len(ids) == 1 {
		return decision{sid: ids[0], conf: conf}, true
	}
	return decision{sid: ids[0], conf: cAmbiguous, cands: &ids}, true
}

// appendSettled appends r's settled decision, when it has candidates.
func appendSettled(pending []pendingDecision, r *rEdge, cands []cand) []pendingDecision {
	if d, ok := settled(cands); ok {
		pending = append(pending, pendingDecision{r, d})
	}
	return pending
}

func recordAll(pending []pendingDecision) {
	for _, p := range pending {
		record(p.r, p.d)
	}
}

// parentsOf is insertParents for one type: its embedded types (Go), found in
// its package or through its file's import of their package, and its bases
// (other languages), each the class of that name nearest its file.
func (g *memGraph) parentsOf(child int64) []parentRow {
	if rows, ok := g.parents[child]; ok {
		return rows
	}
	var rows []parentRow
	c := g.syms[child]
	if c != nil {
		rows = append(g.embeddedTypes(c), g.baseClasses(c)...)
	}
	g.parents[child] = rows
	return rows
}

func (g *memGraph) embeddedTypes(c *mSym) []parentRow {
	cf := g.files[c.file]
	if cf == nil || cf.lang != "go" {
		return nil
	}
	var rows []parentRow
	for i, name := range g.embeds[c.id] {
		tpkg, tname := splitTypeName(name)
		for _, p := range g.symsByName[tname] {
			pf := g.files[p.file]
			if pf == nil || pf.lang != "go" || !isTypeKind(p.kind) {
				continue
			}
			if (tpkg == "" && pf.dir == cf.dir) || g.importsDir(c.file, tpkg, pf.dir) {
				rows = append(rows, parentRow{parent: p.id, pname: p.name, pdir: pf.dir, plang: pf.lang, ord: i + 1})
			}
		}
	}
	return rows
}

// importsDir reports whether file has an import edge bound to qual naming dir.
func (g *memGraph) importsDir(file int64, qual, dir string) bool {
	for _, i := range g.imports[file] {
		if i.qual == qual && i.hasPath && i.path == dir {
			return true
		}
	}
	return false
}

// importsFile reports whether file has an import edge linked to target.
func (g *memGraph) importsFile(file, target int64) bool {
	for _, i := range g.imports[file] {
		if i.linked != 0 && i.linked == target {
			return true
		}
	}
	return false
}

func (g *memGraph) baseClasses(c *mSym) []parentRow {
	if c.lang == "" || c.lang == "go" {
		return nil
	}
	type base struct {
		row  parentRow
		line int32
		edge int64
	}
	var bases []base
	for _, ie := range g.inherits[c.id] {
		var best *mSym
		var bestOrder order
		for _, p := range g.symsByName[ie.name] {
			pf := g.files[p.file]
			if pf == nil || p.kind != "class" || pf.lang == "" || pf.lang == "go" {
				continue
			}
			rnk := 2
			if p.file == c.file {
				rnk = 0
			} else if g.importsFile(c.file, p.file) {
				rnk = 1
			}
			// Ordered by place, path, line and qualified name (not kind).
			o := order{rnk: rnk, path: pf.path, line: p.line, qname: p.qname, id: p.id}
			if best == nil || o.less(bestOrder) {
				best, bestOrder = p, o
			}
		}
		if best != nil {
			pf := g.files[best.file]
			bases = append(bases, base{parentRow{parent: best.id, pname: best.name, pdir: pf.dir, plang: pf.lang}, ie.line, ie.id})
		}
	}
	slices.SortFunc(bases, func(a, b base) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.edge, b.edge))
	})
	rows := make([]parentRow, len(bases))
	for i, b := range bases {
		rows[i] = b.row
		rows[i].ord = i + 1
	}
	return rows
}
