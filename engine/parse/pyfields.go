package parse

import (
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Python fields and field accesses.
//
// A class's fields are the names assigned or annotated in its body (x = 1,
// x: int, x: int = 0) but for dunders and a name the class also defines as a
// method (area = property(area)), and the self.x assigned in its __init__.
// Their declarations come from the bindings the type table keeps anyway
// (pytypes.go), so they cost no match of their own.
//
// Every obj.attr whose object is a name or a dotted name is a read, unless
// it is a called method (a "calls" ref), a decorator (called too), a base
// class (an "inherits" ref), a dunder, or its root is a module an import
// binds. It is a write instead when it, or the subscript it is the root of,
// is the target of an assignment, augmented assignment or del. The patterns
// that tell these apart match the same attribute as the read pattern, in an
// order not worth relying on, so finish sorts reads out by the offset of the
// attribute's name.

// pyFields is what the Python handler gathers for fields and accesses while
// matching.
type pyFields struct {
	minOff  int
	classes map[int]*def // class definitions by the start of their class_definition node
	skip    offsets      // attribute names that are no access: called, a decorator, a base
	writes  offsets      // attribute names that are targets
	tuples  []tattr      // self.a, self.b = ...: field candidates the type table does not keep
}

// sync drops what an earlier tree found at or after the point error recovery
// re-parses from (as typeTable.sync does).
func (p *pyFields) sync(x *extractor) {
	if x.minOff == p.minOff {
		return
	}
	cut := x.minOff
	p.minOff = cut
	p.skip.cut(cut)
	p.writes.cut(cut)
	for off := range p.classes {
		if off >= cut {
			delete(p.classes, off)
		}
	}
	ts := p.tuples[:0]
	for _, a := range p.tuples {
		if a.at < cut {
			ts = append(ts, a)
		}
	}
	p.tuples = ts
}

func (p *pyFields) addClass(n *sitter.Node, d *def) {
	if p.classes == nil {
		p.classes = map[int]*def{}
	}
	p.classes[int(n.StartByte())] = d
}

// noAccess marks the attribute whose name is n as no field access.
func (p *pyFields) noAccess(n *sitter.Node) {
	p.skip = append(p.skip, int(n.StartByte()))
}

// offsets is a set of byte offsets, appended to while matching and sorted
// once before it is asked: cheaper than a map for one entry per method call.
type offsets []int

func (o *offsets) cut(off int) {
	kept := (*o)[:0]
	for _, v := range *o {
		if v < off {
			kept = append(kept, v)
		}
	}
	*o = kept
}

func (o offsets) has(off int) bool {
	i := sort.SearchInts(o, off)
	return i < len(o) && o[i] == off
}

// accessMatch handles the access.* captures of python.scm.
func (h *pyHandler) accessMatch(x *extractor, m *match) {
	p := &h.fl
	switch m.tag {
	case "access.read":
		q := x.qualifierText(m.qualifier)
		if !dottedName(q) {
			return // a[0].x, a long chain cut short
		}
		name := x.text(m.name)
		if isDunder(name) {
			return // __class__, __dict__: the language's, never a field
		}
		q, typ := pyQualType(q)
		x.addTypedRef(RefReads, name, q, typ, int(m.name.StartByte()))
	case "access.write":
		p.targets(x, m.name, nil)
	case "access.del":
		for _, ch := range x.named(&m.node) {
			p.targets(x, &ch, nil)
		}
	case "access.skip":
		p.noAccess(m.name)
	}
}

// targets marks the attributes target n writes: an attribute, the attribute
// a subscript is taken of (self.items[k] = v writes items), each element of a
// tuple or list. With stmt (an assignment) a self.x inside a tuple is also a
// field candidate; a plain self.x = v already is one (bindAssign).
func (p *pyFields) targets(x *extractor, n, stmt *sitter.Node) {
	switch x.kind(n) {
	case "attribute":
		p.write(n)
	case "subscript":
		v := field(n, "value")
		for x.kind(v) == "subscript" {
			v = field(v, "value")
		}
		if x.kind(v) == "attribute" {
			p.write(v)
		}
	case "pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression",
		"expression_list", "tuple", "list":
		for _, ch := range x.named(n) {
			if stmt != nil && x.kind(&ch) == "attribute" {
				if q := x.text(&ch); strings.HasPrefix(q, "self.") && plainIdent(q[len("self."):]) {
					p.tuples = append(p.tuples, tattr{name: q[len("self."):], at: int(stmt.StartByte()), ctor: true, node: *stmt})
				}
			}
			p.targets(x, &ch, stmt)
		}
	}
}

func (p *pyFields) write(attr *sitter.Node) {
	if name := field(attr, "attribute"); name != nil {
		p.writes = append(p.writes, int(name.StartByte()))
	}
}

// settleAccesses drops the reads that are no access and turns targets into
// writes; it runs before the type table resolves qualifier types, so that
// what is dropped is never looked up.
func (p *pyFields) settleAccesses(x *extractor) {
	modules := pyModuleNames(x.f.Imports)
	sort.Ints(p.skip)
	sort.Ints(p.writes)
	refs := x.refs[:0]
	for _, r := range x.refs {
		if r.kind == RefReads {
			root, _, _ := strings.Cut(r.qualifier, ".")
			if p.skip.has(r.off) || modules[root] {
				continue
			}
			if p.writes.has(r.off) {
				r.kind = RefWrites
			}
		}
		refs = append(refs, r)
	}
	x.refs = refs
}

// pyModuleNames are the names imports bind to modules: `import a.b` binds a,
// `import a as b` b, and `from a import b` b, unless b starts with an upper
// case letter (a class, whose attributes are fields, more likely than a
// module).
func pyModuleNames(imps []Import) map[string]bool {
	if len(imps) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, imp := range imps {
		if imp.Names == nil {
			name := imp.Alias
			if name == "" {
				name, _, _ = strings.Cut(imp.Path, ".")
			}
			out[name] = true
			continue
		}
		for _, nm := range imp.Names {
			name := nm.Alias
			if name == "" {
				name = nm.Name
			}
			if !startsUpper(name) && name != "*" {
				out[name] = true
			}
		}
	}
	return out
}

// pyFieldDecl is one declaration of a field candidate.
type pyFieldDecl struct {
	key   attrKey // the class scope and the name
	at    int
	tuple bool // one of several targets: the value is not its own
	a     *tattr
}

// addFields records the fields of the file's classes, each at its first
// declaration, typed by its first annotation or else by the first
// declaration whose value has an evident type.
func (h *pyHandler) addFields(x *extractor) {
	p, t := &h.fl, &h.types
	if len(p.classes) == 0 {
		return
	}
	if t.attrTy == nil { // resolve prepares the table only when a ref needs it
		t.prepare(x)
	}
	decls := h.fieldDecls(x)
	type acc struct {
		first     *pyFieldDecl
		typ       string
		annotated bool
	}
	byKey := map[attrKey]*acc{}
	var order []*acc
	for i := range decls {
		d := &decls[i]
		a := byKey[d.key]
		if a == nil {
			a = &acc{first: d}
			byKey[d.key] = a
			order = append(order, a)
		}
		if a.annotated {
			continue
		}
		if typ, annotated := h.declType(x, d); annotated {
			a.typ, a.annotated = typ, true
		} else if a.typ == "" {
			a.typ = typ
		}
	}
	for _, a := range order {
		d := a.first
		owner := p.classes[t.scopes[d.key.class].start]
		name := d.key.name
		x.addField(owner, name, a.typ, int(d.a.node.StartByte()), int(d.a.node.EndByte()), !strings.HasPrefix(name, "_"))
	}
}

// fieldDecls returns the field declarations in source order: class-body
// assignments and __init__'s self.x assignments of a class in the file.
func (h *pyHandler) fieldDecls(x *extractor) []pyFieldDecl {
	p, t := &h.fl, &h.types
	var methods map[attrKey]bool
	var decls []pyFieldDecl
	add := func(a *tattr, tuple bool) {
		c := t.classOfAttr(a)
		if c < 0 || p.classes[t.scopes[c].start] == nil || isDunder(a.name) {
			return
		}
		d := pyFieldDecl{key: attrKey{c, a.name}, at: a.at, tuple: tuple, a: a}
		if !a.ctor { // in the class body
			if x.kind(&a.node) != "assignment" {
				return // a loop or with target in the class body
			}
			if methods == nil {
				methods = t.methodNames()
			}
			if methods[d.key] {
				return
			}
		}
		decls = append(decls, d)
	}
	for i := range t.attrs {
		add(&t.attrs[i], false)
	}
	for i := range p.tuples {
		add(&p.tuples[i], true)
	}
	sort.SliceStable(decls, func(i, j int) bool { return decls[i].at < decls[j].at })
	return decls
}

// methodNames returns the functions defined directly in each class scope.
func (t *typeTable) methodNames() map[attrKey]bool {
	out := map[attrKey]bool{}
	for i := range t.scopes {
		s := &t.scopes[i]
		if s.kind == scopeFn && s.name != "" && s.parent >= 0 && t.scopes[s.parent].kind == scopeClass {
			out[attrKey{s.parent, s.name}] = true
		}
	}
	return out
}

// declType is the type a field declaration gives: its annotation (builtins
// included: the field's type is int even though no class is), or else the
// evident type of its value; annotated says it was an annotation.
func (h *pyHandler) declType(x *extractor, d *pyFieldDecl) (typ string, annotated bool) {
	n := &d.a.node
	if d.tuple || x.kind(n) != "assignment" {
		return "", false
	}
	cls := h.types.scopes[d.key.class].name
	if ann := field(n, "type"); ann != nil {
		return pyDeclAnnType(x, ann, cls), true
	}
	right := field(n, "right")
	if x.kind(right) == "identifier" {
		return pyFieldType(h.types.lookup(x.text(right), d.at)), false // self.db = db
	}
	return pyFieldType(pyValueType(x, right)), false
}

// pyFieldType turns a qualifier type into a field type: "()C" is a C when C
// looks like a class (the call constructs it), unknown otherwise.
func pyFieldType(typ string) string {
	rest, ok := strings.CutPrefix(typ, "()")
	if !ok {
		return typ
	}
	if startsUpper(rest[strings.LastIndexByte(rest, '.')+1:]) {
		return rest
	}
	return ""
}

func isDunder(name string) bool {
	return len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
}
