package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
)

// javaHandler: classes, interfaces, enums, records and annotation types (at
// any depth: nested and local classes too) and their methods, constructors
// and annotation elements, each a chunk with its Javadoc and annotations.
// QualifiedName is the class path without the package (Outer.Inner.method);
// the package is File.Package. Members of anonymous classes stay in the chunk
// of the code that creates them.
//
// `import a.b.C` is Import{Path: "a.b.C", Alias: "C"} (C is the name the file
// uses); `import a.b.*` is Path "a.b" with Names [*]; `import static a.b.C.m`
// is Path "a.b.C" with Names [m]. Qualifier types: classscope.go.
type javaHandler struct {
	scopes classScopes
}

func init() {
	registerLanguage(language{name: "java", exts: []string{".java"},
		spec:    grammarSpec{lang: tsjava.Language, queries: []string{"java.scm"}},
		handler: func() langHandler { return &javaHandler{} }})
}

func (h *javaHandler) commentMarker() string { return "//" }

func (h *javaHandler) headerNode(x *extractor, n *sitter.Node) bool {
	k := x.kind(n)
	return k == "package_declaration" || k == "import_declaration"
}

var javaTypeKinds = map[string]Kind{
	"definition.class": KindClass, "definition.interface": KindInterface, "definition.enum": KindEnum,
	"definition.record": KindClass, "definition.annotation": KindInterface,
}

func (h *javaHandler) handle(x *extractor, m *match) {
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
		h.scopes.addAssigned(x, m)
	case "access.write":
		h.scopes.markWrite(x, m.name, "field")
	case "package":
		for _, ch := range x.named(n) {
			if k := x.kind(&ch); k == "scoped_identifier" || k == "identifier" {
				x.f.Package = strings.Join(strings.Fields(x.text(&ch)), "")
			}
		}
	case "import":
		h.importDecl(x, n)
	case "definition.class", "definition.interface", "definition.enum", "definition.record", "definition.annotation":
		h.typeDecl(x, m)
	case "definition.method":
		h.member(x, m)
	case "scope.anon":
		if int(n.StartByte()) >= x.minOff {
			h.scopes.addClass(m.value, cleanTypeName(x.text(m.name)), "", nil)
		}
	case "reference.call":
		q := x.qualifierText(m.qualifier)
		x.addTypedRef(RefCalls, x.text(m.name), q, h.scopes.qualType(x, m.qualifier, q), int(m.name.StartByte()))
	case "reference.new":
		name, q := splitTypeName(cleanTypeName(x.text(m.name)))
		x.addRef(RefCalls, name, q, int(m.name.StartByte()))
	case "reference.inherits", "reference.implements":
		kind := RefInherits
		if m.tag == "reference.implements" {
			kind = RefImplements
		}
		name, q := splitTypeName(cleanTypeName(x.text(m.name)))
		x.addRef(kind, name, q, int(m.name.StartByte()))
	}
}

// splitTypeName splits "a.b.C" into "C" and "a.b".
func splitTypeName(t string) (name, qualifier string) {
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[i+1:], t[:i]
	}
	return t, ""
}

func (h *javaHandler) typeDecl(x *extractor, m *match) {
	n := &m.node
	d := &def{name: x.text(m.name), kind: javaTypeKinds[m.tag], mode: qualNested}
	mods := javaModifiers(x, n)
	d.exported = mods.public || mods.protected
	if p := n.Parent(); p != nil {
		switch x.kind(p) {
		case "interface_body", "annotation_type_body":
			d.exported = !mods.private // implicitly public
		case "block", "switch_block_statement_group", "switch_rule":
			d.exported = false // a local class
		}
	}
	d.sig = x.signature(mods.sigStart, h.scopes.bodyOrEnd(x, n))
	if i := x.addDef(d, n, n); i >= 0 {
		h.scopes.addClass(n, d.name, "", d)
	}
}

// member records a method, constructor or annotation element of the class
// whose body holds it; one at the top of the file (an implicit class) is a
// function. A constructor is named "constructor", as in TypeScript: named
// like its class, it would make the class name defined twice, and a `new C()`
// elsewhere would resolve to neither.
func (h *javaHandler) member(x *extractor, m *match) {
	n := &m.node
	body := n.Parent()
	if body == nil {
		return
	}
	var cls *def
	inInterface := false
	switch x.kind(body) {
	case "program":
	case "class_body", "interface_body", "annotation_type_body", "enum_body_declarations":
		owner := body.Parent()
		if owner != nil && x.kind(owner) == "enum_body" {
			owner = owner.Parent()
		}
		ci, ok := -1, false
		if owner != nil {
			ci, ok = x.claimed[owner.Id()]
		}
		if !ok {
			return // an anonymous class or an enum constant's body
		}
		cls = x.defs[ci]
		inInterface = x.kind(body) != "class_body" && x.kind(body) != "enum_body_declarations"
	default:
		return
	}
	d := &def{name: x.text(m.name), kind: KindFunction, mode: qualNested}
	if k := x.kind(n); k == "constructor_declaration" || k == "compact_constructor_declaration" {
		d.name = "constructor"
	}
	mods := javaModifiers(x, n)
	d.exported = mods.public || mods.protected || (inInterface && !mods.private)
	if cls != nil {
		d.kind, d.receiver, d.memberOf = KindMethod, cls.name, cls
	}
	if x.kind(n) == "method_declaration" {
		d.result = cleanTypeName(x.text(h.scopes.field(x, n, "type")))
	}
	d.sig = x.signature(mods.sigStart, h.scopes.bodyOrEnd(x, n))
	x.addDef(d, n, n)
}

type javaMods struct {
	public, protected, private bool
	sigStart                   int // the declaration after its annotations
}

// javaModifiers reads n's modifiers: visibility, and where the signature
// starts (annotations and comments are not part of it).
func javaModifiers(x *extractor, n *sitter.Node) javaMods {
	mods := javaMods{sigStart: int(n.StartByte())}
	first := n.NamedChild(0)
	if first == nil || x.kind(first) != "modifiers" {
		return mods
	}
	found := false
	for _, ch := range first.Children(x.cur) {
		switch k := x.kind(&ch); k {
		case "marker_annotation", "annotation", "line_comment", "block_comment":
			continue
		case "public":
			mods.public = true
		case "protected":
			mods.protected = true
		case "private":
			mods.private = true
		}
		if !found {
			mods.sigStart, found = int(ch.StartByte()), true
		}
	}
	if !found {
		if next := first.NextSibling(); next != nil {
			mods.sigStart = int(next.StartByte())
		}
	}
	return mods
}

func (h *javaHandler) importDecl(x *extractor, n *sitter.Node) {
	s := strings.TrimSpace(strings.TrimPrefix(x.text(n), "import"))
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	static := false
	if rest, ok := strings.CutPrefix(s, "static"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n') {
		static, s = true, rest
	}
	s = strings.Join(strings.Fields(s), "")
	if s == "" || strings.ContainsAny(s, "/(){}") {
		return // a comment or broken syntax
	}
	imp := Import{Line: x.lineOf(int(n.StartByte()))}
	switch {
	case strings.HasSuffix(s, ".*"):
		imp.Path, imp.Names = strings.TrimSuffix(s, ".*"), []ImportName{{Name: "*"}}
	case static:
		member, class := splitTypeName(s)
		imp.Path, imp.Names = class, []ImportName{{Name: member}}
		if class != "" {
			if h.scopes.statics == nil {
				h.scopes.statics = map[string]string{}
			}
			h.scopes.statics[member], _ = splitTypeName(class)
		}
	default:
		imp.Path = s
		imp.Alias, _ = splitTypeName(s)
		h.scopes.bind(imp.Alias)
	}
	x.addImport(imp, int(n.StartByte()))
}

// finish settles qualifier types and makes a definition exported only when
// every class around it is.
func (h *javaHandler) finish(x *extractor) {
	h.scopes.emitAccesses(x, h)
	h.scopes.resolve(x, h)
	h.scopes.addFields(x, h, func(d *cdecl) (bool, bool) {
		switch {
		case d.how == "local.enum":
			return true, true
		case d.how != "local.member":
			return false, false
		case x.kind(&d.node) == "constant_declaration":
			return true, true // an interface's constant
		}
		mods := javaModifiers(x, &d.node)
		return mods.public || mods.protected, true
	})
	settleExported(x, &h.scopes)
}

// settleExported clears the export of a definition inside a class that is
// not exported itself (or inside a method: a local class).
func settleExported(x *extractor, s *classScopes) {
	var hidden []*def
	for _, d := range x.defs {
		if d.dropped || !d.exported {
			continue
		}
		for _, c := range s.enclosing(d.ownStart) {
			if cd := s.classes[c].def; cd != nil && cd != d && !cd.exported {
				hidden = append(hidden, d)
				break
			}
		}
	}
	for _, d := range hidden {
		d.exported = false
	}
}

var javaBlocks = map[string]bool{"block": true, "switch_rule": true, "switch_block_statement_group": true,
	"constructor_body": true, "lambda_expression": true}

func (h *javaHandler) declScope(x *extractor, d *cdecl) {
	n := &d.node
	switch d.how {
	case "local.member", "local.enum":
		d.setScope(n.Parent(), declMember)
	case "local.var":
		d.setScope(n.Parent(), declLocal)
	case "local.resource":
		d.setScope(climb(n, 2), declLocal)
	case "local.param":
		if x.kind(n) == "catch_formal_parameter" {
			d.setScope(n.Parent(), declLocal)
			return
		}
		p := climb(n, 2)
		if p != nil && x.kind(p) == "record_declaration" {
			d.setScope(p, declMember) // a record component
			return
		}
		d.setScope(p, declLocal)
	case "local.for", "local.lambda":
		d.setScope(n, declLocal)
	case "local.pattern":
		d.setScope(climbTo(x, n, javaBlocks, 16), declLocal)
	case "local.tparam":
		d.setScope(climb(n, 2), declTParam)
	default:
		d.setScope(nil, declLocal)
	}
}

func (h *javaHandler) declType(x *extractor, d *cdecl) string { return h.scopes.declType(x, d) }

func (h *javaHandler) fieldDecl(d *cdecl) bool { return d.how == "local.member" }
