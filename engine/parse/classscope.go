package parse

import (
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// The qualifier types of Java and C# calls. Both languages declare types, so
// a qualifier's type is what its declaration says: a local, a parameter, a
// field or property of an enclosing class, a type parameter (unknown), or a
// class name itself (a static call). `this` is the enclosing class; a bare
// call is a call on this (neither language has free functions), so it gets
// the enclosing class that defines the method, or the innermost one (the
// method may be inherited).
//
// Declarations come from query matches; most are never asked about, so a
// declaration's scope and type are worked out from its nodes only when a
// lookup needs them. Calls are recorded with a pending QualifierType (a NUL
// byte and a tag) and settled in finish, once every declaration is known.

// Pending qualifier types, replaced in resolve.
const (
	pendBare      = "\x00b" // m(): the class defining m, else the innermost class
	pendThisClass = "\x00t" // this.m(), super.m(): the enclosing class
	pendIdent     = "\x00i" // x.m(): x's declared type, or x itself when it names a type
	pendMember    = "\x00f" // this.x.m(): the type of member x of the enclosing class
	pendBase      = "\x00B" // C# base.m(): the first base of the enclosing class
)

// declaration kinds
const (
	declLocal  uint8 = iota // visible from its name to the end of its scope
	declMember              // a field, property or record component: all of its class
	declTParam              // a type parameter: its type or method
)

type cdecl struct {
	name string
	at   int    // offset of the name
	how  string // the pattern that found it (the match tag), for the language's scope rules
	node sitter.Node
	typ  *sitter.Node // declared type node, nil when there is none
	init *sitter.Node // initializer, for `var x = new T()`

	done       bool
	kind       uint8
	typeName   string
	start, end int
}

// cspan is a class-like body: a named type or an anonymous class.
type cspan struct {
	start, end int
	name       string // for an anonymous class: the type it extends
	base       string // the first base type (C# base.m())
	def        *def   // nil for an anonymous class
	members    map[string]bool
}

// classLang is what the table asks of the language, lazily.
type classLang interface {
	// declScope sets d.kind, d.start and d.end from d's nodes.
	declScope(x *extractor, d *cdecl)
	// declType returns the type name d's declaration gives it ("" unknown).
	declType(x *extractor, d *cdecl) string
	// fieldDecl reports whether member d is a field (not a property).
	fieldDecl(d *cdecl) bool
}

type classScopes struct {
	decls     map[string][]*cdecl
	classes   []cspan
	localFns  map[string]bool   // C# local functions: a bare call to one is not on this
	delegates bool              // C#: a local variable can be called
	statics   map[string]string // Java static imports: method -> class
	aliases   map[string]string // C# using aliases of types: alias -> type name
	imported  map[string]bool   // names imports bind: Java single-type imports, C# using aliases
	ids       map[string]uint16 // field ids by name (see field)
	accesses  []caccess         // field reads and writes (classfields.go)
	assigned  []caccess         // bare names assigned to: fields, or locals
	writes    map[int]bool      // field name offsets of assigned accesses
	callees   []int             // name offsets of qualified calls: not accesses
	minOff    int
	sorted    bool
}

// sync drops what an earlier tree found at or after the point error recovery
// re-parses from, as the extractor does with its defs and refs.
func (s *classScopes) sync(x *extractor) {
	if x.minOff == s.minOff {
		return
	}
	cut := x.minOff
	s.minOff = cut
	for name, ds := range s.decls {
		kept := ds[:0]
		for _, d := range ds {
			if d.at < cut {
				kept = append(kept, d)
			}
		}
		s.decls[name] = kept
	}
	cs := s.classes[:0]
	for _, c := range s.classes {
		if c.start < cut {
			c.end = min(c.end, cut)
			cs = append(cs, c)
		}
	}
	s.classes = cs
	s.syncAccesses(cut)
}

// addDecl records a declaration match: m.name is the name, m.value its type,
// m.key its initializer.
func (s *classScopes) addDecl(x *extractor, m *match) {
	if m.name == nil || int(m.name.StartByte()) < x.minOff {
		return
	}
	d := &cdecl{name: x.text(m.name), at: int(m.name.StartByte()), how: m.tag, node: m.node}
	if m.value != nil {
		t := *m.value
		d.typ = &t
	}
	if m.key != nil {
		v := *m.key
		d.init = &v
	}
	if s.decls == nil {
		s.decls = map[string][]*cdecl{}
	}
	s.decls[d.name] = append(s.decls[d.name], d)
}

// addClass records a class-like body spanning n.
func (s *classScopes) addClass(n *sitter.Node, name, base string, d *def) {
	s.classes = append(s.classes, cspan{start: int(n.StartByte()), end: int(n.EndByte()), name: name, base: base, def: d})
	s.sorted = false
}

// enclosing returns the indexes of the classes containing off, innermost first.
func (s *classScopes) enclosing(off int) []int {
	if !s.sorted {
		sort.SliceStable(s.classes, func(i, j int) bool { return s.classes[i].start < s.classes[j].start })
		s.sorted = true
	}
	i := sort.Search(len(s.classes), func(i int) bool { return s.classes[i].start > off }) - 1
	var out []int
	for ; i >= 0; i-- {
		if c := &s.classes[i]; c.start <= off && off < c.end {
			out = append(out, i)
		}
	}
	return out
}

// lookup returns the innermost declaration of name visible at off, or nil.
func (s *classScopes) lookup(x *extractor, lang classLang, name string, off int, kind int) *cdecl {
	var best *cdecl
	for _, d := range s.decls[name] {
		if !d.done {
			lang.declScope(x, d)
			d.done = true
		}
		if off < d.start || off >= d.end || (kind >= 0 && d.kind != uint8(kind)) || (d.kind == declLocal && off < d.at) {
			continue
		}
		if best == nil || d.end-d.start < best.end-best.start || (d.end-d.start == best.end-best.start && d.at > best.at) {
			best = d
		}
	}
	return best
}

// typeOf returns the type of the declaration d, "" for a type parameter.
func (s *classScopes) typeOf(x *extractor, lang classLang, d *cdecl, off int) string {
	if d == nil || d.kind == declTParam {
		return ""
	}
	if d.typeName == "" {
		d.typeName = lang.declType(x, d)
		if d.typeName == "" {
			d.typeName = "\x00" // known to be unknown
		}
	}
	t := d.typeName
	if t == "\x00" || s.isTypeParam(x, lang, t, off) {
		return ""
	}
	return t
}

func (s *classScopes) isTypeParam(x *extractor, lang classLang, t string, off int) bool {
	head, _, _ := strings.Cut(t, ".")
	return s.lookup(x, lang, head, off, int(declTParam)) != nil
}

// resolve replaces the pending qualifier types of x's refs. Members are the
// methods of each class, so a bare call finds the class defining it.
func (s *classScopes) resolve(x *extractor, lang classLang) {
	pending := false
	for i := range x.refs {
		q := &x.refs[i].qualType
		if *q != "" && (*q)[0] == 0 {
			pending = true
		} else if *q != "" {
			*q = s.final(*q)
		}
	}
	if !pending {
		return
	}
	s.enclosing(0) // sorts
	for _, d := range x.defs {
		if d.dropped || d.kind != KindMethod {
			continue
		}
		if enc := s.enclosing(d.ownStart); len(enc) > 0 {
			c := &s.classes[enc[0]]
			if c.members == nil {
				c.members = map[string]bool{}
			}
			c.members[d.name] = true
		}
	}
	var reads []rawRef // fields named alone as a call's qualifier
	for i := range x.refs {
		r := &x.refs[i]
		if r.qualType == "" || r.qualType[0] != 0 {
			continue
		}
		if r.qualType == pendIdent && r.kind == RefCalls {
			if owner := s.implicitField(x, lang, r.qualifier, r.off); owner != "" {
				reads = append(reads, rawRef{kind: RefReads, name: r.qualifier, qualType: owner,
					off: max(r.off-len(r.qualifier)-1, 0)})
			}
		}
		r.qualType = s.final(s.settle(x, lang, r.qualType, r))
	}
	x.refs = append(x.refs, reads...)
}

// final is the QualifierType for type t as written. A dotted name is a
// nested class (Outer.Inner) or a package path (a.b.C), which the indexer
// cannot locate by the qualifier: the class name is what it looks for. Only
// a prefix the file imports (Map.Entry, Alias.Type) is kept, so that the
// indexer finds the type through that import, or knows it is external.
func (s *classScopes) final(t string) string {
	t = s.alias(t)
	if i := strings.IndexByte(t, '.'); i > 0 && !s.imported[t[:i]] {
		return t[strings.LastIndexByte(t, '.')+1:]
	}
	return t
}

// bind records a name an import binds.
func (s *classScopes) bind(name string) {
	if s.imported == nil {
		s.imported = map[string]bool{}
	}
	s.imported[name] = true
}

// alias returns the type name a using alias stands for, or t.
func (s *classScopes) alias(t string) string {
	if a, ok := s.aliases[t]; ok {
		return a
	}
	return t
}

func (s *classScopes) settle(x *extractor, lang classLang, q string, r *rawRef) string {
	enc := s.enclosing(r.off)
	class := func() string {
		if len(enc) == 0 {
			return ""
		}
		return s.classes[enc[0]].name
	}
	switch q {
	case pendThisClass:
		return class()
	case pendBase:
		if len(enc) == 0 {
			return ""
		}
		return s.classes[enc[0]].base
	case pendBare:
		if s.localFns[r.name] || (s.delegates && s.lookup(x, lang, r.name, r.off, int(declLocal)) != nil) {
			return "" // a local function or a delegate variable
		}
		for _, c := range enc {
			if s.classes[c].members[r.name] {
				return s.classes[c].name
			}
		}
		if t, ok := s.statics[r.name]; ok {
			return t
		}
		return class()
	case pendIdent:
		if d := s.lookup(x, lang, r.qualifier, r.off, -1); d != nil {
			return s.typeOf(x, lang, d, r.off)
		}
		if startsUpper(r.qualifier) && !s.isTypeParam(x, lang, r.qualifier, r.off) {
			return r.qualifier // a type: a static member
		}
	case pendMember:
		name := r.qualifier[strings.IndexByte(r.qualifier, '.')+1:]
		return s.typeOf(x, lang, s.lookup(x, lang, name, r.off, int(declMember)), r.off)
	}
	return ""
}

// addFields records the declarations fieldOf accepts as fields of the
// named class around them (a member of an anonymous class is none).
func (s *classScopes) addFields(x *extractor, lang classLang, fieldOf func(d *cdecl) (exported, ok bool)) {
	var all []*cdecl
	for _, ds := range s.decls {
		all = append(all, ds...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].at < all[j].at })
	for _, d := range all {
		exported, ok := fieldOf(d)
		if !ok {
			continue
		}
		enc := s.enclosing(d.at)
		if len(enc) == 0 || s.classes[enc[0]].def == nil {
			continue
		}
		t := s.typeOf(x, lang, d, d.at)
		end := int(d.node.EndByte())
		if b := s.field(x, &d.node, "body"); b != nil && d.how == "local.enum" {
			end = int(b.StartByte()) // a Java enum constant's own class body is not its declaration
		}
		x.addField(s.classes[enc[0]].def, d.name, t, int(d.node.StartByte()), end, exported)
	}
}

// enclosingName is the name of the innermost class around off.
func (s *classScopes) enclosingName(off int) string {
	if enc := s.enclosing(off); len(enc) > 0 {
		return s.classes[enc[0]].name
	}
	return ""
}

// qualType is the pending or known QualifierType of a call through the
// qualifier node q (nil for a bare call), whose text is qt.
func (s *classScopes) qualType(x *extractor, q *sitter.Node, qt string) string {
	if q == nil {
		return pendBare
	}
	switch k := x.kind(q); {
	case k == "this" || k == "super" || k == "this_expression":
		return pendThisClass
	case k == "base":
		return pendBase
	case k == "identifier":
		return pendIdent
	case k == "object_creation_expression":
		return cleanTypeName(x.text(s.field(x, q, "type")))
	case k == "field_access" || k == "member_access_expression":
		if strings.HasPrefix(qt, "this.") && isPlainName(qt[len("this."):]) {
			return pendMember
		}
	case k == "parenthesized_expression":
		if in := q.NamedChild(0); in != nil && x.kind(in) == "cast_expression" {
			return cleanTypeName(x.text(s.field(x, in, "type")))
		}
	}
	return ""
}

// primitiveTypes carry no methods of the repository's (C# string and object
// are predefined_type nodes, Java's String is a class: external).
var primitiveTypes = map[string]bool{
	"int": true, "long": true, "short": true, "byte": true, "char": true, "boolean": true, "bool": true,
	"float": true, "double": true, "void": true, "var": true, "string": true, "object": true,
	"dynamic": true, "decimal": true, "uint": true, "ulong": true, "ushort": true, "sbyte": true,
	"nint": true, "nuint": true,
}

// cleanTypeName reduces a type as written to a name: generic arguments,
// arrays, nullability, varargs and annotations dropped ("List", "a.b.Foo");
// "" for a primitive, a tuple, a function pointer or anything else.
func cleanTypeName(t string) string {
	if strings.IndexByte(t, '@') >= 0 {
		t = stripAnnotations(t)
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '<':
			depth++
		case c == '>':
			depth--
		case depth > 0:
		case c == '[' || c == '?' || c == '*' || c == '&':
			i = len(t)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			b.WriteByte(c)
		}
	}
	s := strings.TrimSuffix(b.String(), "...")
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:] // global::X.Y, alias::X
	}
	if s == "" || primitiveTypes[s] || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return ""
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '.' && !isIdentByte(c) {
			return ""
		}
	}
	return s
}

// stripAnnotations removes Java type annotations: "@NonNull Foo" -> "Foo".
func stripAnnotations(t string) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '@' {
			b.WriteByte(t[i])
			continue
		}
		j := i + 1
		for j < len(t) && (isIdentByte(t[j]) || t[j] == '.') {
			j++
		}
		if j < len(t) && t[j] == '(' {
			if k := strings.IndexByte(t[j:], ')'); k >= 0 {
				j += k + 1
			}
		}
		i = j - 1
	}
	return b.String()
}

// field returns n's child in the field name, or nil. ChildByFieldName makes
// a C string of the name on every call; the id is looked up once a file.
func (s *classScopes) field(x *extractor, n *sitter.Node, name string) *sitter.Node {
	if n == nil {
		return nil
	}
	id, ok := s.ids[name]
	if !ok {
		if s.ids == nil {
			s.ids = map[string]uint16{}
		}
		id = x.g.ts.FieldIdForName(name)
		s.ids[name] = id
	}
	if id == 0 {
		return nil
	}
	return n.ChildByFieldId(id)
}

// bodyOrEnd is where n's body starts, or its end when it has none (an
// abstract method, a record without a body).
func (s *classScopes) bodyOrEnd(x *extractor, n *sitter.Node) int {
	if b := s.field(x, n, "body"); b != nil {
		return int(b.StartByte())
	}
	return int(n.EndByte())
}

// climb returns n's ancestor up levels above it, or nil.
func climb(n *sitter.Node, up int) *sitter.Node {
	for ; n != nil && up > 0; up-- {
		n = n.Parent()
	}
	return n
}

// climbTo returns the nearest ancestor of n whose kind is in kinds, within
// limit levels, or nil.
func climbTo(x *extractor, n *sitter.Node, kinds map[string]bool, limit int) *sitter.Node {
	for p := n.Parent(); p != nil && limit > 0; p, limit = p.Parent(), limit-1 {
		if kinds[x.kind(p)] {
			return p
		}
	}
	return nil
}

// setScope sets d's range to node n's: all of it, or from d's name on.
func (d *cdecl) setScope(n *sitter.Node, kind uint8) {
	d.kind = kind
	if n == nil {
		d.start, d.end = d.at, d.at
		return
	}
	d.start, d.end = int(n.StartByte()), int(n.EndByte())
}

// declType is the written type of a declaration (Java and C# alike): its
// declared type, else the type a new or a cast initialiser names; an enum
// constant is of its enum.
func (s *classScopes) declType(x *extractor, d *cdecl) string {
	if d.how == "local.enum" {
		return s.enclosingName(d.at)
	}
	t := ""
	if d.typ != nil {
		t = cleanTypeName(x.text(d.typ))
	}
	if t == "" && d.init != nil {
		switch x.kind(d.init) {
		case "object_creation_expression", "cast_expression":
			t = cleanTypeName(x.text(s.field(x, d.init, "type")))
		}
	}
	return t
}
