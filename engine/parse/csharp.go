package parse

import (
	"regexp"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tscs "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
)

// csHandler: classes, structs, interfaces, enums, records (a record struct is
// a struct) and delegates (types) at any depth, and their members: methods,
// constructors ("constructor"), destructors (~C), operators ("operator +"), indexers
// ("this[]"), properties and events, each a chunk of kind method with its
// attributes and /// XML doc (tags dropped). Each part of a partial class is a
// chunk of its own. Local functions are functions nested in their method.
// Namespaces (block or file-scoped) are not chunks: the first one is
// File.Package and QualifiedName leaves it out (Class.Method).
//
// `using X.Y;` is Import{Path: "X.Y"}; `using A = X.Y.C;` has Alias "A";
// `using static X.Y.C;` has Names [*]. A class's first base is an "inherits"
// reference unless the file defines it as an interface or it is named like
// one (IFoo); the other bases, and those of structs, are "implements".
type csHandler struct {
	scopes    classScopes
	nsEnd     int          // end of the namespace File.Package comes from
	undecided map[int]bool // offsets of first bases that may be interfaces
}

func init() {
	registerLanguage(language{name: "csharp", exts: []string{".cs"},
		spec:    grammarSpec{lang: tscs.Language, queries: []string{"csharp.scm"}},
		handler: func() langHandler { return &csHandler{scopes: classScopes{delegates: true}} }})
}

func (h *csHandler) commentMarker() string { return "//" }

func (h *csHandler) headerNode(x *extractor, n *sitter.Node) bool {
	switch k := x.kind(n); k {
	case "using_directive", "extern_alias_directive", "file_scoped_namespace_declaration", "global_attribute",
		"shebang_directive":
		return true
	default:
		return strings.HasPrefix(k, "preproc_") && k != "preproc_if"
	}
}

var csTypeKinds = map[string]Kind{
	"definition.class": KindClass, "definition.struct": KindStruct, "definition.interface": KindInterface,
	"definition.enum": KindEnum, "definition.record": KindClass, "definition.delegate": KindType,
}

func (h *csHandler) handle(x *extractor, m *match) {
	h.scopes.sync(x)
	if strings.HasPrefix(m.tag, "local.") {
		h.scopes.addDecl(x, m)
		return
	}
	n := &m.node
	switch m.tag {
	case "access.read":
		h.scopes.addAccess(x, m)
	case "access.assign":
		if x.kind(n) == "assignment_expression" || isIncrement(x.text(n)) {
			h.scopes.addAssigned(x, m)
		}
	case "access.write":
		if x.kind(n) == "assignment_expression" || isIncrement(x.text(n)) {
			h.scopes.markWrite(x, m.name, "name")
		}
	case "namespace":
		h.namespace(x, m)
	case "import":
		h.using(x, n)
	case "definition.class", "definition.struct", "definition.interface", "definition.enum",
		"definition.record", "definition.delegate":
		h.typeDecl(x, m)
	case "definition.method":
		h.member(x, m)
	case "reference.call":
		name := x.text(m.name)
		q := x.qualifierText(m.qualifier)
		if q == "" && name == "nameof" {
			return
		}
		x.addTypedRef(RefCalls, name, q, h.scopes.qualType(x, m.qualifier, q), int(m.name.StartByte()))
		if m.qualifier != nil {
			h.scopes.markCallee(int(m.name.StartByte()))
		}
	case "reference.new":
		name, q := splitTypeName(h.scopes.alias(cleanTypeName(x.text(m.name))))
		x.addRef(RefCalls, name, q, int(m.name.StartByte()))
	case "reference.bases":
		h.bases(x, n)
	}
}

func (h *csHandler) namespace(x *extractor, m *match) {
	n := &m.node
	name := strings.Join(strings.Fields(x.text(m.name)), "")
	start, end := int(n.StartByte()), int(n.EndByte())
	if x.kind(n) == "file_scoped_namespace_declaration" {
		end = len(x.src)
	} else {
		// The namespace's own lines belong to no chunk; its types are chunks.
		x.covered = append(x.covered, span{start, end})
	}
	switch {
	case x.f.Package == "":
		x.f.Package, h.nsEnd = name, end
	case start < h.nsEnd && end <= h.nsEnd && !strings.HasSuffix(x.f.Package, "."+name):
		x.f.Package, h.nsEnd = x.f.Package+"."+name, end
	}
}

func (h *csHandler) using(x *extractor, n *sitter.Node) {
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(x.text(n)), ";"))
	s = strings.TrimSpace(strings.TrimPrefix(s, "global "))
	s = strings.TrimSpace(strings.TrimPrefix(s, "using"))
	imp := Import{Line: x.lineOf(int(n.StartByte()))}
	if rest, ok := strings.CutPrefix(s, "static "); ok {
		s, imp.Names = rest, []ImportName{{Name: "*"}}
	}
	if alias, target, ok := strings.Cut(s, "="); ok {
		imp.Alias, s = strings.TrimSpace(alias), target
	}
	s = strings.Join(strings.Fields(s), "")
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if s == "" || strings.ContainsAny(s, "/(){};") {
		return
	}
	imp.Path = s
	if imp.Alias != "" && imp.Names == nil {
		if h.scopes.aliases == nil {
			h.scopes.aliases = map[string]string{}
		}
		h.scopes.aliases[imp.Alias], _ = splitTypeName(cleanTypeName(s))
		h.scopes.bind(imp.Alias)
	}
	x.addImport(imp, int(n.StartByte()))
}

type csMods struct {
	public, protected, private bool
	sigStart                   int
	bases                      *sitter.Node
}

// csModifiers reads n's modifiers, where its signature starts (after its
// attributes and comments) and its base list.
func csModifiers(x *extractor, n *sitter.Node) csMods {
	mods := csMods{sigStart: int(n.StartByte())}
	found := false
	for _, ch := range n.Children(x.cur) {
		switch x.kind(&ch) {
		case "attribute_list", "comment", "preproc_region", "preproc_endregion":
			continue
		case "modifier":
			switch x.text(&ch) {
			case "public":
				mods.public = true
			case "protected":
				mods.protected = true
			case "private":
				mods.private = true
			}
		case "base_list":
			c := ch
			mods.bases = &c
		}
		if !found {
			mods.sigStart, found = int(ch.StartByte()), true
		}
	}
	return mods
}

func (h *csHandler) typeDecl(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	d := &def{name: name, kind: csTypeKinds[m.tag], mode: qualNested}
	if m.tag == "definition.record" && hasWord(x.s[n.StartByte():m.name.StartByte()], "struct") {
		d.kind = KindStruct
	}
	mods := csModifiers(x, n)
	d.exported = mods.public || mods.protected
	if p := csContainer(x, n); p != nil && x.kind(p) == "interface_declaration" {
		d.exported = !mods.private
	}
	end := int(n.EndByte())
	if b := h.scopes.field(x, n, "body"); b != nil {
		end = int(b.StartByte())
	}
	d.sig = x.signature(mods.sigStart, end)
	i := x.addDef(d, n, n)
	if i < 0 {
		return
	}
	d.doc = csDoc(d.doc)
	if d.kind != KindType {
		base := ""
		if mods.bases != nil && d.kind == KindClass {
			if first := mods.bases.NamedChild(0); first != nil {
				if x.kind(first) == "primary_constructor_base_type" {
					first = h.scopes.field(x, first, "type")
				}
				base = cleanTypeName(x.text(first))
			}
		}
		h.scopes.addClass(n, name, base, d)
	}
}

// csContainer returns the node that holds declaration n: its type, its
// function (a local function), the namespace or the file; preprocessor
// branches and declaration lists are looked through.
func csContainer(x *extractor, n *sitter.Node) *sitter.Node {
	p := n.Parent()
	for i := 0; p != nil && i < 8; i++ {
		switch k := x.kind(p); {
		case k == "declaration_list" || strings.HasPrefix(k, "preproc_") || k == "block" ||
			k == "arrow_expression_clause" || k == "local_declaration_statement" || k == "global_statement":
			p = p.Parent()
		default:
			return p
		}
	}
	return p
}

// member records a member of the type that holds it, or a local function.
func (h *csHandler) member(x *extractor, m *match) {
	n := &m.node
	k := x.kind(n)
	owner := csContainer(x, n)
	var outer *def
	if owner != nil {
		if ci, ok := x.claimed[owner.Id()]; ok {
			outer = x.defs[ci]
		}
	}
	d := &def{name: h.memberName(x, n, m), kind: KindMethod, mode: qualNested}
	if d.name == "" {
		return
	}
	mods := csModifiers(x, n)
	d.exported = mods.public || mods.protected
	switch {
	case k == "local_function_statement" || outer == nil || outer.kind == KindMethod || outer.kind == KindFunction:
		d.kind, d.exported = KindFunction, false
		if h.scopes.localFns == nil {
			h.scopes.localFns = map[string]bool{}
		}
		h.scopes.localFns[d.name] = true
	default:
		d.receiver, d.memberOf = outer.name, outer
		if outer.kind == KindInterface {
			d.exported = !mods.private
		}
	}
	switch k {
	case "method_declaration":
		d.result = cleanTypeName(x.text(h.scopes.field(x, n, "returns")))
	case "property_declaration", "indexer_declaration", "operator_declaration", "conversion_operator_declaration",
		"local_function_statement":
		d.result = cleanTypeName(x.text(h.scopes.field(x, n, "type")))
	}
	end := int(n.EndByte())
	for _, f := range []string{"body", "accessors", "value"} {
		if b := h.scopes.field(x, n, f); b != nil {
			end = min(end, int(b.StartByte()))
		}
	}
	d.sig = x.signature(mods.sigStart, end)
	if x.addDef(d, n, n) >= 0 {
		d.doc = csDoc(d.doc)
	}
}

// memberName names a member: its identifier, "constructor", "~C" for a destructor,
// "operator +" and "operator int" for operators, "this[]" for an indexer.
func (h *csHandler) memberName(x *extractor, n *sitter.Node, m *match) string {
	switch x.kind(n) {
	case "constructor_declaration":
		return "constructor" // as in Java (java.go) and TypeScript
	case "destructor_declaration":
		return "~" + x.text(m.name)
	case "operator_declaration":
		return "operator " + x.text(h.scopes.field(x, n, "operator"))
	case "conversion_operator_declaration":
		return "operator " + strings.Join(strings.Fields(x.text(h.scopes.field(x, n, "type"))), "")
	case "indexer_declaration":
		return "this[]"
	}
	return x.text(m.name)
}

// bases records the base types of a class, struct, interface or record.
func (h *csHandler) bases(x *extractor, n *sitter.Node) {
	owner := n.Parent()
	if owner == nil {
		return
	}
	ok := x.kind(owner)
	if ok == "enum_declaration" {
		return // the underlying integer type
	}
	structLike := ok == "struct_declaration" ||
		(ok == "record_declaration" && hasWord(x.s[owner.StartByte():n.StartByte()], "struct"))
	i := 0
	for _, ch := range x.named(n) {
		t := &ch
		kind := x.kind(t)
		ctor := kind == "primary_constructor_base_type"
		if ctor {
			t = h.scopes.field(x, t, "type")
		} else if kind == "argument_list" || kind == "comment" {
			continue
		}
		name, q := splitTypeName(cleanTypeName(x.text(t)))
		ref := RefImplements
		switch {
		case ok == "interface_declaration", ctor:
			ref = RefInherits
		case structLike || i > 0:
		default: // a class's first base: decided in finish
			ref = RefInherits
			if h.undecided == nil {
				h.undecided = map[int]bool{}
			}
			h.undecided[int(t.StartByte())] = true
		}
		x.addRef(ref, name, q, int(t.StartByte()))
		i++
	}
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// finish settles qualifier types, the kind of each class's first base, and
// exports.
func (h *csHandler) finish(x *extractor) {
	h.scopes.emitAccesses(x, h)
	h.scopes.resolve(x, h)
	h.scopes.addFields(x, h, func(d *cdecl) (bool, bool) {
		switch d.how {
		case "local.enum":
			return true, true
		case "local.field":
			mods := csModifiers(x, &d.node)
			return mods.public || mods.protected, true
		}
		return false, false
	})
	settleExported(x, &h.scopes)
	if len(h.undecided) == 0 {
		return
	}
	kinds := map[string]Kind{}
	for _, d := range x.defs {
		if !d.dropped && (d.kind == KindClass || d.kind == KindInterface) {
			kinds[d.name] = d.kind
		}
	}
	for i := range x.refs {
		r := &x.refs[i]
		if r.kind != RefInherits || !h.undecided[r.off] {
			continue
		}
		k, known := kinds[r.name]
		if k == KindInterface || (!known && interfaceName(r.name)) {
			r.kind = RefImplements
		}
	}
}

// interfaceName reports whether name follows the interface convention: IFoo.
func interfaceName(name string) bool {
	return len(name) > 2 && name[0] == 'I' && name[1] >= 'A' && name[1] <= 'Z'
}

var (
	xmlRefTag = regexp.MustCompile(`<(?:see|seealso|paramref|typeparamref)\s+(?:cref|name|langword)="([^"]*)"\s*/>`)
	xmlTag    = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
)

// csDoc turns /// XML documentation into text: references become their
// names, other tags are dropped.
func csDoc(doc string) string {
	if strings.IndexByte(doc, '<') < 0 {
		return doc
	}
	doc = xmlRefTag.ReplaceAllString(doc, "$1")
	doc = xmlTag.ReplaceAllString(doc, "")
	var lines []string
	for l := range strings.SplitSeq(doc, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

var csBlocks = map[string]bool{"block": true, "switch_section": true, "arrow_expression_clause": true,
	"lambda_expression": true, "global_statement": true}

func (h *csHandler) declScope(x *extractor, d *cdecl) {
	n := &d.node
	switch d.how {
	case "local.var":
		if p := n.Parent(); p != nil && x.kind(p) == "global_statement" {
			d.setScope(x.root, declLocal) // top-level statements share the file's scope
		} else {
			d.setScope(p, declLocal)
		}
	case "local.stmt":
		d.setScope(n, declLocal)
	case "local.member", "local.field", "local.enum":
		d.setScope(n.Parent(), declMember)
	case "local.param":
		p := climb(n, 2)
		switch x.kind(p) {
		case "class_declaration", "struct_declaration", "record_declaration":
			d.setScope(p, declMember) // a primary constructor's parameter
		default:
			d.setScope(p, declLocal)
		}
	case "local.catch":
		d.setScope(n.Parent(), declLocal)
	case "local.for", "local.lambda":
		d.setScope(n, declLocal)
	case "local.out":
		d.setScope(climbTo(x, n, csBlocks, 16), declLocal)
	case "local.tparam":
		d.setScope(climb(n, 2), declTParam)
	default:
		d.setScope(nil, declLocal)
	}
}

func (h *csHandler) declType(x *extractor, d *cdecl) string {
	return h.scopes.alias(h.scopes.declType(x, d))
}

func (h *csHandler) fieldDecl(d *cdecl) bool { return d.how == "local.field" }
