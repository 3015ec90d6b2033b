package parse

import (
	"regexp"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// jsHandler covers JavaScript, TypeScript and TSX. JavaScript binds functions
// to names in many ways; the rules, in priority order:
//
//   - declarations: function, class, (TS) interface, type, enum, namespace;
//   - `const f = () => {}` and friends: Name is the function's own name when it
//     has one, else the variable; the other name becomes an alias;
//   - assignments `a.x = a.y = function y() {}`: Name is the function's own
//     name, else the innermost property; other properties are aliases;
//     QualifiedName is "a.y" (object + the property that names it);
//     `module.exports = function f() {}` is "f" (anonymous: the file's base
//     name without extension); `X.prototype.m = function` is method X.m;
//   - functions handed to a definer call, `defineGetter(req, 'ip', function ip()
//     {...})`: Name "ip", QualifiedName "req.ip" (anonymous functions only when
//     the callee looks like a definer: define/getter/setter/property/method);
//   - any other named function expression, by its own name;
//   - class members (methods, getters/setters, arrow-function fields, TS
//     abstract methods) as Class.member;
//   - members of object literals bound at top level (`const api = { list() {} }`
//     gives api.list), assigned to module.exports/exports or export default;
//   - other top-level variables as "const"/"var" (not `require` bindings);
//   - TS overload signatures are merged into the implementation that follows
//     them (or into one chunk for a run of same-named ambient signatures).
type jsHandler struct {
	ts       bool
	sigRuns  map[string]int  // parent node id + name -> def of the current ambient signature run
	exported map[string]bool // top-level names exported after their definition
	types    typeTable       // scopes and bindings for qualifier types (jstypes.go)
}

var definerCallee = regexp.MustCompile(`(?i)(define|getter|setter|property|method|alias)`)

func (h *jsHandler) commentMarker() string { return "//" }

func (h *jsHandler) headerNode(x *extractor, n *sitter.Node) bool {
	switch x.kind(n) {
	case "import_statement", "hash_bang_line":
		return true
	case "export_statement":
		return field(n, "source") != nil // export ... from './x'
	case "expression_statement":
		// 'use strict' and other directives.
		return n.NamedChildCount() == 1 && x.kind(n.NamedChild(0)) == "string"
	case "lexical_declaration", "variable_declaration":
		// const x = require('./x'), y = require('y').z
		decls := x.named(n)
		any := false
		for i := range decls {
			if x.kind(&decls[i]) != "variable_declarator" {
				continue
			}
			if !isRequire(x, field(&decls[i], "value")) {
				return false
			}
			any = true
		}
		return any
	}
	return false
}

var fnKinds = map[string]bool{"function_expression": true, "arrow_function": true, "generator_function": true, "function": true}

// outerOf climbs from a definition to the statement that holds it.
func (h *jsHandler) outerOf(x *extractor, n *sitter.Node) *sitter.Node {
	for {
		p := n.Parent()
		if p == nil {
			return n
		}
		switch x.kind(p) {
		case "variable_declarator", "lexical_declaration", "variable_declaration",
			"export_statement", "ambient_declaration", "expression_statement":
			n = p
		case "assignment_expression":
			if r := field(p, "right"); r != nil && r.Id() == n.Id() {
				n = p
				continue
			}
			return n
		default:
			return n
		}
	}
}

func isExportOuter(x *extractor, outer *sitter.Node) bool {
	return x.kind(outer) == "export_statement"
}

// sigStart is where n's signature starts: after decorators and comments.
func (x *extractor) sigStart(n *sitter.Node) int {
	for _, ch := range n.Children(x.cur) {
		if k := x.kind(&ch); k != "decorator" && k != "comment" {
			return int(ch.StartByte())
		}
	}
	return int(n.StartByte())
}

// sigUpTo returns the signature from the outer statement to body's start.
func (x *extractor) sigUpTo(outer, body *sitter.Node) string {
	start := x.sigStart(outer)
	if body == nil || int(body.StartByte()) <= start {
		return x.signature(start, min(int(outer.EndByte()), x.lineEndByte(x.lineOf(start))))
	}
	return x.signature(start, int(body.StartByte()))
}

func stringValue(x *extractor, n *sitter.Node) string {
	if n == nil {
		return ""
	}
	s := x.text(n)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'' || s[0] == '`') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

var identRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func (h *jsHandler) baseName(x *extractor) string {
	b := x.base
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return b
}

func (h *jsHandler) handle(x *extractor, m *match) {
	n := &m.node
	h.types.sync(x)
	if strings.HasPrefix(m.tag, "access.") {
		h.accessMatch(x, m)
		return
	}
	if strings.HasPrefix(m.tag, "scope.") || strings.HasPrefix(m.tag, "bind.") {
		h.typeMatch(x, m)
		return
	}
	switch m.tag {
	case "definition.function", "definition.class":
		outer := h.outerOf(x, n)
		d := &def{name: x.text(m.name), kind: KindFunction, mode: qualNested, exported: isExportOuter(x, outer)}
		if m.tag == "definition.class" {
			d.kind = KindClass
			h.types.addScope(n, scopeClass, d.name)
		} else {
			d.result = h.resultType(x, n, "")
			h.types.addScope(n, scopeFn, "")
		}
		d.sig = x.sigUpTo(outer, field(n, "body"))
		x.addDef(d, n, outer)
	case "definition.interface", "definition.type", "definition.enum", "definition.namespace":
		outer := h.outerOf(x, n)
		kinds := map[string]Kind{"definition.interface": KindInterface, "definition.type": KindType,
			"definition.enum": KindEnum, "definition.namespace": KindNamespace}
		d := &def{name: stringValue(x, m.name), kind: kinds[m.tag], mode: qualNested, exported: isExportOuter(x, outer)}
		if d.kind == KindType {
			d.sig = x.signature(x.sigStart(outer), min(int(outer.EndByte()), x.lineEndByte(x.lineOf(x.sigStart(outer)))))
		} else {
			d.sig = x.sigUpTo(outer, field(n, "body"))
		}
		x.addDef(d, n, outer)
	case "definition.binding":
		value := field(n, "value")
		if value == nil {
			return
		}
		outer := h.outerOf(x, n)
		binding := x.text(m.name)
		d := &def{name: binding, kind: KindFunction, mode: qualNested, exported: isExportOuter(x, outer)}
		if own := x.text(field(value, "name")); own != "" && own != binding {
			d.name, d.aliases = own, []string{binding}
		}
		if x.kind(value) == "class" {
			d.kind = KindClass
		} else {
			d.result = h.resultType(x, value, "")
		}
		d.sig = x.sigUpTo(outer, field(value, "body"))
		x.addDef(d, value, outer)
	case "definition.assignment":
		h.assignment(x, n)
	case "definition.definer":
		value := m.value
		if _, done := x.claimed[value.Id()]; done {
			return
		}
		own := x.text(field(value, "name"))
		key := stringValue(x, m.key)
		callee := x.text(m.callee)
		definer := definerCallee.MatchString(callee)
		name := own
		if name == "" {
			if !definer || !identRe.MatchString(key) {
				return
			}
			name = key
		}
		d := &def{name: name, kind: KindFunction, mode: qualNested}
		if definer && identRe.MatchString(key) {
			if args := x.named(field(n, "arguments")); len(args) > 0 && args[0].Id() != m.key.Id() {
				if k := x.kind(&args[0]); k == "identifier" || k == "member_expression" || k == "this" {
					d.qual, d.mode = x.qualifierText(&args[0])+"."+key, qualExplicit
					if k == "identifier" {
						d.owner = x.text(&args[0])
					}
				}
			}
			if key != name {
				d.aliases = []string{key}
			}
		}
		outer := value
		if p := n.Parent(); p != nil && x.kind(p) == "expression_statement" {
			outer = p
		}
		d.sig = x.sigUpTo(outer, field(value, "body"))
		// The definer call itself is not made by the function it defines.
		d.refStart, d.refEnd = int(value.StartByte()), int(value.EndByte())
		x.addDef(d, value, outer)
	case "definition.named":
		d := &def{name: x.text(m.name), kind: KindFunction, mode: qualNested}
		d.sig = x.sigUpTo(n, field(n, "body"))
		x.addDef(d, n, n)
	case "definition.default":
		value := m.value
		name := x.text(field(value, "name"))
		if name == "" {
			name = h.baseName(x)
		}
		if x.kind(value) == "object" {
			h.objectMembers(x, value, "", true)
			return
		}
		d := &def{name: name, kind: KindFunction, exported: true}
		if x.kind(value) == "class" {
			d.kind = KindClass
		}
		d.sig = x.sigUpTo(n, field(value, "body"))
		x.addDef(d, value, n)
	case "export.local":
		h.export(x.text(m.name))
	case "export.assign":
		if lt := x.text(m.callee); lt == "module.exports" || lt == "exports" {
			h.export(x.text(m.name))
		}
	case "definition.object":
		left := field(n, "left")
		lt := x.text(left)
		if lt == "module.exports" || lt == "exports" {
			// module.exports = { createApp, Router } exports those names.
			for _, ch := range x.named(m.value) {
				if x.kind(&ch) == "shorthand_property_identifier" {
					h.export(x.text(&ch))
				}
			}
			h.objectMembers(x, m.value, "", true)
		} else if strings.HasPrefix(lt, "module.exports.") || strings.HasPrefix(lt, "exports.") {
			h.objectMembers(x, m.value, lt[strings.LastIndexByte(lt, '.')+1:], true)
		}
	case "definition.var":
		value := field(n, "value")
		if value != nil && (fnKinds[x.kind(value)] || x.kind(value) == "class" || isRequire(x, value)) {
			return
		}
		outer := h.outerOf(x, n)
		d := &def{name: x.text(m.name), kind: KindVar, mode: qualNested, exported: isExportOuter(x, outer)}
		decl := n.Parent()
		if decl != nil && x.kind(decl) == "lexical_declaration" {
			if k := field(decl, "kind"); k != nil && x.text(k) == "const" {
				d.kind = KindConst
			}
		}
		d.sig = x.firstLine(outer)
		if i := x.addDef(d, n, outer); i >= 0 && value != nil && x.kind(value) == "object" {
			h.objectMembers(x, value, "", d.exported)
		}
	case "definition.method":
		h.classMember(x, m)
	case "definition.signature":
		h.signature(x, m)
	case "reference.call":
		name := x.text(m.name)
		q := x.qualifierText(m.qualifier)
		if q == "" && (name == "require" || name == "super") {
			return
		}
		if k := x.kind(&m.node); (k == "jsx_self_closing_element" || k == "jsx_opening_element") && !startsUpper(name) {
			return // an HTML element, not a component
		}
		if (name == "call" || name == "apply") && isPlainName(q) {
			// f.call(this, ...) calls f: the callee is the qualifier.
			name, q = q, ""
		}
		x.addTypedRef(RefCalls, name, q, jsQualType(q), int(m.name.StartByte()))
	case "reference.inherits", "reference.implements":
		name, q := h.typeName(x, m.name)
		if m.qualifier != nil {
			q = x.qualifierText(m.qualifier)
		}
		kind := RefInherits
		if m.tag == "reference.implements" {
			kind = RefImplements
		}
		x.addRef(kind, name, q, int(m.name.StartByte()))
	case "import":
		h.importStatement(x, n)
	case "import.require":
		h.requireImport(x, m)
	case "import.dynamic":
		imp := Import{Path: stringValue(x, m.key), Line: x.lineOf(int(n.StartByte()))}
		x.addImport(imp, int(n.StartByte()))
	}
}

// typeName decodes a heritage expression: Base, ns.Base, Base<T>, Mixin(Base).
func (h *jsHandler) typeName(x *extractor, n *sitter.Node) (string, string) {
	for n != nil {
		switch x.kind(n) {
		case "identifier", "type_identifier", "property_identifier":
			return x.text(n), ""
		case "member_expression":
			return x.text(field(n, "property")), x.qualifierText(field(n, "object"))
		case "nested_type_identifier":
			return x.text(field(n, "name")), x.qualifierText(field(n, "module"))
		case "generic_type":
			n = field(n, "name")
		case "call_expression":
			n = field(n, "function")
		case "parenthesized_expression":
			n = n.NamedChild(0)
		default:
			return "", ""
		}
	}
	return "", ""
}

// binding is one name an assignment chain binds a value to.
type binding struct {
	name, qualifier, receiver string
	module                    bool // module.exports or exports itself
}

func (h *jsHandler) assignment(x *extractor, n *sitter.Node) {
	value := field(n, "right")
	if value == nil {
		return
	}
	var bs []binding
	cur := n
	for {
		if b, ok := h.bindingOf(x, field(cur, "left")); ok {
			bs = append(bs, b)
		}
		p := cur.Parent()
		if p == nil || x.kind(p) != "assignment_expression" {
			break
		}
		if r := field(p, "right"); r == nil || r.Id() != cur.Id() {
			break
		}
		cur = p
	}
	outer := h.outerOf(x, cur)
	own := x.text(field(value, "name"))
	d := &def{kind: KindFunction}
	if x.kind(value) == "class" {
		d.kind = KindClass
	}
	var named *binding
	switch {
	case own != "":
		d.name = own
	default:
		for i := range bs {
			if !bs[i].module {
				d.name = bs[i].name
				break
			}
		}
		if d.name == "" {
			d.name = h.baseName(x)
		}
	}
	var names []string
	for i := range bs {
		b := &bs[i]
		if b.module || (b.qualifier != "" && (b.qualifier == "exports" || b.qualifier == "module.exports")) {
			d.exported = true
		}
		if b.module {
			continue
		}
		names = append(names, b.name)
		if b.name == d.name && named == nil {
			named = b
		}
	}
	d.aliases = dedupe(names, d.name)
	if named == nil {
		for i := range bs {
			if !bs[i].module && bs[i].qualifier != "" {
				named = &bs[i]
				break
			}
		}
	}
	d.qual = d.name
	if named != nil {
		if named.qualifier != "" {
			d.qual = named.qualifier + "." + named.name
			if identRe.MatchString(named.qualifier) {
				d.owner = named.qualifier // res.send -> the `res` object, when defined here
			}
		}
		if named.receiver != "" {
			d.kind, d.receiver = KindMethod, named.receiver
		}
	}
	if d.kind != KindClass {
		d.result = h.resultType(x, value, d.receiver)
	}
	d.sig = x.sigUpTo(outer, field(value, "body"))
	x.addDef(d, value, outer)
}

func (h *jsHandler) bindingOf(x *extractor, left *sitter.Node) (binding, bool) {
	switch x.kind(left) {
	case "identifier":
		if t := x.text(left); t == "exports" {
			return binding{module: true}, true
		} else {
			return binding{name: t}, true
		}
	case "member_expression":
		obj, prop := field(left, "object"), field(left, "property")
		ot, pt := x.text(obj), x.text(prop)
		if ot == "module" && pt == "exports" {
			return binding{module: true}, true
		}
		b := binding{name: pt, qualifier: x.qualifierText(obj)}
		if x.kind(obj) == "member_expression" && x.text(field(obj, "property")) == "prototype" {
			b.receiver = x.qualifierText(field(obj, "object"))
			b.qualifier = b.receiver
		}
		return b, pt != ""
	}
	return binding{}, false
}

// objectMembers adds the function-valued members of an object literal.
func (h *jsHandler) objectMembers(x *extractor, obj *sitter.Node, prefix string, exported bool) {
	for _, ch := range x.named(obj) {
		var name string
		var fn *sitter.Node
		switch x.kind(&ch) {
		case "method_definition":
			name, fn = stringValue(x, field(&ch, "name")), &ch
		case "pair":
			v := field(&ch, "value")
			if v == nil || !fnKinds[x.kind(v)] {
				continue
			}
			name, fn = stringValue(x, field(&ch, "key")), v
		default:
			continue
		}
		if name == "" {
			continue
		}
		d := &def{name: name, kind: KindFunction, mode: qualNested, exported: exported}
		if prefix != "" {
			d.qual, d.mode = prefix+"."+name, qualExplicit
		}
		d.result = h.resultType(x, fn, "")
		d.sig = x.sigUpTo(&ch, field(fn, "body"))
		c := ch
		x.addDef(d, fn, &c)
	}
}

func (h *jsHandler) classMember(x *extractor, m *match) {
	n := &m.node
	if x.kind(n) == "method_definition" {
		h.fnScope(x, n, stringValue(x, m.name))
	}
	body := n.Parent()
	if body == nil {
		return
	}
	class := body.Parent()
	if class == nil {
		return
	}
	ci, ok := x.claimed[class.Id()]
	if !ok {
		return // a member of an anonymous class expression
	}
	cls := x.defs[ci]
	name := stringValue(x, m.name)
	d := &def{name: name, kind: KindMethod, mode: qualNested, receiver: cls.name, memberOf: cls}
	d.private = strings.HasPrefix(name, "#")
	for _, ch := range x.named(n) {
		if x.kind(&ch) == "accessibility_modifier" && x.text(&ch) != "public" {
			d.private = true
		}
	}
	d.exported = cls.exported && !d.private
	fnBody, fn := field(n, "body"), n
	if v := field(n, "value"); v != nil {
		fnBody, fn = field(v, "body"), v
	}
	d.result = h.resultType(x, fn, cls.name)
	d.sig = x.sigUpTo(n, fnBody)
	x.addDef(d, n, n)
}

func (h *jsHandler) export(name string) {
	if h.exported == nil {
		h.exported = map[string]bool{}
	}
	h.exported[name] = true
}

// finish settles field accesses (jsfields.go), resolves the qualifier types
// of calls and accesses (jstypes.go), records class fields, marks the
// top-level definitions exported by name elsewhere, then the members of
// exported classes and the functions assigned to properties of exported
// objects (res.send when module.exports = res).
func (h *jsHandler) finish(x *extractor) {
	h.types.ctor, h.types.blocks, h.types.lang = "constructor", jsBlocks, h
	h.settleAccesses(x)
	h.types.resolve(x)
	h.classFields(x)
	if len(h.exported) == 0 {
		return
	}
	top := map[string]*def{}
	for _, d := range x.defs {
		if d.dropped || !x.outerIsTopLevel(d) {
			continue
		}
		if h.exported[d.name] {
			d.exported = true
		}
		if _, dup := top[d.name]; !dup {
			top[d.name] = d
		}
	}
	for _, d := range x.defs {
		if d.memberOf != nil && d.memberOf.exported && !d.private {
			d.exported = true
		}
		if o, ok := top[d.owner]; ok && d.owner != "" && o.exported {
			d.exported = true
		}
	}
}

func startsUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// isPlainName reports whether q is one identifier (no dots, calls or spaces).
func isPlainName(q string) bool {
	if q == "" || q == "this" || q == "super" {
		return false
	}
	for i := 0; i < len(q); i++ {
		if c := q[i]; !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
