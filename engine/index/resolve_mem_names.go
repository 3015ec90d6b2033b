package index

// The name steps (resolve_names.go, resolve_c.go) and the adjustments in
// memory: the edges the typed steps left, decided by where a definition of
// the name stands from the edge.

// nameStep decides one undecided edge, false when it does not.
type nameStep func(r *rEdge) (decision, bool)

func (g *memGraph) decideByName() {
	for _, step := range []func(r *rEdge) []cand{
		g.cppMembers, g.objectMembers, g.sameFile, g.importedFiles, g.reexported,
		g.importedGoPackages, g.sameGoPackage,
	} {
		g.runStep(func(r *rEdge) (decision, bool) { return settled(step(r)) })
	}
	g.uniqueNames()
	g.runStep(g.untypedMethods())
	g.runStep(g.untypedFields())
}

// runStep records step's decisions of the undecided edges.
func (g *memGraph) runStep(step nameStep) {
	var pending []pendingDecision
	for i := range g.res {
		if r := &g.res[i]; !r.decided {
			if d, ok := step(r); ok {
				pending = append(pending, pendingDecision{r, d})
			}
		}
	}
	recordAll(pending)
}

// kindMatches is kindMatch: reads and writes target fields, the others never.
func kindMatches(k edgeKind, defKind string) bool {
	return k.isAccess() == (defKind == "field")
}

func isSelf(qual string) bool {
	return qual == "self" || qual == "this" || qual == "cls" || qual == "super"
}

// qualifierAllows is qualifierRule: whether d may be the target of r.
func qualifierAllows(r *rEdge, d *mDef) bool {
	kind := d.s.kind
	if !kindMatches(r.kind, kind) {
		return false
	}
	switch {
	case r.qual == "":
		return kind != "method"
	case isSelf(r.qual):
		return kind == "method" || kind == "field"
	}
	return kind == "method" || kind == "field" || d.s.qname == r.qual+"."+r.name
}

// boundToImport: the edge's qualifier is one of its file's import bindings.
func (g *memGraph) boundToImport(r *rEdge) bool {
	for _, i := range g.imports[r.f.id] {
		if i.qual != "" && i.qual == r.qual {
			return true
		}
	}
	return false
}

// cppMembers is "C++ members of the caller's class".
func (g *memGraph) cppMembers(r *rEdge) []cand {
	if r.kind != kCalls || r.qual != "" || r.src.recv == "" || r.f.lang != "cpp" {
		return nil
	}
	var cands []cand
	for _, d := range g.defsNamed(r.name) {
		if d.s.kind == "method" && d.s.recvBase == r.src.recv && (d.f.lang == "c" || d.f.lang == "cpp") {
			cands = append(cands, defCand(d, 0, cInferred))
		}
	}
	return cands
}

// objectMembers is "members of the caller's object".
func (g *memGraph) objectMembers(r *rEdge) []cand {
	if !r.srcInObject || r.kind != kCalls || r.qual != "this" || family(r.f.lang) != "js" {
		return nil
	}
	var cands []cand
	for _, d := range g.defsInFile(r.f.id, r.name) {
		if d.s.parent == r.src.parent && (d.s.kind == "function" || d.s.kind == "method") {
			cands = append(cands, defCand(d, 0, cInferred))
		}
	}
	return cands
}

// sameFile is "same file".
func (g *memGraph) sameFile(r *rEdge) []cand {
	defs := g.defsInFile(r.f.id, r.name)
	if len(defs) == 0 || g.boundToImport(r) {
		return nil
	}
	var cands []cand
	for _, d := range defs {
		if !qualifierAllows(r, d) {
			continue
		}
		rnk, conf := 1, cInferred
		if d.s.recvBase == r.src.recv {
			rnk = 0
		}
		if r.qual == "" || ((r.qual == "self" || r.qual == "this" || r.qual == "cls") && d.s.recvBase == r.src.recv) {
			conf = cExact
		}
		cands = append(cands, defCand(d, rnk, conf))
	}
	return cands
}

// bindingConf is the confidence of a target found through an import: exact
// through a binding (pkg.F), inferred for a bare name.
func bindingConf(qual string) confidence {
	if qual != "" {
		return cExact
	}
	return cInferred
}

func exportedRank(d *mSym) int {
	if d.exported {
		return 0
	}
	return 1
}

// importedFiles is "imported files".
func (g *memGraph) importedFiles(r *rEdge) []cand {
	var cands []cand
	for _, i := range g.imports[r.f.id] {
		if i.pathFile == 0 || (r.qual != "" && i.qual != r.qual) {
			continue
		}
		for _, d := range g.defsInFile(i.pathFile, r.name) {
			if (d.s.kind != "method" || (r.qual != "" && d.s.recvBase == r.qual)) && kindMatches(r.kind, d.s.kind) {
				cands = append(cands, defCand(d, exportedRank(d.s), bindingConf(r.qual)))
			}
		}
	}
	return cands
}

// reexported is "re-exported names": the name a Python package's __init__.py
// imports, where its reference edge points.
func (g *memGraph) reexported(r *rEdge) []cand {
	if r.f.lang != "python" {
		return nil
	}
	var cands []cand
	for _, i := range g.imports[r.f.id] {
		if i.pathFile == 0 || (r.qual != "" && i.qual != r.qual) {
			continue
		}
		for _, x := range g.refs[fileName{i.pathFile, r.name}] {
			d := g.syms[g.referenceTarget(x)]
			if d == nil || !kindMatches(r.kind, d.kind) {
				continue
			}
			switch d.kind {
			case "method", "module", "part", "block":
				continue
			}
			if df := g.files[d.file]; df != nil {
				cands = append(cands, cand{o: symOrder(0, d, df), conf: bindingConf(r.qual)})
			}
		}
	}
	return cands
}

// referenceTarget is where reference edge x points for the re-exported
// names step: its decision in this pass when it has one target, none when
// this pass decides it but has not yet, else its stored target.
func (g *memGraph) referenceTarget(x refEdge) int64 {
	if x.res < 0 {
		return x.stored
	}
	if r := &g.res[x.res]; r.decided && r.dec.cands == nil {
		return r.dec.sid
	}
	return 0
}

// importedGoPackages is "imported Go packages".
func (g *memGraph) importedGoPackages(r *rEdge) []cand {
	if r.f.lang != "go" {
		return nil
	}
	var cands []cand
	for _, i := range g.imports[r.f.id] {
		if !i.hasPath || i.qual != r.qual {
			continue
		}
		for _, d := range g.defsInDir(i.path, r.name) {
			if d.f.lang == "go" && d.s.kind != "method" && kindMatches(r.kind, d.s.kind) {
				cands = append(cands, defCand(d, exportedRank(d.s), cExact))
			}
		}
	}
	return cands
}

// sameGoPackage is "same Go package".
func (g *memGraph) sameGoPackage(r *rEdge) []cand {
	if r.f.lang != "go" {
		return nil
	}
	defs := g.defsInDir(r.f.dir, r.name)
	if len(defs) == 0 || g.boundToImport(r) {
		return nil
	}
	conf := cInferred
	if r.qual == "" {
		conf = cExact // a bare name is in the package's scope
	}
	var cands []cand
	for _, d := range defs {
		if d.f.lang == "go" && (!d.s.isTest || r.src.isTest) && qualifierAllows(r, d) {
			cands = append(cands, defCand(d, 0, conf))
		}
	}
	return cands
}
