package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// C and C++ definitions: what each definition pattern of c.scm and cpp.scm
// becomes (see c.go for the decisions).

// qualify joins a C++ scope chain and a name with dots; in C a name is its
// own qualified name.
func (h *cHandler) qualify(chain []string, name string) string {
	if !h.cpp || len(chain) == 0 {
		return name
	}
	return strings.Join(chain, ".") + "." + name
}

// function is a function_definition: a function, a method in its class, or
// a method defined out of it (Foo::bar), parented to Foo when Foo is here.
func (h *cHandler) function(x *extractor, n *sitter.Node) {
	sc := h.scopeOf(x, n)
	if sc.local {
		return
	}
	nameNode, _ := x.cDeclName(field(n, "declarator"))
	if nameNode == nil {
		return
	}
	scope, name := x.cNameParts(nameNode)
	if name == "" {
		return
	}
	outer := x.cOuter(n, &sc)
	static, _ := x.cStorage(n)
	if args := x.macroArgs(nameNode); len(args) > 0 {
		// TEST(Suite, Case) {...}: the test Case of Suite (not a method).
		name, sc.chain = args[len(args)-1], append(append([]string(nil), sc.chain...), args[:len(args)-1]...)
	}
	d := &def{name: name, kind: KindFunction, exported: h.visible(static, &sc)}
	h.placeMember(x, d, &sc, scope, outer)
	d.sig = x.signature(int(outer.StartByte()), bodyStart(n))
	d.result = x.cTypeName(field(n, "type"))
	if x.addDef(d, n, outer) < 0 {
		return
	}
	h.defined[d.qual] = d
	h.types.addFunc(d, int(n.StartByte()), int(n.EndByte()))
}

// visible reports whether a definition is seen outside its file: not static
// (a static one in a header is seen by every file including it) and not in
// an anonymous namespace.
func (h *cHandler) visible(static bool, sc *cScope) bool {
	return (!static || h.header) && !sc.anon
}

// macroArgs are the arguments of a macro that defines a function, TEST(Suite,
// Case) { ... } or BENCHMARK(Name): when the name is an upper-case macro and
// every argument a bare name; nil otherwise.
func (x *extractor) macroArgs(name *sitter.Node) []string {
	fd := name.Parent()
	if x.kind(name) != "identifier" || !cCaps(x.text(name)) || x.kind(fd) != "function_declarator" {
		return nil
	}
	var parts []string
	for _, p := range x.named(field(fd, "parameters")) {
		t := field(&p, "type")
		if x.kind(&p) != "parameter_declaration" || field(&p, "declarator") != nil || x.kind(t) != "type_identifier" {
			return nil
		}
		parts = append(parts, x.text(t))
	}
	return parts
}

// placeMember sets d's kind, receiver, owner and qualified name from where it
// stands: in a class body (a method of that class), or named with a scope
// (Foo::bar: a method of Foo, unless Foo is a namespace of the file).
func (h *cHandler) placeMember(x *extractor, d *def, sc *cScope, scope []string, outer *sitter.Node) {
	chain := append(append([]string(nil), sc.chain...), scope...)
	d.qual = h.qualify(chain, d.name)
	switch {
	case sc.class != nil && len(scope) == 0 && !h.friend(x, sc):
		d.kind = KindMethod
		d.receiver = x.cScopeName(field(sc.class, "name"))
		d.exported = d.exported && h.public(x, sc, outer)
	case len(scope) > 0 && h.cpp && !h.spaces[scope[len(scope)-1]]:
		d.kind = KindMethod
		d.receiver = scope[len(scope)-1]
		d.owner = d.receiver
	}
}

// friend reports whether the definition is a friend declared in a class (a
// function, not a member).
func (h *cHandler) friend(x *extractor, sc *cScope) bool {
	p := sc.parent()
	return p != nil && x.kind(p) == "friend_declaration"
}

// public reports whether a member at outer is public in its class: after a
// public: label, or before any label in a struct or union.
func (h *cHandler) public(x *extractor, sc *cScope, outer *sitter.Node) bool {
	body := field(sc.class, "body")
	if body == nil {
		return false
	}
	acc, ok := h.access[body.Id()]
	if !ok {
		for _, ch := range x.named(body) {
			if x.kind(&ch) == "access_specifier" {
				acc = append(acc, cAccess{int(ch.StartByte()), strings.TrimSpace(x.text(&ch)) == "public"})
			}
		}
		h.access[body.Id()] = acc
	}
	public := x.kind(sc.class) != "class_specifier"
	off := int(outer.StartByte())
	for _, a := range acc {
		if a.off > off {
			break
		}
		public = a.public
	}
	return public
}

// declaration is a declaration at file, namespace or class scope: a
// prototype or member declaration (a chunk marked by its ";"), or variables.
func (h *cHandler) declaration(x *extractor, n *sitter.Node) {
	sc := h.scopeOf(x, n)
	if sc.local {
		return
	}
	decls := x.fieldChildren(n, "declarator")
	if len(decls) == 0 || x.hasRecordBody(field(n, "type")) {
		return // struct point {...} origin;: the struct is the definition
	}
	nameNode, isFunc := x.cDeclName(&decls[0])
	if nameNode == nil {
		return
	}
	if isFunc {
		h.prototype(x, n, nameNode, &sc)
		return
	}
	static, constant := x.cStorage(n)
	constant = constant && !x.cPointsToConst(&decls[0])
	var names []string
	var scope []string
	for i := range decls {
		nn, fn := x.cDeclName(&decls[i])
		if nn == nil || fn {
			continue
		}
		s, name := x.cNameParts(nn)
		if i == 0 {
			scope = s
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return
	}
	d := &def{name: names[0], kind: KindVar, exported: h.visible(static, &sc)}
	if constant {
		d.kind = KindConst
	}
	d.aliases = dedupe(names[1:], names[0])
	d.qual = h.qualify(append(append([]string(nil), sc.chain...), scope...), d.name)
	if len(scope) > 0 {
		d.owner = scope[len(scope)-1] // int Foo::count = 0;
	}
	if sc.class != nil {
		return // a static member: a field of its class
	}
	d.sig = x.firstLine(n)
	x.addDef(d, n, x.cOuter(n, &sc))
}

// prototype records a function or member declaration.
func (h *cHandler) prototype(x *extractor, n, nameNode *sitter.Node, sc *cScope) {
	scope, name := x.cNameParts(nameNode)
	if name == "" || x.kind(n) == "friend_declaration" {
		return
	}
	outer := x.cOuter(n, sc)
	static, _ := x.cStorage(n)
	d := &def{name: name, kind: KindFunction, exported: h.visible(static, sc)}
	h.placeMember(x, d, sc, scope, outer)
	d.sig = strings.TrimSuffix(x.signature(int(outer.StartByte()), int(n.EndByte())), ";") + ";"
	d.result = x.cTypeName(field(n, "type"))
	if x.addDef(d, n, outer) >= 0 {
		h.decls = append(h.decls, d)
		if d.kind == KindMethod {
			h.types.addMember(d)
		}
	}
}

// hasRecordBody reports whether a type is a named struct, class, union or
// enum with a body (which is a definition of its own).
func (x *extractor) hasRecordBody(t *sitter.Node) bool {
	switch x.kind(t) {
	case "struct_specifier", "class_specifier", "union_specifier", "enum_specifier":
		return field(t, "body") != nil && field(t, "name") != nil
	}
	return false
}

// member is a field_declaration: in C++ a member function declaration is a
// method declaration; data members are fields of their struct or class.
func (h *cHandler) member(x *extractor, n *sitter.Node) {
	sc := h.scopeOf(x, n)
	if sc.local {
		return
	}
	decls := x.fieldChildren(n, "declarator")
	if len(decls) == 0 {
		return
	}
	if nn, isFunc := x.cDeclName(&decls[0]); nn != nil && isFunc && h.cpp {
		h.prototype(x, n, nn, &sc)
		return
	}
	owner, rec := h.owner(x, &sc)
	if owner == nil {
		return
	}
	typ := x.cTypeName(field(n, "type"))
	for i := range decls {
		nn, _ := x.cDeclName(&decls[i])
		if nn == nil {
			continue
		}
		_, name := x.cNameParts(nn)
		exported := owner.exported
		if h.cpp && rec != nil {
			sc2 := cScope{class: rec}
			exported = exported && h.public(x, &sc2, n)
		}
		x.addField(owner, name, typ, int(n.StartByte()), int(n.EndByte()), exported)
		h.types.addField(owner, name, typ)
	}
}

// owner is the def of the struct, class or union a member is declared in
// (through anonymous structs and unions, whose members are their parent's).
func (h *cHandler) owner(x *extractor, sc *cScope) (*def, *sitter.Node) {
	for i := len(sc.anc) - 1; i >= 0; i-- {
		switch x.kind(&sc.anc[i]) {
		case "struct_specifier", "class_specifier", "union_specifier":
			if d, ok := h.records[sc.anc[i].Id()]; ok {
				return d, &sc.anc[i]
			}
		}
	}
	return nil, nil
}

// record is a struct, union, class or enum with a body. One inside a typedef
// is the typedef's (see typedef); an anonymous one is no definition.
func (h *cHandler) record(x *extractor, n *sitter.Node, kind Kind) {
	if _, ok := h.records[n.Id()]; ok {
		return
	}
	sc := h.scopeOf(x, n)
	nameNode := field(n, "name")
	if sc.local || nameNode == nil {
		return
	}
	outer := x.cOuter(n, &sc)
	if p := sc.parent(); outer == n && p != nil {
		switch x.kind(p) {
		case "type_definition":
			return
		case "declaration", "field_declaration":
			outer = p // struct S {...} s; and a nested struct S {...}; in a class
		}
	}
	scope, name := x.cNameParts(nameNode) // struct SkipList<K>::Node {...}: Node, in SkipList
	d := &def{name: name, kind: kind, exported: !sc.anon}
	if x.kind(n) == "class_specifier" {
		d.kind = KindClass
	}
	d.qual = h.qualify(append(append([]string(nil), sc.chain...), scope...), name)
	if len(scope) > 0 {
		d.owner = scope[len(scope)-1]
	}
	if sc.class != nil {
		d.exported = d.exported && h.public(x, &sc, outer) // a nested type
	}
	body := field(n, "body")
	d.sig = x.signature(int(outer.StartByte()), int(body.StartByte()))
	if x.addDef(d, n, outer) >= 0 {
		h.records[n.Id()] = d
		h.defined[d.qual] = d
		h.types.addClass(d)
	}
}

// typedef is a type_definition: a struct, union or enum with a body is a
// definition of that kind named by its tag (or by its first typedef name
// when it has none), the typedef names its aliases; anything else is a type.
func (h *cHandler) typedef(x *extractor, n *sitter.Node) {
	sc := h.scopeOf(x, n)
	if sc.local {
		return
	}
	var names []string
	for _, dn := range x.fieldChildren(n, "declarator") {
		if nn, _ := x.cDeclName(&dn); nn != nil {
			names = append(names, x.text(nn))
		}
	}
	if len(names) == 0 {
		return
	}
	t := field(n, "type")
	d := &def{name: names[0], kind: KindType, exported: !sc.anon}
	d.aliases = dedupe(names[1:], names[0])
	switch x.kind(t) {
	case "struct_specifier", "union_specifier", "class_specifier", "enum_specifier":
		if body := field(t, "body"); body != nil {
			d.kind = KindStruct
			if x.kind(t) == "enum_specifier" {
				d.kind = KindEnum
			}
			if tag := field(t, "name"); tag != nil {
				d.name = x.cScopeName(tag)
				d.aliases = dedupe(names, d.name)
			}
			d.sig = x.signature(int(n.StartByte()), int(body.StartByte()))
		}
	}
	if d.sig == "" {
		d.sig = x.firstLine(n)
	}
	outer := x.cOuter(n, &sc)
	d.qual = h.qualify(sc.chain, d.name)
	if x.addDef(d, n, outer) >= 0 && d.kind != KindType {
		h.records[t.Id()] = d
		h.defined[d.qual] = d
		h.types.addClass(d)
	}
}

// macro is a #define: a function-like one is a function, any other a const;
// an include guard is neither.
func (h *cHandler) macro(x *extractor, n, nameNode *sitter.Node) {
	sc := h.scopeOf(x, n)
	if sc.local || nameNode == nil || x.isGuardDefine(n, sc.parent()) {
		return
	}
	d := &def{name: x.text(nameNode), kind: KindConst, exported: h.header}
	if x.kind(n) == "preproc_function_def" {
		d.kind = KindFunction
	}
	d.qual = d.name
	d.sig = strings.TrimSpace(strings.TrimSuffix(x.firstLine(n), "\\"))
	x.addDef(d, n, n)
}

// namespace is a named namespace_definition (an anonymous one is transparent).
func (h *cHandler) namespace(x *extractor, n *sitter.Node) {
	nameNode := field(n, "name")
	if nameNode == nil {
		return
	}
	sc := h.scopeOf(x, n)
	if sc.local {
		return
	}
	full := x.cScopeName(nameNode)
	parts := strings.Split(full, ".")
	for _, p := range parts {
		h.spaces[p] = true
	}
	name := parts[len(parts)-1]
	d := &def{name: name, kind: KindNamespace, exported: !sc.anon}
	d.qual = h.qualify(append(append([]string(nil), sc.chain...), parts[:len(parts)-1]...), name)
	if body := field(n, "body"); body != nil {
		d.sig = x.signature(int(n.StartByte()), int(body.StartByte()))
	}
	x.addDef(d, n, n)
}

// alias is using X = Y; or a concept: a type.
func (h *cHandler) alias(x *extractor, n, nameNode *sitter.Node) {
	sc := h.scopeOf(x, n)
	if sc.local || nameNode == nil {
		return
	}
	d := &def{name: x.text(nameNode), kind: KindType, exported: !sc.anon}
	outer := x.cOuter(n, &sc)
	if sc.class != nil {
		d.exported = d.exported && h.public(x, &sc, outer)
	}
	d.qual = h.qualify(sc.chain, d.name)
	d.sig = x.firstLine(outer)
	x.addDef(d, n, outer)
}
