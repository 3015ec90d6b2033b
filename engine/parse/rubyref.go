package parse

import (
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Ruby calls, imports, visibility and qualifier types.
//
// A call without a receiver, foo(1) or a bare foo that is no local variable
// (one assigned or taken as a parameter before it in the same def), calls a
// method of self: inside a class or module its Qualifier is "self" and its
// QualifierType the class, as for self.foo; elsewhere it is a bare call of a
// function. C.m and C::m have the QualifierType C; x.m where x = C.new in the
// same def, and @x.m where the class assigns @x = C.new (and nothing else),
// have C. C.new(...) is a call of C. include/extend/prepend M are inherits
// references to M: the indexer looks for inherited methods there.

// Pending qualifier types, answered in finish.
const (
	rbPendImplicit = "\x00i" // a receiver-less call: self's method, or a function
	rbPendSelf     = "\x00s" // self.m
	rbPendRecv     = "\x00r" // x.m with x an identifier: a local, or itself a call
	rbPendIvar     = "\x00@" // @x.m
)

// rbBuiltins are Kernel and Module methods called without a receiver.
var rbBuiltins = map[string]bool{
	"puts": true, "print": true, "p": true, "pp": true, "raise": true, "fail": true, "lambda": true,
	"proc": true, "loop": true, "format": true, "sprintf": true, "sleep": true, "rand": true,
	"exit": true, "abort": true, "at_exit": true, "catch": true, "throw": true, "binding": true,
	"caller": true, "block_given?": true, "warn": true, "gets": true, "require": true, "load": true,
	"require_relative": true, "autoload": true, "include": true, "extend": true, "prepend": true,
	"attr_reader": true, "attr_writer": true, "attr_accessor": true, "private": true, "protected": true,
	"public": true, "module_function": true, "private_constant": true, "private_class_method": true,
	"public_class_method": true, "define_method": true, "alias_method": true, "freeze": true,
	"send": true, "public_send": true, "respond_to?": true, "is_a?": true, "kind_of?": true,
	"instance_variable_get": true, "instance_variable_set": true, "nil?": true, "tap": true,
	"then": true, "dup": true, "class": true, "super": true, "yield": true, "__method__": true,
	"new": true, "defined?": true, "Integer": true, "Float": true, "String": true, "Array": true,
	"Hash": true, "Rational": true, "Complex": true, "__dir__": true, "object_id": true,
}

// rbKeywords can look like identifiers in a tree error recovery made.
var rbKeywords = map[string]bool{
	"end": true, "do": true, "then": true, "else": true, "elsif": true, "begin": true, "rescue": true,
	"ensure": true, "def": true, "class": true, "module": true, "if": true, "unless": true, "while": true,
	"until": true, "case": true, "when": true, "return": true, "self": true, "nil": true, "true": true,
	"false": true, "and": true, "or": true, "not": true, "in": true, "break": true, "next": true,
	"redo": true, "retry": true, "alias": true, "undef": true, "__FILE__": true, "__LINE__": true,
}

func (h *rubyHandler) call(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	off := int(m.name.StartByte())
	if m.qualifier != nil {
		h.recvCall(x, m.qualifier, name, off)
		return
	}
	switch name {
	case "require", "require_relative", "load", "autoload":
		h.require(x, n, name)
	case "include", "extend", "prepend":
		for _, a := range x.named(field(n, "arguments")) {
			if k := x.kind(&a); k == "constant" || k == "scope_resolution" {
				cname, scope := rbConstName(x, &a)
				x.addRef(RefInherits, cname, scope, int(a.StartByte()))
			}
		}
	case "attr_reader", "attr_writer", "attr_accessor":
		h.accessors(x, n)
	case "private", "protected", "public", "private_class_method", "public_class_method":
		h.visibility(x, n, name)
	default:
		if !rbBuiltins[name] {
			x.addTypedRef(RefCalls, name, "", rbPendImplicit, off)
		}
	}
}

// rbObjectMethods are methods every object has from Object and Kernel: a
// call of one says nothing about the repository's code.
var rbObjectMethods = map[string]bool{
	"class": true, "nil?": true, "is_a?": true, "kind_of?": true, "instance_of?": true, "respond_to?": true,
	"send": true, "__send__": true, "public_send": true, "object_id": true, "frozen?": true, "freeze": true,
	"dup": true, "tap": true, "then": true, "itself": true, "instance_variable_get": true,
	"instance_variable_set": true, "instance_variables": true, "method": true, "equal?": true,
}

func (h *rubyHandler) recvCall(x *extractor, r *sitter.Node, name string, off int) {
	if rbObjectMethods[name] {
		return
	}
	switch x.kind(r) {
	case "self":
		x.addTypedRef(RefCalls, name, "self", rbPendSelf, off)
	case "constant", "scope_resolution":
		cname, _ := rbConstName(x, r)
		if isUpperConst(cname) {
			cname = "" // MAX_ITEMS.times: a value, not a class
		} else if name == "new" {
			x.addRef(RefCalls, cname, "", off)
			return
		}
		x.addTypedRef(RefCalls, name, x.qualifierText(r), cname, off)
	case "identifier":
		x.addTypedRef(RefCalls, name, x.text(r), rbPendRecv, off)
	case "instance_variable":
		x.addTypedRef(RefCalls, name, x.text(r), rbPendIvar, off)
	default:
		x.addRef(RefCalls, name, x.qualifierText(r), off)
	}
}

// ident records a bare identifier in a position where it may be a call;
// `private` and friends written alone are visibility marks.
func (h *rubyHandler) ident(x *extractor, n *sitter.Node) {
	name := x.text(n)
	switch name {
	case "":
		return // a MISSING node of error recovery
	case "private", "protected", "public":
		if p := n.Parent(); p != nil && x.kind(p) == "body_statement" {
			h.vis = append(h.vis, rbVis{off: int(n.StartByte()), end: int(p.EndByte()), private: name != "public"})
		}
		return
	}
	if int(n.StartByte()) >= x.minOff && !rbBuiltins[name] && !rbKeywords[name] {
		h.idents = append(h.idents, rbIdent{name: name, off: int(n.StartByte())})
	}
}

// visibility records `private :a, :b`, `private def a ... end` and
// `private_class_method :a`.
func (h *rubyHandler) visibility(x *extractor, n *sitter.Node, name string) {
	v := rbVis{off: int(n.StartByte()), private: strings.HasPrefix(name, "private") || name == "protected"}
	for _, a := range x.named(field(n, "arguments")) {
		switch x.kind(&a) {
		case "method", "singleton_method":
			v.names = append(v.names, x.text(field(&a, "name")))
		default:
			if s := rbSymbol(x, &a); s != "" {
				v.names = append(v.names, s)
			}
		}
	}
	if len(v.names) > 0 {
		h.vis = append(h.vis, v)
	}
}

func (h *rubyHandler) bind(x *extractor, m *match) {
	name := x.text(m.name)
	b := rbBind{at: int(m.name.StartByte())}
	if b.at < x.minOff {
		return
	}
	if m.tag != "bind.local" {
		b.node, b.hasNode = m.node, true
	}
	if m.tag == "bind.ivar" {
		h.markIvarWrite(b.at)
	}
	target := &h.binds
	if m.tag == "bind.ivar" {
		target = &h.ivars
	}
	if *target == nil {
		*target = map[string][]rbBind{}
	}
	(*target)[name] = append((*target)[name], b)
}

// require records require "x", require_relative "x" (as "./x"), load and
// autoload :C, "x"; File.expand_path("../x", __FILE__) and
// File.expand_path("x", __dir__) are relative paths too.
func (h *rubyHandler) require(x *extractor, n *sitter.Node, name string) {
	args := x.named(field(n, "arguments"))
	if name == "autoload" && len(args) > 0 {
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	p, rel := rbPath(x, &args[0])
	if p == "" {
		return
	}
	if (rel || name == "require_relative") && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") && !strings.HasPrefix(p, "/") {
		p = "./" + p
	}
	x.addImport(Import{Path: p, Line: x.lineOf(int(n.StartByte()))}, int(n.StartByte()))
}

// rbPath evaluates a required path: a literal string, or File.expand_path
// relative to the file (rel).
func rbPath(x *extractor, n *sitter.Node) (string, bool) {
	switch x.kind(n) {
	case "string":
		for _, ch := range x.named(n) {
			if x.kind(&ch) == "interpolation" {
				return "", false
			}
		}
		return rbSymbol(x, n), false
	case "call":
		if x.text(field(n, "receiver")) != "File" || x.text(field(n, "method")) != "expand_path" {
			return "", false
		}
		args := x.named(field(n, "arguments"))
		if len(args) != 2 || x.kind(&args[0]) != "string" {
			return "", false
		}
		p, _ := rbPath(x, &args[0])
		switch x.text(&args[1]) {
		case "__FILE__": // relative to the file itself: one ".." names its directory
			if rest, ok := strings.CutPrefix(p, "../"); ok {
				return "./" + rest, true
			}
		case "__dir__":
			return p, true
		}
	}
	return "", false
}

// finish settles owners, visibility, DSL blocks inside methods, which bare
// identifiers are calls, and the pending qualifier types.
func (h *rubyHandler) finish(x *extractor) {
	sort.Slice(h.methods, func(i, j int) bool { return h.methods[i].start < h.methods[j].start })
	for _, bs := range h.binds {
		sort.Slice(bs, func(i, j int) bool { return bs[i].at < bs[j].at })
	}
	var classes []*def
	for _, d := range x.defs {
		if d.kind == KindClass && !d.dropped {
			classes = append(classes, d)
		}
	}
	cls := newDefTree(classes)
	h.settleMembers(cls)
	dslCalls := h.settleDSL()
	for _, id := range h.idents {
		if !h.isLocal(id.name, id.off) {
			x.refs = append(x.refs, rawRef{kind: RefCalls, name: id.name, qualType: rbPendImplicit, off: id.off})
		}
	}
	h.settleIvars(x, cls)
	h.settleRefs(x, cls, dslCalls)
}

// settleDSL drops the DSL blocks inside a method or inside a DSL block whose
// block is code, and returns the offsets of the remaining ones' calls.
func (h *rubyHandler) settleDSL() map[int]bool {
	ds := make([]*def, len(h.dsls))
	leaf := map[*def]bool{}
	for i, dd := range h.dsls {
		ds[i] = dd.d
		leaf[dd.d] = dd.leaf
	}
	tree := newDefTree(ds)
	calls := map[int]bool{}
	for _, dd := range h.dsls {
		drop := h.methodAt(dd.d.ownStart) >= 0
		for p := tree.around(dd.d); p != nil && !drop; p = tree.around(p) {
			drop = leaf[p]
		}
		dd.d.dropped = drop
		if !drop {
			calls[dd.callee] = true
		}
	}
	return calls
}
