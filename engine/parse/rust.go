package parse

import (
	"regexp"
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
)

func init() {
	registerLanguage(language{name: "rust", exts: []string{".rs"},
		spec:    grammarSpec{lang: tsrust.Language, queries: []string{"rust.scm"}},
		handler: func() langHandler { return &rustHandler{} }})
}

// rustHandler: functions, structs, unions, enums, traits, type aliases,
// consts, statics, macro_rules! macros, inline modules and impl blocks, each
// chunk with its outer attributes and doc comments (`///`, `/** */`; an
// inline module's `//!` when it has no outer doc).
//
//   - Names are qualified by the inline modules around them (mod a { fn f }
//     is a.f) and by their container: trait methods are Trait.method, the
//     members of `impl Type` and `impl Trait for Type` are Type.method.
//   - An impl block is a chunk of Kind "type" named "impl Type" or "impl
//     Trait for Type" (not Type: a struct literal names the struct only). Its
//     members (methods, associated consts) and the block itself are parented
//     to the type's definition when it is at the top level of the file, where
//     the indexer looks a type's methods up; else the members stay in their
//     block, and qualifiers of that type are left untyped in the file (its
//     methods are in more than one file, the typed lookup would miss some).
//   - `impl Trait for Type` gives an "implements" ref to Trait from the
//     type's definition when the file has it (from the impl block otherwise);
//     `trait A: B + C` "inherits" refs to B and C.
//   - `mod a;`, `use` and `extern crate` are imports: one Import per name a
//     use brings in (Path "crate::a::B", Alias "B"; a glob is Path "crate::a"
//     with Names [*]). A `super::` that stays inside the file (`use super::*`
//     in an inline `mod tests`) is rewritten "self::", so the import names the
//     file's own module. Call qualifiers are written with dots ("a.B" for
//     a::B::f()), without generic arguments and leading crate/self/super.
//   - Macro invocations m!(...) are calls of m (the standard library's
//     excepted); inside macro arguments, which the grammar leaves as token
//     trees, a name followed by a parenthesised tree is a call too.
type rustHandler struct {
	scopes  []rustScope               // impl, trait, mod and fn ranges, in source order
	impls   []rustImpl                // impl blocks with a trait, for implements refs
	implFor []string                  // the types of every impl block
	types   rustTypes                 // bindings and qualifier types (rusttypes.go)
	fields  rustAccesses              // field reads and writes (rustfields.go)
	sibs    map[uintptr][]sitter.Node // named children by parent node id (leading)
	attrs   []span                    // attribute ranges, whose token trees hold no calls
	minSeen int                       // x.minOff when state was last synced (error recovery)
}

// rustScope is the range of a container whose kind decides the meaning of
// what is inside it: the type of an impl, the names of the modules around
// an item, the generic parameters in scope.
type rustScope struct {
	kind       string // "impl", "trait", "mod", "fn", "extern"
	name       string // impl: the type's name; trait, mod, fn: the item's
	node       sitter.Node
	self       string // impl: the type of self, "" when a generic parameter (impl<T> X for T)
	start, end int
	generics   []string
}

type rustImpl struct {
	impl   *def   // the impl block's chunk
	trait  string // the trait's last name segment
	qual   string // the trait's path before it, dotted
	typ    string // the implementing type's name
	off    int    // the trait's offset
	module int    // moduleAt of the impl
}

func (h *rustHandler) commentMarker() string { return "//" }

func (h *rustHandler) headerNode(x *extractor, n *sitter.Node) bool {
	switch x.kind(n) {
	case "use_declaration", "extern_crate_declaration", "inner_attribute_item":
		return true
	case "mod_item":
		return field(n, "body") == nil
	case "attribute_item":
		// An attribute belongs to the item after it.
		for s := n.NextNamedSibling(); s != nil; s = s.NextNamedSibling() {
			if k := x.kind(s); k != "attribute_item" && !x.isComment(s) {
				return h.headerNode(x, s)
			}
		}
	}
	return false
}

func (h *rustHandler) handle(x *extractor, m *match) {
	h.types.h = h
	h.sync(x)
	if strings.HasPrefix(m.tag, "local.") {
		h.types.binding(x, m)
		return
	}
	switch m.tag {
	case "item.fn", "item.struct", "item.enum", "item.trait", "item.type", "item.const", "item.static", "item.macro":
		h.item(x, m)
	case "item.impl":
		h.impl(x, m)
	case "item.mod":
		h.mod(x, m)
	case "item.broken":
		h.broken(x, m)
	case "item.extern":
		h.addScope(x, "extern", "", &m.node)
	case "attribute":
		h.attrs = append(h.attrs, span{int(m.node.StartByte()), int(m.node.EndByte())})
	case "import":
		h.imports(x, &m.node)
	case "reference.call":
		h.call(x, m)
	case "reference.macro":
		h.macro(x, m)
	case "reference.tokens":
		h.tokenCall(x, m)
	case "access.read":
		h.fields.access(x, h, m)
	case "access.write":
		h.fields.target(m.name)
	case "reference.type":
		name, q := rustPathName(x, m.name)
		x.addRef(RefReferences, name, q, int(m.name.StartByte()))
	}
}

// sync drops what an abandoned tree contributed: error recovery re-runs the
// query from x.minOff on a new tree.
func (h *rustHandler) sync(x *extractor) {
	if x.minOff == h.minSeen {
		return
	}
	h.minSeen = x.minOff
	cut := x.minOff
	keep := h.scopes[:0]
	for _, s := range h.scopes {
		if s.start < cut {
			keep = append(keep, s)
		}
	}
	h.scopes = keep
	impls := h.impls[:0]
	for _, im := range h.impls {
		if im.impl.ownStart < cut {
			impls = append(impls, im)
		}
	}
	h.impls = impls
	attrs := h.attrs[:0]
	for _, a := range h.attrs {
		if a.start < cut {
			attrs = append(attrs, a)
		}
	}
	h.attrs = attrs
	h.types.cut(cut)
}

// container returns the kind of item n is declared in ("impl", "trait",
// "extern", "mod", "" for the file or a function body) and that item's node,
// from the scopes recorded so far (asking the tree for parents costs a walk
// from the root each).
func (h *rustHandler) container(n *sitter.Node) (string, *sitter.Node) {
	s, e := int(n.StartByte()), int(n.EndByte())
	for i := len(h.scopes) - 1; i >= 0; i-- {
		sc := &h.scopes[i]
		if sc.start <= s && e <= sc.end && !(sc.start == s && sc.end == e) {
			if sc.kind == "fn" {
				return "", nil
			}
			return sc.kind, &sc.node
		}
	}
	return "", nil
}

// moduleAt identifies the module or function body holding offset off: the
// start of its scope, -1 for the file.
func (h *rustHandler) moduleAt(off int) int {
	for i := len(h.scopes) - 1; i >= 0; i-- {
		if sc := &h.scopes[i]; sc.start < off && off < sc.end && (sc.kind == "mod" || sc.kind == "fn") {
			return sc.start
		}
	}
	return -1
}

// scopeAt returns the innermost scope of kind k holding offset off.
func (h *rustHandler) scopeAt(k string, off int) *rustScope {
	for i := len(h.scopes) - 1; i >= 0; i-- {
		s := &h.scopes[i]
		if s.kind == k && s.start <= off && off < s.end {
			return s
		}
	}
	return nil
}

// genericsAt returns the generic type parameters in scope at off.
func (h *rustHandler) genericsAt(off int) []string {
	var out []string
	for _, s := range h.scopes {
		if s.start <= off && off < s.end {
			out = append(out, s.generics...)
		}
	}
	return out
}

// modPrefix is "a.b." for an item inside mod a { mod b { ... } }.
func (h *rustHandler) modPrefix(off int) string {
	var b strings.Builder
	for _, s := range h.scopes {
		if s.kind == "mod" && s.start <= off && off < s.end {
			b.WriteString(s.name)
			b.WriteByte('.')
		}
	}
	return b.String()
}

func (h *rustHandler) addScope(x *extractor, kind, name string, n *sitter.Node) {
	s := rustScope{kind: kind, name: name, node: *n, start: int(n.StartByte()), end: int(n.EndByte())}
	s.generics = rustGenerics(x, field(n, "type_parameters"))
	h.scopes = append(h.scopes, s)
}

var rustItemKinds = map[string]Kind{
	"item.fn": KindFunction, "item.struct": KindStruct, "item.enum": KindEnum, "item.trait": KindInterface,
	"item.type": KindType, "item.const": KindConst, "item.static": KindVar, "item.macro": KindFunction,
}

func (h *rustHandler) item(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	d := &def{name: name, kind: rustItemKinds[m.tag], mode: qualNested, exported: rustPub(x, n)}
	ck, cn := h.container(n)
	if ck == "impl" && m.tag == "item.type" {
		return // an associated type: part of the impl block's chunk
	}
	body := field(n, "body")
	switch m.tag {
	case "item.fn":
		h.addScope(x, "fn", name, n)
		end := bodyStart(n)
		if end < 0 {
			end = int(n.EndByte()) // a signature: fn f();
		}
		d.sig = x.signature(int(n.StartByte()), end)
		var self string
		if ck == "impl" {
			self = rustTypeBase(x, field(cn, "type"))
		}
		d.result = rustResult(x, field(n, "return_type"), self, h.genericsAt(int(n.StartByte())))
		h.types.addResult(x, self, name, field(n, "return_type"))
	case "item.struct", "item.enum", "item.trait":
		if m.tag == "item.trait" {
			h.addScope(x, "trait", name, n)
			h.supertraits(x, n)
		}
		if body != nil && x.kind(body) != "ordered_field_declaration_list" {
			d.sig = x.signature(int(n.StartByte()), int(body.StartByte()))
		} else {
			d.sig = x.firstLine(n)
		}
	case "item.macro":
		d.sig = "macro_rules! " + name
		d.exported = false
	default:
		d.sig = x.firstLine(n)
	}
	switch ck {
	case "impl":
		typ := rustTypeBase(x, field(cn, "type"))
		d.mode, d.qual = qualExplicit, h.modPrefix(int(n.StartByte()))+typ+"."+name
		d.owner, d.ownerWins = typ, true
		if d.kind == KindFunction {
			d.kind, d.receiver = KindMethod, typ
		}
		if field(cn, "trait") != nil {
			d.exported = true // as public as the trait
		}
	case "trait":
		if d.kind == KindFunction {
			d.kind, d.receiver = KindMethod, x.text(field(cn, "name"))
		}
		d.exported = rustPub(x, cn)
	}
	if i := x.addDef(d, n, n); i >= 0 {
		h.leading(x, d, n)
		if m.tag == "item.struct" {
			h.types.addStruct(x, d, body)
		}
		if m.tag == "item.macro" && strings.Contains(x.s[d.start:d.ownStart], "macro_export") {
			d.exported = true
		}
	}
}

// impl records an impl block: a chunk named after its type, a scope for
// its members, and the trait it implements.
func (h *rustHandler) impl(x *extractor, m *match) {
	n := &m.node
	t := field(n, "type")
	typ := rustTypeBase(x, t)
	if typ == "" {
		typ = strings.Join(strings.Fields(x.text(t)), " ")
	}
	body := field(n, "body")
	prefix := h.modPrefix(int(n.StartByte()))
	d := &def{kind: KindType, mode: qualExplicit, exported: true, owner: typ, ownerWins: true}
	head := "impl "
	trait := field(n, "trait")
	var tname, tqual string
	if trait != nil {
		tname, tqual = rustPathName(x, trait)
		head += strings.Join(rustSegments(x, trait, nil), "::") + " for "
	}
	d.name, d.qual = head+typ, head+prefix+typ
	if body != nil {
		d.sig = x.signature(int(n.StartByte()), int(body.StartByte()))
	} else {
		d.sig = x.firstLine(n)
	}
	h.addScope(x, "impl", typ, n)
	if sc := &h.scopes[len(h.scopes)-1]; !rustHas(sc.generics, typ) {
		sc.self = typ
	}
	h.implFor = append(h.implFor, typ)
	if x.addDef(d, n, n) < 0 {
		return
	}
	h.leading(x, d, n)
	if trait != nil && tname != "" {
		im := rustImpl{impl: d, trait: tname, qual: tqual, typ: typ, off: int(trait.StartByte())}
		im.module = h.moduleAt(int(n.StartByte()))
		h.impls = append(h.impls, im)
	}
}

// mod records `mod a { ... }` as a namespace chunk and `mod a;` as an import
// of the module's file.
func (h *rustHandler) mod(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	body := field(n, "body")
	if body == nil {
		imp := Import{Path: name, Alias: name, Line: x.lineOf(int(n.StartByte()))}
		if p := rustPathAttr(x, n); p != "" {
			imp.Path = p // #[path = "disabled.rs"] mod imp;
		}
		x.addImport(imp, int(n.StartByte()))
		return
	}
	h.addScope(x, "mod", name, n)
	d := &def{name: name, kind: KindNamespace, mode: qualNested, exported: rustPub(x, n)}
	d.sig = x.signature(int(n.StartByte()), int(body.StartByte()))
	if x.addDef(d, n, n) < 0 {
		return
	}
	h.leading(x, d, n)
	if d.doc == "" {
		// The module's inner doc: the //! and /*! comments opening its body.
		var parts []string
		for _, ch := range x.named(body) {
			if !x.isComment(&ch) || field(&ch, "inner") == nil {
				break
			}
			parts = append(parts, x.text(&ch))
		}
		d.doc = cleanComments(parts)
	}
}

// broken records `fn name` inside an ERROR node as a function reaching to
// the end of that node, which error recovery then trims at the line where
// parsing resumed.
func (h *rustHandler) broken(x *extractor, m *match) {
	kw := m.name.PrevSibling()
	if kw == nil || x.kind(kw) != "fn" || x.text(kw) != "fn" {
		return
	}
	first := kw // pub, async, unsafe ... before fn
	d := &def{name: x.text(m.name), kind: KindFunction, mode: qualNested}
	for p := kw.PrevSibling(); p != nil; p = p.PrevSibling() {
		k := x.kind(p)
		if k != "visibility_modifier" && k != "function_modifiers" && k != "pub" {
			break
		}
		d.exported = d.exported || k != "function_modifiers"
		first = p
	}
	start := int(first.StartByte())
	d.sig = x.signature(start, x.lineEndByte(x.lineOf(start)))
	if x.addDef(d, m.name, &m.node) < 0 {
		return
	}
	d.ownStart, d.start = start, x.lineStartByte(x.lineOf(start))
	d.splittable = false
	if int(m.node.StartByte()) == start {
		first = &m.node // the comments above are the ERROR node's siblings
	}
	h.leading(x, d, first)
}

var rustPathAttrRe = regexp.MustCompile(`^#\[\s*path\s*=\s*"([^"]+)"\s*\]$`)

// rustPathAttr returns the file a #[path = "..."] attribute on item n names.
func rustPathAttr(x *extractor, n *sitter.Node) string {
	for p := n.PrevNamedSibling(); p != nil && x.kind(p) == "attribute_item"; p = p.PrevNamedSibling() {
		if m := rustPathAttrRe.FindStringSubmatch(x.text(p)); m != nil {
			return m[1]
		}
	}
	return ""
}

// leading extends d over the outer attributes and comments directly above
// its item n (attributes are siblings of the item in the tree, and a Rust
// comment node has children, which the shared attachDocs does not expect).
// Doc comments make the doc; plain comments do when there is none.
func (h *rustHandler) leading(x *extractor, d *def, n *sitter.Node) {
	start := int(n.StartByte())
	var docs, plain []string
	sibs, i := h.siblings(x, n)
	for i--; i >= 0; i-- {
		p := &sibs[i]
		k := x.kind(p)
		comment := k == "line_comment" || k == "block_comment"
		if !comment && k != "attribute_item" {
			break
		}
		ps, pe := int(p.StartByte()), int(p.EndByte())
		if x.endLineOf(ps, pe) < x.lineOf(start)-1 || !x.onlySpaceBefore(ps) || ps < x.minOff {
			break
		}
		if comment {
			if field(p, "inner") != nil {
				break // //! documents the enclosing module
			}
			if field(p, "outer") != nil {
				docs = append(docs, x.text(p))
			} else {
				plain = append(plain, x.text(p))
			}
		}
		start = ps
	}
	d.start = min(d.start, x.lineStartByte(x.lineOf(start)))
	if d.doc != "" {
		return
	}
	if len(docs) == 0 {
		docs = plain
	}
	for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
		docs[i], docs[j] = docs[j], docs[i]
	}
	d.doc = cleanComments(docs)
}

// siblings returns the named children of n's parent and n's index among
// them, cached per parent: PrevNamedSibling walks the parent's children from
// the first each time, quadratic over an impl block's methods.
func (h *rustHandler) siblings(x *extractor, n *sitter.Node) ([]sitter.Node, int) {
	p := n.Parent()
	if p == nil {
		return nil, 0
	}
	if h.sibs == nil {
		h.sibs = map[uintptr][]sitter.Node{}
	}
	list, ok := h.sibs[p.Id()]
	if !ok {
		list = x.named(p)
		h.sibs[p.Id()] = list
	}
	s := n.StartByte()
	i := sort.Search(len(list), func(k int) bool { return list[k].StartByte() >= s })
	for ; i < len(list) && list[i].StartByte() == s; i++ {
		if list[i].Id() == n.Id() {
			return list, i
		}
	}
	return nil, 0
}

// supertraits records `trait A: B + C` as A inheriting B and C.
func (h *rustHandler) supertraits(x *extractor, n *sitter.Node) {
	for _, b := range x.named(field(n, "bounds")) {
		t := &b
		if x.kind(t) == "generic_type" {
			t = field(t, "type")
		}
		switch x.kind(t) {
		case "type_identifier", "scoped_type_identifier":
			name, q := rustPathName(x, t)
			x.addRef(RefInherits, name, q, int(t.StartByte()))
		}
	}
}

// finish adds the implements refs, from the implementing type's definition
// when it is in the file (in the same module), and settles qualifier types.
func (h *rustHandler) finish(x *extractor) {
	for _, im := range h.impls {
		off := im.off
		for _, d := range x.defs {
			if d.dropped || d.name != im.typ || (d.kind != KindStruct && d.kind != KindEnum && d.kind != KindType) ||
				x.kind(&d.node) == "impl_item" {
				continue
			}
			if h.moduleAt(d.ownStart) == im.module { // in the same module
				off = d.ownStart
				break
			}
		}
		x.addRef(RefImplements, im.trait, im.qual, off)
	}
	// A type with impl blocks here and no definition at the top level of the
	// file has methods in another file too (or in an inline module's block):
	// a qualifier typed by it is left to the name steps.
	split := map[string]bool{}
	for _, t := range h.implFor {
		split[t] = true
	}
	for _, d := range x.defs {
		switch d.kind {
		case KindStruct, KindEnum, KindType, KindInterface:
			if !d.dropped && x.kind(&d.node) != "impl_item" && h.moduleAt(d.ownStart) < 0 {
				delete(split, d.name)
			}
		}
	}
	h.fields.settle(x)
	h.types.resolve(x, split)
}

// rustPub reports whether item n has a visibility modifier (pub, pub(crate)).
func rustPub(x *extractor, n *sitter.Node) bool {
	if n == nil {
		return false
	}
	for i := uint(0); i < n.NamedChildCount() && i < 3; i++ {
		if c := n.NamedChild(i); c != nil && x.kind(c) == "visibility_modifier" {
			return true
		}
	}
	return false
}
