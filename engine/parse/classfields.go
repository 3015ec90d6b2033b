package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Field reads and writes in Java and C#: every explicit access obj.f,
// this.f, Type.f (a static field, an enum constant) that is not the callee of
// a call is a read, or a write when it is assigned to (=, +=, ...) or
// incremented. Its qualifier is typed as a call's is (classscope.go), so the
// indexer finds the field on that type. A field named alone (f for this.f) is
// an access when it is a call's qualifier (f.m()) or assigned to, with the
// class declaring it as QualifierType; other bare uses are not recorded:
// telling them from locals would take a lookup per identifier.

type caccess struct {
	at         int // offset of the field name
	name, qual string
	qtype      string // pending or known QualifierType
}

// addAccess records a read match: m.name is the field, m.qualifier the object.
func (s *classScopes) addAccess(x *extractor, m *match) {
	if m.name == nil || int(m.name.StartByte()) < x.minOff {
		return
	}
	q := x.qualifierText(m.qualifier)
	s.accesses = append(s.accesses, caccess{at: int(m.name.StartByte()), name: x.text(m.name), qual: q,
		qtype: s.qualType(x, m.qualifier, q)})
}

// markWrite marks the access whose field name is target's child nameField
// as a write.
func (s *classScopes) markWrite(x *extractor, target *sitter.Node, nameField string) {
	n := s.field(x, target, nameField)
	if n == nil || int(n.StartByte()) < x.minOff {
		return
	}
	if s.writes == nil {
		s.writes = map[int]bool{}
	}
	s.writes[int(n.StartByte())] = true
}

// addAssigned records a bare name assigned to or incremented: a write of a
// field when no local of that name is in scope.
func (s *classScopes) addAssigned(x *extractor, m *match) {
	if m.name != nil && int(m.name.StartByte()) >= x.minOff {
		s.assigned = append(s.assigned, caccess{at: int(m.name.StartByte()), name: x.text(m.name)})
	}
}

// implicitField returns the class declaring the field that the bare name
// at off stands for, or "" when it is a local, a parameter or not a field.
func (s *classScopes) implicitField(x *extractor, lang classLang, name string, off int) string {
	d := s.lookup(x, lang, name, off, -1)
	if d == nil || d.kind != declMember || !lang.fieldDecl(d) {
		return ""
	}
	return s.enclosingName(d.at)
}

// markCallee marks off, a call's name, as no field access.
func (s *classScopes) markCallee(off int) {
	s.callees = append(s.callees, off)
}

// emitAccesses adds the reads and writes as refs (their types still
// pending: resolve settles them). An access through a package or namespace
// the file names (System.Console, java.util.List) names a type, not a field.
func (s *classScopes) emitAccesses(x *extractor, lang classLang) {
	for _, a := range s.assigned {
		if owner := s.implicitField(x, lang, a.name, a.at); owner != "" {
			x.addTypedRef(RefWrites, a.name, "", owner, a.at)
		}
	}
	if len(s.accesses) == 0 {
		return
	}
	callee := make(map[int]bool, len(s.callees))
	for _, off := range s.callees {
		callee[off] = true
	}
	spaces := map[string]bool{}
	prefixes := func(p string) {
		for p != "" {
			spaces[p] = true
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	prefixes(x.f.Package)
	for _, imp := range x.f.Imports {
		// A C# namespace, a Java package.*; else a type: its package.
		last, pkg := splitTypeName(imp.Path)
		if (imp.Alias == "" && imp.Names == nil) || !startsUpper(last) {
			pkg = imp.Path
		}
		prefixes(pkg)
	}
	for _, a := range s.accesses {
		if callee[a.at] || spaces[a.qual] || s.packagePath(x, lang, a.qual, a.at) {
			continue
		}
		kind := RefReads
		if s.writes[a.at] {
			kind = RefWrites
		}
		x.addTypedRef(kind, a.name, a.qual, a.qtype, a.at)
	}
}

// packageRoots start fully qualified names written in code (java.util.List,
// System.Text.Encoding).
// (Java's System is a class: System.out is a field.)
var packageRoots = map[string]map[string]bool{
	"java": {"java": true, "javax": true, "jdk": true, "sun": true, "com": true, "org": true, "net": true,
		"io": true, "android": true},
	"csharp": {"System": true, "Microsoft": true},
}

// packagePath reports whether qualifier q at off starts with a package root
// that no declaration in scope shadows.
func (s *classScopes) packagePath(x *extractor, lang classLang, q string, off int) bool {
	head, _, _ := strings.Cut(q, ".")
	return packageRoots[x.f.Language][head] && s.lookup(x, lang, head, off, -1) == nil
}

// syncAccesses drops the accesses an earlier tree found at or after cut.
func (s *classScopes) syncAccesses(cut int) {
	for _, list := range []*[]caccess{&s.accesses, &s.assigned} {
		kept := (*list)[:0]
		for _, a := range *list {
			if a.at < cut {
				kept = append(kept, a)
			}
		}
		*list = kept
	}
}

// isIncrement reports whether a unary expression's text is ++x, x++, --x or x--.
func isIncrement(t string) bool {
	t = strings.TrimSpace(t)
	return strings.HasPrefix(t, "++") || strings.HasPrefix(t, "--") || strings.HasSuffix(t, "++") || strings.HasSuffix(t, "--")
}
