package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
)

func init() {
	registerLanguage(language{name: "ruby", exts: []string{".rb", ".rake", ".gemspec", ".ru"},
		spec:    grammarSpec{lang: tsruby.Language, queries: []string{"ruby.scm"}},
		handler: func() langHandler { return &rubyHandler{} }})
}

// rubyHandler: classes and modules (kind class: a module is a namespace and a
// mixin, and the indexer looks for inherited methods in classes), methods
// (def x and def self.x, also inside `class << self`) as Class.method parented
// to the innermost class or module, so Module::Class#method is "Class.method";
// attr_reader/attr_writer/attr_accessor as one method chunk named after its
// first accessor (the others are aliases); define_method(:x) as method x;
// constants (X = ..., kind const, or class for X = Struct.new/Class.new/
// Data.define); blocks handed to DSL calls, `describe User do ... end`,
// `it "adds" do`, `get "/x" do`, as functions named by the call and its first
// argument ("describe User", "it adds", "GET /x"), unless inside a method or
// a block that is code (it, before, let, a route: rbLeaves).
// Methods after a bare `private` or `protected`, or named by `private :x`,
// are not exported. A def outside any class or module is a function.
//
// Instance variables are fields, read and written (rubyfields.go). Doc is
// the run of # comments directly above. require "a/b" is an Import of
// "a/b"; require_relative "x" one of "./x" (relative to the file: the
// indexer resolves "./" and "../" paths against its directory).
type rubyHandler struct {
	minOff  int
	members []*def   // methods, accessors and constants: owner found in finish
	dsls    []rbDSL  // DSL blocks: dropped in finish inside a method or an example
	methods []span   // def ranges: the scopes of local variables
	mtree   spanTree // methods, nested (built on first use in finish)
	binds   map[string][]rbBind
	ivars   map[string][]rbBind // @x = ... by variable
	idents  []rbIdent           // bare identifiers: calls unless local
	vis     []rbVis             // private/protected/public marks
	iv      rbIvars             // instance variable accesses (rubyfields.go)
}

// rbBind is an assignment or parameter binding name at offset at.
type rbBind struct {
	at      int
	node    sitter.Node // the assignment, for its type; zero for parameters
	hasNode bool
}

// rbDSL is a DSL block's definition, the offset of its call's method name,
// and whether its block is code rather than more definitions (it, before,
// a route handler).
type rbDSL struct {
	d      *def
	callee int
	leaf   bool
}

type rbIdent struct {
	name string
	off  int
}

// rbVis is a visibility mark: a bare `private` (names nil) applies to the
// methods after it in its class body; `private :a, :b` or `private def a` to
// those names.
type rbVis struct {
	off, end int // the mark; the end of the body it is written in (bare marks)
	private  bool
	names    []string
}

func (h *rubyHandler) commentMarker() string { return "#" }

func (h *rubyHandler) headerNode(x *extractor, n *sitter.Node) bool {
	if x.kind(n) != "call" || field(n, "receiver") != nil {
		return false
	}
	switch x.text(field(n, "method")) {
	case "require", "require_relative", "load", "autoload":
		return true
	}
	return false
}

func (h *rubyHandler) handle(x *extractor, m *match) {
	h.sync(x)
	switch m.tag {
	case "definition.class", "definition.module":
		h.class(x, m)
	case "definition.method":
		h.method(x, m)
	case "definition.const":
		h.constant(x, m)
	case "definition.dsl":
		h.dsl(x, m)
	case "reference.call":
		h.call(x, m)
	case "reference.ident":
		h.ident(x, m.name)
	case "reference.inherits":
		h.superclass(x, m.name)
	case "bind.assign", "bind.local", "bind.ivar":
		h.bind(x, m)
	case "access.ivar", "access.ivarw":
		h.ivarAccess(x, m)
	}
}

// sync drops what an earlier tree found at or after the point error recovery
// re-parses from.
func (h *rubyHandler) sync(x *extractor) {
	if x.minOff == h.minOff {
		return
	}
	cut := x.minOff
	h.minOff = cut
	keep := func(ds []*def) []*def {
		out := ds[:0]
		for _, d := range ds {
			if d.ownStart < cut {
				out = append(out, d)
			}
		}
		return out
	}
	h.members = keep(h.members)
	h.dsls = keepBefore(h.dsls, cut, func(e rbDSL) int { return e.d.ownStart })
	ms := h.methods[:0]
	for _, s := range h.methods {
		if s.start < cut {
			ms = append(ms, span{s.start, min(s.end, cut)})
		}
	}
	h.methods = ms
	for _, bs := range []map[string][]rbBind{h.binds, h.ivars} {
		for k, v := range bs {
			out := v[:0]
			for _, b := range v {
				if b.at < cut {
					out = append(out, b)
				}
			}
			bs[k] = out
		}
	}
	rs := h.iv.reads[:0]
	for _, r := range h.iv.reads {
		if r.off < cut {
			rs = append(rs, r)
		}
	}
	h.iv.reads = rs
	for off := range h.iv.writes {
		if off >= cut {
			delete(h.iv.writes, off)
		}
	}
	ids := h.idents[:0]
	for _, id := range h.idents {
		if id.off < cut {
			ids = append(ids, id)
		}
	}
	h.idents = ids
	vs := h.vis[:0]
	for _, v := range h.vis {
		if v.off < cut {
			vs = append(vs, v)
		}
	}
	h.vis = vs
}

func (h *rubyHandler) class(x *extractor, m *match) {
	n := &m.node
	name, _ := rbConstName(x, m.name)
	d := &def{name: name, qual: name, kind: KindClass, exported: true}
	end := int(m.name.EndByte())
	if sc := field(n, "superclass"); sc != nil {
		end = int(sc.EndByte())
	}
	d.sig = x.signature(int(n.StartByte()), end)
	x.addDef(d, n, n)
}

func (h *rubyHandler) method(x *extractor, m *match) {
	n := &m.node
	d := &def{name: x.text(m.name), kind: KindMethod, exported: true}
	end := int(m.name.EndByte())
	if p := field(n, "parameters"); p != nil {
		end = int(p.EndByte())
	}
	d.sig = x.signature(int(n.StartByte()), end)
	if x.addDef(d, n, n) >= 0 {
		h.members = append(h.members, d)
		h.methods = append(h.methods, span{int(n.StartByte()), int(n.EndByte())})
	}
}

// constant records X = ... outside a method (Ruby allows no other).
func (h *rubyHandler) constant(x *extractor, m *match) {
	n := &m.node
	d := &def{name: x.text(m.name), kind: KindConst, exported: true}
	if r := field(n, "right"); x.kind(r) == "call" {
		switch x.text(field(r, "receiver")) + "." + x.text(field(r, "method")) {
		case "Struct.new", "Class.new", "Data.define", "Module.new":
			d.kind = KindClass
		}
	}
	d.sig = x.firstLine(n)
	if x.addDef(d, n, n) >= 0 {
		h.members = append(h.members, d)
	}
}

// accessors records attr_reader :a, :b (and attr_writer, attr_accessor).
func (h *rubyHandler) accessors(x *extractor, n *sitter.Node) {
	var names []string
	for _, a := range x.named(field(n, "arguments")) {
		if s := rbSymbol(x, &a); s != "" {
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return
	}
	d := &def{name: names[0], kind: KindMethod, exported: true, aliases: dedupe(names[1:], names[0])}
	d.sig = x.firstLine(n)
	if x.addDef(d, n, n) >= 0 {
		h.members = append(h.members, d)
	}
}

// dsl records a block handed to a DSL call as a definition.
func (h *rubyHandler) dsl(x *extractor, m *match) {
	n := &m.node
	callee := x.text(m.callee)
	if m.qualifier != nil && x.text(m.qualifier) != "RSpec" {
		return
	}
	switch callee {
	case "define_method":
		if name := rbSymbol(x, m.key); name != "" {
			d := &def{name: name, kind: KindMethod, exported: true}
			d.sig = x.signature(int(n.StartByte()), int(m.value.StartByte()))
			if x.addDef(d, n, n) >= 0 {
				h.members = append(h.members, d)
				h.methods = append(h.methods, span{int(n.StartByte()), int(n.EndByte())})
			}
		}
		return
	case "lambda", "proc", "loop", "catch", "open", "synchronize", "raise", "private", "protected", "public":
		return
	}
	label := rbLabel(x, m.key)
	if label == "" {
		return
	}
	name := callee + " " + label
	if httpVerbs[callee] {
		name = strings.ToUpper(callee) + " " + label
	}
	d := &def{name: name, qual: name, kind: KindFunction, exported: true}
	if rbBinders[callee] {
		d.aliases = []string{label} // let(:user) { ... } defines user
	}
	d.sig = x.signature(int(n.StartByte()), int(m.value.StartByte()))
	// The DSL call is the enclosing code's; the block is the definition's.
	d.refStart, d.refEnd = int(m.value.StartByte()), int(m.value.EndByte())
	if x.addDef(d, n, n) >= 0 {
		h.dsls = append(h.dsls, rbDSL{d, int(m.callee.StartByte()), rbLeaves[callee] || httpVerbs[callee]})
	}
}

// rbBinders are the DSL calls whose block defines a method named by their
// first argument.
var rbBinders = map[string]bool{"let": true, "let!": true, "subject": true, "helper_method": true}

// rbLeaves are the DSL calls whose block is code: a call with a block inside
// one is not a definition (mock_app X do ... end in an example).
var rbLeaves = map[string]bool{"it": true, "specify": true, "example": true, "scenario": true, "its": true,
	"before": true, "after": true, "around": true, "let": true, "let!": true, "subject": true, "task": true,
	"test": true, "should": true}

var httpVerbs = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true,
	"options": true, "head": true}

// rbLabel renders a DSL call's first argument: a string's or symbol's text, a
// constant as written, a hash's first key; "" for anything else.
func rbLabel(x *extractor, n *sitter.Node) string {
	var s string
	switch x.kind(n) {
	case "string", "simple_symbol", "delimited_symbol", "hash_key_symbol":
		s = rbSymbol(x, n)
	case "constant", "scope_resolution":
		s = x.text(n)
	case "pair":
		return rbLabel(x, field(n, "key"))
	default:
		return ""
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		cut := 80
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// rbSymbol is the text of a symbol or string literal (:name, "name",
// :"na me", name: as a hash key), "" for anything else.
func rbSymbol(x *extractor, n *sitter.Node) string {
	switch x.kind(n) {
	case "simple_symbol":
		return strings.TrimPrefix(x.text(n), ":")
	case "hash_key_symbol":
		return x.text(n)
	case "string", "delimited_symbol":
		var b strings.Builder
		for _, ch := range x.named(n) {
			b.WriteString(x.text(&ch)) // contents, escapes and #{...} as written
		}
		return b.String()
	}
	return ""
}

// rbConstName splits a constant path: Billing::Invoice -> (Invoice, Billing).
func rbConstName(x *extractor, n *sitter.Node) (name, scope string) {
	if x.kind(n) == "scope_resolution" {
		return x.text(field(n, "name")), x.text(field(n, "scope"))
	}
	return x.text(n), ""
}

// superclass records class A < B (B::C, B::C[7.0]).
func (h *rubyHandler) superclass(x *extractor, n *sitter.Node) {
	for n != nil && x.kind(n) == "element_reference" {
		n = field(n, "object") // ActiveRecord::Migration[7.1]
	}
	switch x.kind(n) {
	case "constant", "scope_resolution":
		name, scope := rbConstName(x, n)
		x.addRef(RefInherits, name, scope, int(n.StartByte()))
	}
}
