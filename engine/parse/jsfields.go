package parse

import (
	"slices"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// JavaScript/TypeScript class fields (File.Fields) and field accesses
// (RefReads/RefWrites).
//
// Fields are the class's attribute candidates of the type table (jstypes.go):
// body field definitions, TypeScript parameter properties and this.x = ...
// in the constructor; finish turns those that belong to a class definition
// into fields, so no tree walk is needed and their type is the one `this.x`
// qualifiers resolve to.
//
// Accesses come from member_expression matches: each o.p whose object is
// this, a name or a chain of them (this.a.b, without its whitespace) is a
// read, recorded at the property with the pending qualifier type calls get.
// Write targets are matched separately and recorded at the same offset;
// settleAccesses then keeps one kind per offset: a call there (o.p() or
// new o.P()) wins, then a write, then a read. The order of matches that
// finish at the same node is tree-sitter's business, hence that pass.

// refDrop marks a property that is no access: the one a function is
// assigned to (res.send = function ...), a definition. It never leaves finish.
const refDrop RefKind = "\x00drop"

// jsGlobals are well-known global objects, whose properties are not the
// file's fields; super and import (import.meta) are keywords.
var jsGlobals = map[string]bool{
	"process": true, "window": true, "document": true, "console": true, "Math": true, "JSON": true,
	"Object": true, "Array": true, "module": true, "exports": true, "globalThis": true, "global": true,
	"Symbol": true, "Number": true, "String": true, "Promise": true, "Reflect": true, "Buffer": true,
	"Date": true, "Error": true, "require": true, "arguments": true, "super": true, "import": true,
}

// accessMatch handles the access.* captures of javascript.scm.
func (h *jsHandler) accessMatch(x *extractor, m *match) {
	switch m.tag {
	case "access.member":
		h.access(x, RefReads, int(m.node.StartByte()), m.name)
	case "access.assign":
		if !jsAssignsDefinition(x, m.value) {
			h.access(x, RefWrites, int(m.qualifier.StartByte()), m.name)
		} else if off := int(m.name.StartByte()); off >= x.minOff {
			x.refs = append(x.refs, rawRef{kind: refDrop, off: off})
		}
	case "access.write":
		h.writeTarget(x, m.value)
	}
}

// access records a read or write of property prop of the member expression
// starting at start, when its object is this, a name or a chain of names
// that is not a global. The object is cut from the source rather than taken
// from its node: every node costs cgo calls.
func (h *jsHandler) access(x *extractor, kind RefKind, start int, prop *sitter.Node) {
	if prop == nil {
		return
	}
	ps, pe := int(prop.StartByte()), int(prop.EndByte())
	if n := len(x.refs); kind == RefReads && n > 0 && x.refs[n-1].off == ps && x.refs[n-1].kind == RefCalls {
		return // the call's match usually comes just before: spare the ref
	}
	name := x.s[ps:pe]
	if name == "prototype" || name == "constructor" || start >= ps {
		return // X.prototype.m, this.constructor: not fields
	}
	q, root := jsChain(x.s[start:ps])
	if root == "" || jsGlobals[root] {
		return
	}
	x.addTypedRef(kind, name, q, jsQualType(q), ps)
}

// jsAssignsDefinition reports whether v, the value assigned to a property, is a
// function or class (through a.x = a.y = function ...): the assignment
// defines a method (javascript.go's assignment) rather than writing a field.
func jsAssignsDefinition(x *extractor, v *sitter.Node) bool {
	for i := 0; v != nil && i < 16; i++ {
		switch k := x.kind(v); {
		case fnKinds[k] || k == "class":
			return true
		case k == "assignment_expression":
			v = field(v, "right")
		default:
			return false
		}
	}
	return false
}

// writeTarget records the writes of an assignment's, ++/--'s or delete's
// target n: o.p, the property an element is written through (o.p[k][j] =
// v writes p), the properties a destructuring assignment assigns.
func (h *jsHandler) writeTarget(x *extractor, n *sitter.Node) {
	for depth := 0; n != nil && depth < 16; depth++ {
		switch x.kind(n) {
		case "member_expression":
			h.access(x, RefWrites, int(n.StartByte()), field(n, "property"))
			return
		case "subscript_expression":
			n = field(n, "object")
		case "array_pattern", "object_pattern":
			for _, ch := range x.named(n) {
				h.writeTarget(x, &ch)
			}
			return
		case "pair_pattern":
			n = field(n, "value")
		case "assignment_pattern", "object_assignment_pattern":
			n = field(n, "left") // [this.a = 1] = xs
		case "rest_pattern":
			n = n.NamedChild(0)
		default:
			return
		}
	}
}

// jsChain decodes the object of a member expression, the source up to its
// property: when it is a name followed by any number of .name, ?.name or
// .#name, none of them prototype or constructor, it returns the object
// without whitespace and its first name; else "", "".
func jsChain(src string) (q, root string) {
	end := len(src)
	for end > 0 && jsSpace(src[end-1]) {
		end--
	}
	if end == 0 || src[end-1] != '.' {
		return "", ""
	}
	end--
	if end > 0 && src[end-1] == '?' {
		end--
	}
	src = src[:end]
	spaced := false
	for i, seg := 0, 0; ; seg++ {
		for i < len(src) && jsSpace(src[i]) {
			i, spaced = i+1, true
		}
		if seg > 0 && i < len(src) && src[i] == '#' {
			i++
		}
		s := i
		for i < len(src) && isIdentByte(src[i]) {
			i++
		}
		if i == s || src[s] >= '0' && src[s] <= '9' {
			return "", ""
		}
		if seg == 0 {
			root = src[s:i]
		} else if w := src[s:i]; w == "prototype" || w == "constructor" {
			return "", ""
		}
		for i < len(src) && jsSpace(src[i]) {
			i, spaced = i+1, true
		}
		if i == len(src) {
			break
		}
		if src[i] == '?' {
			i++
		}
		if i >= len(src) || src[i] != '.' {
			return "", ""
		}
		i++
	}
	q = strings.TrimSpace(src)
	if spaced {
		q = strings.Join(strings.Fields(q), "")
	}
	if len(q) > 64 {
		return "", "" // qualifierText would cut it
	}
	return q, root
}

func jsSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// settleAccesses keeps one kind of ref per property (see above) and drops
// the accesses through a name this file imports (React.Component, path.sep).
// It sorts the refs by offset, stably, as build does.
func (h *jsHandler) settleAccesses(x *extractor) {
	var bound map[string]bool
	refs := x.refs
	slices.SortStableFunc(refs, func(a, b rawRef) int { return a.off - b.off })
	out := refs[:0]
	for i := 0; i < len(refs); {
		j := i
		var call, write, drop, access bool
		for ; j < len(refs) && refs[j].off == refs[i].off; j++ {
			switch refs[j].kind {
			case RefCalls:
				call = true
			case RefWrites:
				write, access = true, true
			case RefReads:
				access = true
			case refDrop:
				drop = true
			}
		}
		if access && bound == nil {
			bound = jsImportNames(x.f.Imports)
		}
		for k := i; k < j; k++ {
			r := refs[k]
			switch r.kind {
			case refDrop:
				continue
			case RefReads, RefWrites:
				if call || drop || (write && r.kind == RefReads) || (len(bound) > 0 && bound[jsRoot(r.qualifier)]) {
					continue
				}
			}
			out = append(out, r)
		}
		i = j
	}
	x.refs = out
}

// jsRoot is the first name of a qualifier chain.
func jsRoot(q string) string {
	for i := 0; i < len(q); i++ {
		if q[i] == '.' || q[i] == '?' {
			return q[:i]
		}
	}
	return q
}

// jsImportNames returns the local names the imports bind.
func jsImportNames(imps []Import) map[string]bool {
	bound := map[string]bool{}
	for _, imp := range imps {
		if imp.Alias != "" {
			bound[imp.Alias] = true
		}
		for _, n := range imp.Names {
			if n.Alias != "" {
				bound[n.Alias] = true
			} else {
				bound[n.Name] = true
			}
		}
	}
	return bound
}

// jsFieldCand is a class's attribute candidate that may become a field.
type jsFieldCand struct {
	a     *tattr
	class int // its class scope
	decl  bool
}

// classFields records the fields of class definitions from the type table's
// attribute candidates. A declaration (a body field or a parameter property)
// wins over a constructor assignment, else the first in source order. A name
// that is also a method of the class (an arrow-function field,
// this.onClick = this.onClick.bind(this)) is the method's, not a field, and
// so is a function assigned in the constructor (a definition, like
// res.send = function).
func (h *jsHandler) classFields(x *extractor) {
	t := &h.types
	if len(t.attrs) == 0 {
		return
	}
	if t.byName == nil {
		t.prepare(x) // resolve had no pending qualifier types
	}
	var cands []jsFieldCand
	for i := range t.attrs {
		a := &t.attrs[i]
		if c := t.classOfAttr(a); c >= 0 {
			cands = append(cands, jsFieldCand{a: a, class: c, decl: !a.ctor || x.kind(&a.node) != "assignment_expression"})
		}
	}
	if len(cands) == 0 {
		return
	}
	slices.SortStableFunc(cands, func(p, q jsFieldCand) int {
		if p.decl != q.decl {
			if p.decl {
				return -1
			}
			return 1
		}
		return p.a.at - q.a.at
	})
	type member struct {
		class *def
		name  string
	}
	methods := map[member]bool{}
	for _, d := range x.defs {
		if d.memberOf != nil {
			methods[member{d.memberOf, d.name}] = true
		}
	}
	for _, c := range cands {
		name := c.a.name
		if !plainIdent(strings.TrimPrefix(name, "#")) {
			continue // computed, string and numeric keys
		}
		di, ok := x.claimed[t.scopes[c.class].node.Id()]
		if !ok || x.defs[di].kind != KindClass || methods[member{x.defs[di], name}] {
			continue
		}
		n := &c.a.node
		if !c.decl {
			if jsAssignsDefinition(x, field(n, "right")) {
				continue // this.onClick = () => {...} is a function definition
			}
			if p := n.Parent(); p != nil && x.kind(p) == "expression_statement" {
				n = p
			}
		}
		exported := !strings.HasPrefix(name, "#") && !h.restricted(x, &c.a.node)
		x.addField(x.defs[di], name, t.attrType(c.class, name), int(n.StartByte()), int(n.EndByte()), exported)
	}
}

// restricted reports whether a field definition or parameter property is
// TypeScript private or protected.
func (h *jsHandler) restricted(x *extractor, n *sitter.Node) bool {
	if !h.ts || x.kind(n) == "assignment_expression" {
		return false
	}
	for _, ch := range x.named(n) {
		if x.kind(&ch) == "accessibility_modifier" {
			return x.text(&ch) != "public"
		}
	}
	return false
}
