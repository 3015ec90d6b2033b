package parse

import (
	"bytes"
	"path"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
)

func init() {
	registerLanguage(language{name: "c", exts: []string{".c", ".h"},
		spec:    grammarSpec{lang: tsc.Language, queries: []string{"c.scm"}},
		handler: func() langHandler { return &cHandler{} },
		sniff:   sniffHeader, prepare: cMaskMacros})
	registerLanguage(language{name: "cpp", exts: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"},
		spec:    grammarSpec{lang: tscpp.Language, queries: []string{"c.scm", "cpp.scm"}},
		handler: func() langHandler { return &cHandler{cpp: true} }, prepare: cMaskMacros})
}

// cHandler is the C and C++ handler (the C++ grammar has C's nodes and more,
// so c.scm serves both and cpp.scm adds the C++ forms).
//
// Decisions worth knowing:
//
//   - A .h file is C unless its text says C++ (sniffCPlusPlus: a namespace,
//     a class with a body, a template, an access specifier, `::`, an
//     extension-less standard header such as <vector>); Parse sees one file,
//     so a sibling .cpp cannot be consulted. .hpp .hh .hxx .h++ .cc .cpp .cxx
//     .c++ .ipp .tpp are C++.
//   - Definitions: functions, prototypes, structs, unions, enums, typedefs
//     (a typedef of a struct with a body is the struct, its typedef names
//     its aliases), macros (#define NAME: const; NAME(x): function; the
//     include guard is neither), variables at file scope; C++ namespaces,
//     classes, methods (in the class, or out of it as Foo::bar, then
//     parented to Foo when Foo is in the file and named Foo.bar), operator
//     overloads ("operator==", "operator bool"), templates (the chunk starts
//     at the template line), using X = Y and concepts (type).
//   - Qualified names: C has one namespace for functions and tags, so a C
//     QualifiedName is the name. A C++ one is the namespace and class chain
//     with dots, ns::inner::Foo::bar -> "ns.inner.Foo.bar"; a call's scope
//     is written the same way (ns::util::run() has Qualifier "ns.util"), so
//     it matches the QualifiedName it names.
//   - Declarations: a prototype (int f(void);) or a member declaration (void
//     bar(); in a class) is a chunk of kind function or method whose
//     Signature ends with ";", the mark of a declaration; a definition's
//     never does. When the file also defines the same qualified name, only
//     the definition is a chunk. The indexer links a call to the declaration
//     an included header makes visible; pairing a declaration with its
//     definition elsewhere is left to the indexer, by name and that mark.
//   - Includes: #include "x.h" gives Import{Path: "x.h"}; #include <x.h>
//     keeps its brackets, Path "<x.h>", which the indexer treats as external.
//   - Preprocessor conditionals, extern "C" blocks and anonymous namespaces
//     are transparent at file scope: what is inside them is top-level (an
//     include guard's includes are the file header).
//   - C++ qualifier types: `this` is the enclosing class; a parameter or
//     local declared with a class type (pointers, references, smart
//     pointers looked through; auto x = new Foo / make_unique<Foo>() / F());
//     a member of the enclosing class: its type when the class is in the
//     file, "Foo#m" otherwise. A bare call to a method of the enclosing class
//     known in the file is a call on `this`. Calls and bases in std:: are
//     left out: never the repository's, and a same-named function of the
//     repository is not them.
//   - Annotation and export macros the grammar cannot parse are blanked in
//     what tree-sitter reads (cmask.go); chunks keep them.
type cHandler struct {
	cpp     bool
	inited  bool
	header  bool                  // a header file: its macros are visible to includers
	records map[uintptr]*def      // struct/class/union node id -> its def (members find their owner)
	access  map[uintptr][]cAccess // class body node id -> its access specifiers
	decls   []*def                // declarations, dropped in finish when the file defines them
	defined map[string]*def       // definitions with a body, by qualified name
	spaces  map[string]bool       // namespace names seen (void ns::f() {} is not a method)
	types   cTypes                // C++ qualifier types (ctypes.go)
}

type cAccess struct {
	off    int
	public bool
}

func (h *cHandler) init(x *extractor) {
	if h.inited {
		return
	}
	h.inited = true
	switch strings.ToLower(path.Ext(x.path)) {
	case ".h", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp":
		h.header = true
	}
	h.records, h.access = map[uintptr]*def{}, map[uintptr][]cAccess{}
	h.defined, h.spaces = map[string]*def{}, map[string]bool{}
}

func (h *cHandler) commentMarker() string { return "//" }

func (h *cHandler) headerNode(x *extractor, n *sitter.Node) bool {
	switch x.kind(n) {
	case "preproc_include", "preproc_call", "using_declaration", "namespace_alias_definition":
		return true
	case "preproc_def":
		return x.isGuardDefine(n, n.Parent())
	}
	return false
}

func (h *cHandler) handle(x *extractor, m *match) {
	h.init(x)
	if x.top == nil {
		// Error recovery re-parses from a line inside the statement holding a
		// syntax error: with the file's statements opened up, that is a
		// function or class, not the namespace or include guard around it.
		x.top = h.flatTop(x, true)
	}
	n := &m.node
	if strings.HasPrefix(m.tag, "local.") {
		h.types.binding(x, m)
		return
	}
	switch m.tag {
	case "import":
		h.include(x, n, m.name)
	case "definition.function":
		h.function(x, n)
	case "definition.decl":
		h.declaration(x, n)
	case "definition.member":
		h.member(x, n)
	case "definition.struct", "definition.union", "definition.class":
		h.record(x, n, KindStruct)
	case "definition.enum":
		h.record(x, n, KindEnum)
	case "definition.typedef":
		h.typedef(x, n)
	case "definition.macro":
		h.macro(x, n, m.name)
	case "definition.namespace":
		h.namespace(x, n)
	case "definition.alias":
		h.alias(x, n, m.name)
	case "reference.call":
		h.call(x, m)
	case "reference.scoped":
		h.scopedCall(x, m.callee)
	case "reference.new":
		h.newCall(x, m.name)
	case "reference.inherits":
		h.bases(x, n)
	}
}

// include records #include "x.h" as x.h and #include <x.h> as <x.h>.
func (h *cHandler) include(x *extractor, n, p *sitter.Node) {
	if p == nil {
		return
	}
	s := strings.TrimSpace(x.text(p))
	if x.kind(p) == "string_literal" {
		s = strings.Trim(s, `"`)
	}
	x.addImport(Import{Path: s, Line: x.lineOf(int(n.StartByte()))}, int(n.StartByte()))
}

func (h *cHandler) finish(x *extractor) {
	h.init(x)
	h.widenOverMasks(x)
	// A declaration of something the file defines is not a chunk of its own:
	// the definition is, and calls in the file resolve to it alone.
	// Its comment (API docs are often on the prototype) documents the definition.
	for _, d := range h.decls {
		if def := h.defined[d.qual]; def != nil && def != d {
			d.dropped = true
			x.covered = append(x.covered, span{d.start, d.end})
			if def.doc == "" {
				def.doc = d.doc
			}
		}
	}
	if h.cpp {
		h.types.resolve(x)
	}
	x.top = h.flatTop(x, false)
}

// widenOverMasks starts a definition at the macros cMaskMacros blanked
// before it (REDIS_STATIC int f(void) {, ATTRIBUTE_X on the line above) and
// attaches the comments above those.
func (h *cHandler) widenOverMasks(x *extractor) {
	if len(x.src) != len(x.s) || string(x.src) == x.s {
		return
	}
	maskedLine := func(l int) bool {
		a, b := x.lineStartByte(l), x.lineEndByte(l)
		return strings.TrimSpace(x.s[a:b]) != "" && len(bytes.TrimSpace(x.src[a:b])) == 0
	}
	for _, d := range x.defs {
		line := x.lineOf(d.start)
		ls := x.lineStartByte(line)
		if len(bytes.TrimSpace(x.src[ls:d.start])) != 0 {
			continue // code of its own before it on the line
		}
		top := line
		for top > 1 && maskedLine(top-1) {
			top--
		}
		if top == line && strings.TrimSpace(x.s[ls:d.start]) == "" {
			continue // nothing was blanked before it
		}
		start, doc := x.attachDocs(x.lineStartByte(top))
		d.start = start
		if d.doc == "" {
			d.doc = doc
		}
	}
}

// flatTop is the file's statements with preprocessor conditionals, extern
// "C" blocks and anonymous namespaces opened up, so that the header and the
// top-level blocks see what is inside them; directives and includes after
// the header (#undef, #pragma, a stray #endif) are left out of blocks. For error
// recovery (spaces) named namespaces are opened too.
func (h *cHandler) flatTop(x *extractor, spaces bool) []sitter.Node {
	out := []sitter.Node{}
	var open func(n *sitter.Node, depth int)
	open = func(n *sitter.Node, depth int) {
		type child struct {
			n     sitter.Node
			field string
		}
		var kids []child
		x.cur.Reset(*n)
		for ok := x.cur.GotoFirstChild(); ok; ok = x.cur.GotoNextSibling() {
			if nd := x.cur.Node(); nd.IsNamed() {
				kids = append(kids, child{*nd, x.cur.FieldName()})
			}
		}
		for i := range kids {
			k := &kids[i]
			if k.field == "name" || k.field == "condition" || k.field == "value" {
				continue
			}
			if depth < 32 && (h.transparent(x, &k.n) || spaces && x.kind(&k.n) == "namespace_definition") {
				open(&k.n, depth+1)
				continue
			}
			out = append(out, k.n)
		}
	}
	open(x.root, 0)
	inHeader := true
	kept := out[:0]
	for i := range out {
		n := &out[i]
		if inHeader && !x.isComment(n) && !h.headerNode(x, n) {
			inHeader = false
		}
		if k := x.kind(n); !inHeader && (k == "preproc_call" || k == "preproc_include") {
			continue // an include is an Import already, not code to search
		}
		kept = append(kept, *n)
	}
	return kept
}

func (h *cHandler) transparent(x *extractor, n *sitter.Node) bool {
	switch x.kind(n) {
	case "preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "preproc_elifdef",
		"linkage_specification", "declaration_list":
		return true
	case "namespace_definition":
		return field(n, "name") == nil
	}
	return false
}

// isGuardDefine reports whether n (a preproc_def) is an include guard: a
// valueless #define of the name the #ifndef around it tests.
func (x *extractor) isGuardDefine(n, parent *sitter.Node) bool {
	if n == nil || parent == nil || field(n, "value") != nil || x.kind(parent) != "preproc_ifdef" {
		return false
	}
	pn, nn := field(parent, "name"), field(n, "name")
	if pn == nil || nn == nil || x.text(pn) != x.text(nn) {
		return false
	}
	head := strings.Join(strings.Fields(x.s[parent.StartByte():pn.StartByte()]), "")
	return head == "#ifndef"
}

// sniffHeader says a .h file is C++ when its text does (see the package
// comment above); other files keep their language.
func sniffHeader(p string, src []byte) string {
	if strings.ToLower(path.Ext(p)) == ".h" && sniffCPlusPlus(src) {
		return "cpp"
	}
	return ""
}
