package index

// The name steps that look across the whole repository (steps 4 and 5 of
// resolve.go) and the adjustments of the decisions, in memory.

// uniqueKey groups definitions as "unique name" does: name, language family,
// and whether it is a field.
type uniqueKey struct {
	name, fam string
	field     bool
}

// uniqueDef is the one definition of a key, or several (many).
type uniqueDef struct {
	id     int64
	kind   string
	isTest bool
	many   bool
}

// uniqueNames is "unique name": a name defined once in the repository (in
// the edge's language family), not for a bare Go call, not for a bare call to
// a method, not through a qualifier bound to an external import.
func (g *memGraph) uniqueNames() {
	defs := map[uniqueKey]*uniqueDef{}
	g.eachDefByName(func(name string, rows []*mDef) {
		for _, d := range rows {
			fam := family(d.f.lang)
			if fam == "" {
				continue
			}
			k := uniqueKey{name, fam, d.s.kind == "field"}
			u := defs[k]
			if u == nil {
				defs[k] = &uniqueDef{id: d.s.id, kind: d.s.kind, isTest: d.s.isTest}
				continue
			}
			u.many = u.many || u.id != d.s.id
			u.isTest = u.isTest || d.s.isTest
		}
	})
	g.runStep(func(r *rEdge) (decision, bool) {
		fam := family(r.f.lang)
		if fam == "" {
			return decision{}, false
		}
		u := defs[uniqueKey{r.name, fam, r.kind == kReads || r.kind == kWrites}]
		if u == nil || u.many || (u.isTest && !r.src.isTest) || (r.f.lang == "go" && r.qual == "") ||
			(r.qual == "" && u.kind == "method") || (r.qual == "this" && r.srcInObject) || g.boundExternally(r) {
			return decision{}, false
		}
		return decision{sid: u.id, conf: cInferred}, true
	})
}

// boundExternally: the edge's qualifier is bound to an import from outside
// the repository (fmt.Println is not our Println).
func (g *memGraph) boundExternally(r *rEdge) bool {
	for _, i := range g.imports[r.f.id] {
		if i.qual != "" && i.qual == r.qual && !i.hasPath {
			return true
		}
	}
	return false
}

// untypedKey is what an untyped member access's candidates depend on, so
// that the candidates of a common name are gathered once.
type untypedKey struct {
	name, fam      string
	copied, inTest bool
}

// untypedAccess returns the key of an untyped access of kind kinds through
// another qualifier, or false when r is not one.
func (g *memGraph) untypedAccess(r *rEdge, kinds ...edgeKind) (untypedKey, bool) {
	fam := family(r.f.lang)
	matches := false
	for _, k := range kinds {
		matches = matches || r.kind == k
	}
	if !matches || fam == "" || r.qual == "" || isSelf(r.qual) || g.boundToImport(r) {
		return untypedKey{}, false
	}
	return untypedKey{r.name, fam, copiedCodeRE.MatchString(r.f.dir + "/"), r.src.isTest}, true
}

// untypedCands are the members of kind named k.name in k's family that an
// untyped access may reach: not copied code unless the access is in copied
// code, not tests unless it is in a test.
func (g *memGraph) untypedCands(k untypedKey, kind string) []cand {
	var cands []cand
	for _, d := range g.defsNamed(k.name) {
		if d.s.kind == kind && family(d.f.lang) == k.fam && (!d.copied || k.copied) && (!d.s.isTest || k.inTest) {
			cands = append(cands, defCand(d, 0, cInferred))
		}
	}
	return cands
}

// untypedMethods is "untyped method calls": every method of that name in the
// language, ambiguous when there are several.
func (g *memGraph) untypedMethods() nameStep {
	type settledOnce struct {
		d  decision
		ok bool
	}
	memo := map[untypedKey]settledOnce{}
	return func(r *rEdge) (decision, bool) {
		k, ok := g.untypedAccess(r, kCalls)
		if !ok {
			return decision{}, false
		}
		m, seen := memo[k]
		if !seen {
			m.d, m.ok = settled(g.untypedCands(k, "method"))
			memo[k] = m
		}
		return m.d, m.ok
	}
}

// untypedFields is "untyped field accesses": as untyped methods, for fields,
// when at most maxFieldCandidates fields may be meant.
func (g *memGraph) untypedFields() nameStep {
	type famName struct{ name, fam string }
	type counts struct{ all, code int }
	crowded := map[famName]*counts{}
	g.eachDefByName(func(name string, rows []*mDef) {
		for _, d := range rows {
			if d.s.kind != "field" || d.copied {
				continue
			}
			k := famName{name, family(d.f.lang)}
			c := crowded[k]
			if c == nil {
				c = &counts{}
				crowded[k] = c
			}
			c.all++
			if !d.s.isTest {
				c.code++
			}
		}
	})
	const bound = 8 // maxFieldCandidates
	type settledOnce struct {
		d  decision
		ok bool
	}
	memo := map[untypedKey]settledOnce{}
	return func(r *rEdge) (decision, bool) {
		k, ok := g.untypedAccess(r, kReads, kWrites)
		if !ok {
			return decision{}, false
		}
		if c := crowded[famName{k.name, k.fam}]; c != nil && c.all > bound && (r.src.isTest || c.code > bound) {
			return decision{}, false
		}
		m, seen := memo[k]
		if !seen {
			if c := g.untypedCands(k, "field"); len(c) <= bound {
				m.d, m.ok = settled(c)
			}
			memo[k] = m
		}
		return m.d, m.ok
	}
}

// adjust is adjustSteps: a call to a C/C++ declaration goes to its one
// definition; a call of a Python class to its __init__.
func (g *memGraph) adjust() {
	definitions := map[int64]*mSym{}
	for i := range g.res {
		r := &g.res[i]
		if !r.decided || r.dec.cands != nil || r.dec.sid == 0 {
			continue
		}
		def, ok := definitions[r.dec.sid]
		if !ok {
			def = g.definitionOf(g.syms[r.dec.sid])
			definitions[r.dec.sid] = def
		}
		if def != nil && (!def.isTest || r.src.isTest) {
			r.dec.sid = def.id
		}
	}
	for i := range g.res {
		r := &g.res[i]
		if !r.decided || r.dec.cands != nil || r.dec.sid == 0 || r.kind != kCalls || r.qual != "" {
			continue
		}
		if c := g.syms[r.dec.sid]; c != nil && c.kind == "class" && c.lang == "python" && g.inits[c.id] != nil {
			r.dec.sid = g.inits[c.id].id
		}
	}
}

// definitionOf is the one definition of C/C++ declaration decl (the same
// name, qualified name and kind, not a declaration), or nil.
func (g *memGraph) definitionOf(decl *mSym) *mSym {
	if decl == nil || !decl.decl || (decl.lang != "c" && decl.lang != "cpp") ||
		(decl.kind != "function" && decl.kind != "method") {
		return nil
	}
	var def *mSym
	for _, s := range g.symsByName[decl.name] {
		if s.qname == decl.qname && s.kind == decl.kind && (s.lang == "c" || s.lang == "cpp") && !s.decl {
			if def != nil {
				return nil
			}
			def = s
		}
	}
	return def
}
