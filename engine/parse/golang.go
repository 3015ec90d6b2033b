package parse

import (
	"go/token"
	"strconv"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// goHandler: functions, methods (parented to their receiver type when it is
// in the file), each type spec, and package-level var/const declarations (a
// grouped declaration is one chunk named after its first name).
type goHandler struct {
	pkgDefs []int
	types   goTypes
	// importNames are the package names the file imports, as of importsSeen
	// imports: a selector on one is a package member, not a field.
	importNames map[string]bool
	importsSeen int
	fields      fieldAccesses // field reads and writes (gofields.go)
}

var goBuiltins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true,
	// Conversions to predeclared types look like calls.
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true,
	"float64": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "any": true,
}

func (h *goHandler) commentMarker() string { return "//" }

func (h *goHandler) headerNode(x *extractor, n *sitter.Node) bool {
	k := x.kind(n)
	return k == "package_clause" || k == "import_declaration"
}

func (h *goHandler) handle(x *extractor, m *match) {
	loadGoFields(x.g)
	n := &m.node
	if m.tag == "local.assign" || m.tag == "local.incdec" {
		h.assigned(x, m)
		return
	}
	if strings.HasPrefix(m.tag, "local.") {
		if start := int(n.StartByte()); start >= x.minOff {
			h.types.decls = append(h.types.decls, goDeclNode{m.tag, start, *n})
		}
		return
	}
	switch m.tag {
	case "package":
		x.f.Package = x.text(n)
	case "import":
		h.importSpec(x, n)
	case "definition.function":
		h.function(x, m)
	case "definition.method":
		h.method(x, m)
	case "definition.type":
		h.typeSpec(x, m)
	case "definition.var", "definition.const":
		h.varDecl(x, m)
	case "reference.call":
		h.call(x, m)
	case "reference.field":
		h.access(x, m)
	case "reference.type":
		x.addRef(RefReferences, x.text(m.name), x.qualifierText(m.qualifier), int(m.name.StartByte()))
	case "reference.embed":
		name, q := goTypeName(x, m.name)
		x.addRef(RefInherits, name, q, int(m.name.StartByte()))
	}
}

func (h *goHandler) importSpec(x *extractor, n *sitter.Node) {
	p := field(n, "path")
	if p == nil {
		return
	}
	imp := Import{Path: unquote(x.text(p)), Line: x.lineOf(int(n.StartByte()))}
	if a := field(n, "name"); a != nil {
		imp.Alias = x.text(a)
	}
	x.addImport(imp, int(n.StartByte()))
}

func (h *goHandler) function(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	d := &def{name: name, kind: KindFunction, exported: token.IsExported(name)}
	d.sig = x.signature(int(n.StartByte()), bodyStart(n))
	h.types.addTypeParams(x, n, nil)
	d.result = h.types.resultType(x, n)
	h.types.addFunc(name, d.result)
	if i := x.addDef(d, n, n); i >= 0 {
		h.pkgDefs = append(h.pkgDefs, i)
	}
}

func (h *goHandler) method(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	recv := goReceiverType(x, field(n, "receiver"))
	d := &def{name: name, kind: KindMethod, receiver: recv, owner: recv, exported: token.IsExported(name)}
	d.qual = name
	if recv != "" {
		d.qual = recv + "." + name
	}
	d.sig = x.signature(int(n.StartByte()), bodyStart(n))
	h.types.addTypeParams(x, n, field(n, "receiver"))
	d.result = h.types.resultType(x, n)
	x.addDef(d, n, n)
}

// typeSpec records a type declaration; the specs of a grouped declaration
// tile it: the first one takes the "type (" line and the group's doc comment,
// the last one the closing parenthesis.
func (h *goHandler) typeSpec(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	d := &def{name: name, kind: KindType, exported: token.IsExported(name)}
	outer := n
	decl := n.Parent()
	grouped := decl != nil && countKinds(x, decl, "type_spec", "type_alias") > 1
	if !grouped && decl != nil {
		outer = decl
	}
	t := field(n, "type")
	switch x.kind(t) {
	case "struct_type":
		d.kind = KindStruct
	case "interface_type":
		d.kind = KindInterface
	}
	sig := x.firstLine(n)
	if t != nil && (d.kind == KindStruct || d.kind == KindInterface) {
		sig = x.signature(int(n.StartByte()), strings.IndexByte(x.s[t.StartByte():t.EndByte()], '{')+int(t.StartByte()))
	}
	d.sig = "type " + sig
	h.types.addTypeParams(x, n, nil)
	d.embeds = h.types.addType(x, name, t)
	i := x.addDef(d, n, outer)
	if i < 0 {
		return
	}
	h.pkgDefs = append(h.pkgDefs, i)
	h.structFields(x, d, t)
	if grouped {
		// The specs of a grouped declaration tile it: the first one
		// takes the "type (" line and the group's doc comment, the last
		// one the closing parenthesis.
		specs := x.named(decl)
		first, last := -1, -1
		for k := range specs {
			if kk := x.kind(&specs[k]); kk == "type_spec" || kk == "type_alias" {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
		if first >= 0 && specs[first].Id() == n.Id() {
			start, doc := x.attachDocs(int(decl.StartByte()))
			d.start = start
			if doc != "" && d.doc != "" {
				d.doc = doc + "\n" + d.doc
			} else if doc != "" {
				d.doc = doc
			}
		}
		if last >= 0 && specs[last].Id() == n.Id() {
			d.end = int(decl.EndByte())
		}
		x.covered = append(x.covered, span{int(decl.StartByte()), int(decl.EndByte())})
	}
}

func (h *goHandler) varDecl(x *extractor, m *match) {
	n := &m.node
	kind, kw := KindVar, "var"
	if m.tag == "definition.const" {
		kind, kw = KindConst, "const"
	}
	var names []string
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		for _, ch := range x.named(n) {
			switch x.kind(&ch) {
			case "var_spec", "const_spec":
				h.types.addPkgVar(x, &ch)
				for _, nm := range x.fieldChildren(&ch, "name") {
					names = append(names, x.text(&nm))
				}
			case "var_spec_list", "const_spec_list":
				walk(&ch)
			}
		}
	}
	walk(n)
	if len(names) == 0 {
		return
	}
	d := &def{name: names[0], kind: kind}
	for _, nm := range names {
		d.exported = d.exported || token.IsExported(nm)
	}
	if len(names) > 1 {
		d.aliases = dedupe(names[1:], names[0])
	}
	if rest := strings.TrimSpace(x.text(n)[len(kw):]); strings.HasPrefix(rest, "(") {
		d.sig = kw + " (" + strings.Join(capNames(names, 12), ", ") + ")"
	} else {
		d.sig = x.firstLine(n)
	}
	if i := x.addDef(d, n, n); i >= 0 {
		h.pkgDefs = append(h.pkgDefs, i)
	}
}

func (h *goHandler) call(x *extractor, m *match) {
	name := x.text(m.name)
	q := x.qualifierText(m.qualifier)
	if q == "" && goBuiltins[name] {
		if name == "delete" {
			// delete(s.m, k) writes s.m
			if args := x.named(goField(&m.node, "arguments")); len(args) > 0 {
				h.fields.target(&args[0])
			}
		}
		return
	}
	added := len(x.refs)
	x.addRef(RefCalls, name, q, int(m.name.StartByte()))
	if q != "" {
		h.fields.callee(int(m.name.StartByte()))
	}
	if q != "" && len(x.refs) > added {
		h.types.quals = append(h.types.quals, goQual{off: int(m.name.StartByte()), q: *m.qualifier, text: q})
	}
}

func (h *goHandler) finish(x *extractor) {
	h.fields.settle(x)
	h.types.resolve(x)
	pkg := x.f.Package
	for _, i := range h.pkgDefs {
		d := x.defs[i]
		d.qual = d.name
		if pkg != "" {
			d.qual = pkg + "." + d.name
		}
	}
}

func countKinds(x *extractor, n *sitter.Node, kinds ...string) int {
	c := 0
	for _, ch := range x.named(n) {
		k := x.kind(&ch)
		for _, want := range kinds {
			if k == want {
				c++
			}
		}
	}
	return c
}

// bodyStart returns where n's body begins, or -1.
func bodyStart(n *sitter.Node) int {
	if b := field(n, "body"); b != nil {
		return int(b.StartByte())
	}
	return -1
}

// goReceiverType extracts "Cart" from (c *Cart), (Stack[T]), (s *pkg.Stack[T]).
func goReceiverType(x *extractor, params *sitter.Node) string {
	if params == nil {
		return ""
	}
	for _, p := range x.named(params) {
		if x.kind(&p) != "parameter_declaration" {
			continue
		}
		name, _ := goTypeName(x, field(&p, "type"))
		return name
	}
	return ""
}

// goTypeName returns the type name and package qualifier of a type expression,
// looking through pointers and type arguments.
func goTypeName(x *extractor, t *sitter.Node) (name, qualifier string) {
	for t != nil {
		switch x.kind(t) {
		case "type_identifier", "identifier":
			return x.text(t), ""
		case "qualified_type":
			return x.text(field(t, "name")), x.text(field(t, "package"))
		case "pointer_type", "parenthesized_type", "type_elem", "type_constraint":
			t = t.NamedChild(0)
		case "generic_type":
			t = field(t, "type")
		default:
			return "", ""
		}
	}
	return "", ""
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, "\"'`")
}

// dedupe drops duplicates and the excluded name, keeping order.
func dedupe(names []string, exclude string) []string {
	var out []string
	seen := map[string]bool{exclude: true}
	for _, n := range names {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func capNames(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(append([]string{}, names[:n]...), "…")
}
