package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsphp "github.com/tree-sitter/tree-sitter-php/bindings/go"
)

func init() {
	registerLanguage(language{name: "php", exts: []string{".php", ".phtml"},
		spec:    grammarSpec{lang: tsphp.LanguagePHP, queries: []string{"php.scm"}},
		handler: func() langHandler { return &phpHandler{} }})
}

// phpHandler: classes, interfaces, traits (kind class: a trait is a class whose
// methods are copied into its users) and enums, with their methods as
// Class.method parented to the type; functions; file-level constants; route
// closures, Route::get('/x', function () {...}), as functions named "GET /x"
// (routes.go); and braced namespaces, `namespace A { ... }`, as chunks of kind
// namespace.
//
// Names are unqualified: the file's (first) namespace is File.Package and
// Namespace\Class::method is "Class.method". A chunk's Doc is the docblock or
// comments above it, or between its attributes and the declaration; the
// attributes #[...] are inside the chunk. Properties, promoted constructor
// parameters, class constants and enum cases are Fields; property accesses
// are reads and writes (phpfields.go). `use A\B\C;` is an
// Import with Path "A\B\C" and Alias "C" (the local binding; `as D` gives D);
// require/include of a literal path is an Import of that path, with __DIR__
// (or dirname(__FILE__)) kept as "__DIR__/" so the indexer can resolve it
// against the file's directory.
type phpHandler struct {
	types   typeTable
	imports map[string]string // class binding -> the imported name ("User" -> "App\Models\User")
	acc     phpAccesses       // property reads and writes (phpfields.go)
}

func (h *phpHandler) commentMarker() string { return "//" }

func (h *phpHandler) headerNode(x *extractor, n *sitter.Node) bool {
	switch x.kind(n) {
	case "php_tag", "declare_statement", "namespace_use_declaration":
		return true
	case "namespace_definition":
		return field(n, "body") == nil
	case "expression_statement":
		return phpRequireKinds[x.kind(n.NamedChild(0))]
	case "text":
		return n.StartByte() == 0 // a #! line before <?php
	}
	return false
}

var phpRequireKinds = map[string]bool{"require_expression": true, "require_once_expression": true,
	"include_expression": true, "include_once_expression": true}

func (h *phpHandler) handle(x *extractor, m *match) {
	h.types.sync(x)
	switch m.tag {
	case "namespace":
		h.namespace(x, m)
	case "import":
		h.useDecl(x, &m.node)
	case "import.require":
		h.require(x, &m.node)
	case "definition.class", "definition.trait":
		h.typeDecl(x, m, KindClass)
	case "definition.interface":
		h.typeDecl(x, m, KindInterface)
	case "definition.enum":
		h.typeDecl(x, m, KindEnum)
	case "definition.function":
		h.function(x, m)
	case "definition.method":
		h.member(x, m)
	case "definition.const":
		h.fileConst(x, m)
	case "reference.call":
		h.call(x, m)
	case "reference.new":
		x.addRef(RefCalls, phpLastSegment(x.text(m.name)), "", int(m.name.StartByte()))
	case "reference.inherits", "reference.implements":
		kind := RefInherits
		if m.tag == "reference.implements" {
			kind = RefImplements
		}
		x.addRef(kind, phpLastSegment(x.text(m.name)), "", int(m.name.StartByte()))
	case "scope.arrow":
		h.types.addScope(&m.node, scopeArrow, "")
	case "scope.class":
		h.types.addScope(&m.node, scopeClass, "") // anonymous: $this is no known type
	default:
		if strings.HasPrefix(m.tag, "bind.") {
			h.bind(x, m)
		} else if strings.HasPrefix(m.tag, "access.") {
			h.access(x, m)
		}
	}
}

// namespace records the file's namespace; a braced one is also a chunk.
func (h *phpHandler) namespace(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	if x.f.Package == "" {
		x.f.Package = name
	}
	body := field(n, "body")
	if body == nil {
		return
	}
	d := &def{name: name, qual: name, kind: KindNamespace, exported: true}
	d.sig = x.signature(int(n.StartByte()), int(body.StartByte()))
	x.addDef(d, n, n)
}

func (h *phpHandler) typeDecl(x *extractor, m *match, kind Kind) {
	n := &m.node
	name := x.text(m.name)
	d := &def{name: name, qual: name, kind: kind, exported: true}
	d.sig = phpSignature(x, n)
	d.doc = phpInnerDoc(x, n)
	h.types.addScope(n, scopeClass, name)
	x.addDef(d, n, n)
}

func (h *phpHandler) function(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	d := &def{name: name, qual: name, kind: KindFunction, exported: true}
	d.sig = phpSignature(x, n)
	d.doc = phpInnerDoc(x, n)
	h.types.addScope(n, scopeFn, name)
	x.addDef(d, n, n)
}

// member handles what a class, interface, trait or enum body declares:
// methods are chunks, the rest fields of the type.
func (h *phpHandler) member(x *extractor, m *match) {
	n := &m.node
	owner := h.ownerOf(x, n)
	if owner == nil {
		return // a member of an anonymous class
	}
	exported := phpPublic(x, n)
	switch x.kind(n) {
	case "method_declaration":
		name := x.text(m.name)
		d := &def{name: name, kind: KindMethod, receiver: owner.name, qual: owner.name + "." + name, exported: exported}
		d.sig = phpSignature(x, n)
		d.doc = phpInnerDoc(x, n)
		h.types.addScope(n, scopeFn, name)
		if x.addDef(d, n, n) >= 0 && strings.EqualFold(name, "__construct") {
			h.promoted(x, owner, field(n, "parameters"))
		}
	case "property_declaration":
		typ := field(n, "type")
		for _, el := range x.named(n) {
			if x.kind(&el) != "property_element" {
				continue
			}
			name := strings.TrimPrefix(x.text(field(&el, "name")), "$")
			x.addField(owner, name, phpTypeText(x, typ), int(n.StartByte()), int(n.EndByte()), exported)
			if typ != nil {
				h.types.addAttr(tattr{name: name, at: int(n.StartByte()), how: phpHowType, node: *typ})
			}
		}
	case "const_declaration":
		for _, el := range x.named(n) {
			if x.kind(&el) == "const_element" {
				x.addField(owner, x.text(el.NamedChild(0)), "", int(n.StartByte()), int(n.EndByte()), exported)
			}
		}
	case "enum_case":
		x.addField(owner, x.text(m.name), "", int(n.StartByte()), int(n.EndByte()), true)
	}
}

// promoted records the constructor parameters that declare properties:
// __construct(private Repo $repo).
func (h *phpHandler) promoted(x *extractor, owner *def, params *sitter.Node) {
	for _, p := range x.named(params) {
		if x.kind(&p) != "property_promotion_parameter" {
			continue
		}
		name := strings.TrimPrefix(x.text(field(&p, "name")), "$")
		typ := field(&p, "type")
		v := x.text(field(&p, "visibility"))
		x.addField(owner, name, phpTypeText(x, typ), int(p.StartByte()), int(p.EndByte()), v == "" || v == "public")
		if typ != nil {
			h.types.addAttr(tattr{name: name, at: int(p.StartByte()), ctor: true, how: phpHowType, node: *typ})
		}
	}
}

// fileConst records `const A = 1, B = 2;` outside a class, named after its
// first constant.
func (h *phpHandler) fileConst(x *extractor, m *match) {
	n := &m.node
	var names []string
	for _, el := range x.named(n) {
		if x.kind(&el) == "const_element" {
			names = append(names, x.text(el.NamedChild(0)))
		}
	}
	if len(names) == 0 {
		return
	}
	d := &def{name: names[0], qual: names[0], kind: KindConst, exported: true, aliases: dedupe(names[1:], names[0])}
	d.sig = x.firstLine(n)
	x.addDef(d, n, n)
}

// ownerOf returns the def of the type whose body declares member n.
func (h *phpHandler) ownerOf(x *extractor, n *sitter.Node) *def {
	body := n.Parent()
	if body == nil {
		return nil
	}
	decl := body.Parent()
	if decl == nil {
		return nil
	}
	if i, ok := x.claimed[decl.Id()]; ok {
		return x.defs[i]
	}
	return nil
}

// phpPublic reports whether a member has no private or protected modifier.
func phpPublic(x *extractor, n *sitter.Node) bool {
	for _, ch := range x.named(n) {
		if x.kind(&ch) == "visibility_modifier" {
			v := x.text(&ch)
			return !strings.HasPrefix(v, "private") && !strings.HasPrefix(v, "protected")
		}
	}
	return true
}

// phpSignature is a declaration from its first keyword or modifier (after
// attributes and comments) up to its body; the whole declaration when it has
// none (an abstract or interface method).
func phpSignature(x *extractor, n *sitter.Node) string {
	start := int(n.StartByte())
	for _, ch := range n.Children(x.cur) {
		if k := x.kind(&ch); k != "attribute_list" && !x.isComment(&ch) {
			start = int(ch.StartByte())
			break
		}
	}
	end := bodyStart(n)
	if end < 0 {
		end = int(n.EndByte())
	}
	return x.signature(start, end)
}

// phpInnerDoc is the text of the comments between a declaration's attributes
// and the declaration itself (#[Attr] /** doc */ function f()).
func phpInnerDoc(x *extractor, n *sitter.Node) string {
	if field(n, "attributes") == nil {
		return ""
	}
	var parts []string
	for _, ch := range x.named(n) {
		switch {
		case x.kind(&ch) == "attribute_list":
		case x.isComment(&ch):
			parts = append(parts, x.text(&ch))
		default:
			return cleanComments(parts)
		}
	}
	return cleanComments(parts)
}

// phpTypeText is a declared type as written, whitespace collapsed.
func phpTypeText(x *extractor, t *sitter.Node) string {
	if t == nil {
		return ""
	}
	return strings.Join(strings.Fields(x.text(t)), "")
}

// phpLastSegment is the last part of a qualified name: \App\Models\User -> User.
func phpLastSegment(s string) string {
	return s[strings.LastIndexByte(s, '\\')+1:]
}
