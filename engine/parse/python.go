package parse

import (
	"strings"
	"unicode"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// pyHandler: functions, classes, methods (Class.method), nested functions
// (outer.inner, parented to the enclosing function), decorated definitions
// (decorators inside the chunk) and module-level assignments (UPPER_CASE ones
// are "const", others "var"). Doc is the docstring, or the comments above.
// Class fields and field reads and writes: pyfields.go.
type pyHandler struct {
	types typeTable // scopes and bindings for qualifier types (pytypes.go)
	fl    pyFields  // fields and field accesses (pyfields.go)
}

var pyBuiltins = map[string]bool{
	"print": true, "len": true, "isinstance": true, "issubclass": true, "str": true, "int": true,
	"float": true, "bool": true, "list": true, "dict": true, "set": true, "tuple": true,
	"frozenset": true, "range": true, "enumerate": true, "zip": true, "map": true, "filter": true,
	"sorted": true, "reversed": true, "sum": true, "min": true, "max": true, "any": true, "all": true,
	"abs": true, "round": true, "repr": true, "type": true, "super": true, "getattr": true,
	"setattr": true, "hasattr": true, "delattr": true, "iter": true, "next": true, "open": true,
	"format": true, "id": true, "hash": true, "vars": true, "dir": true, "callable": true,
	"bytes": true, "bytearray": true, "object": true, "divmod": true, "pow": true, "chr": true,
	"ord": true, "hex": true, "oct": true, "bin": true, "input": true, "locals": true, "globals": true,
	"staticmethod": true, "classmethod": true, "property": true,
}

func (h *pyHandler) commentMarker() string { return "#" }

func (h *pyHandler) headerNode(x *extractor, n *sitter.Node) bool {
	switch x.kind(n) {
	case "import_statement", "import_from_statement", "future_import_statement":
		return true
	case "expression_statement":
		// The module docstring: a string as the first statement.
		if n.StartByte() > 0 && n.PrevNamedSibling() != nil {
			if p := n.PrevNamedSibling(); !x.isComment(p) {
				return false
			}
		}
		return n.NamedChildCount() == 1 && x.kind(n.NamedChild(0)) == "string"
	}
	return false
}

func (h *pyHandler) handle(x *extractor, m *match) {
	n := &m.node
	h.types.sync(x)
	h.fl.sync(x)
	switch {
	case strings.HasPrefix(m.tag, "scope."), strings.HasPrefix(m.tag, "bind."):
		h.typeMatch(x, m)
		return
	case strings.HasPrefix(m.tag, "access."):
		h.accessMatch(x, m)
		return
	}
	switch m.tag {
	case "definition.function", "definition.class":
		name := x.text(m.name)
		outer := n
		if p := n.Parent(); p != nil && x.kind(p) == "decorated_definition" {
			outer = p
		}
		d := &def{name: name, kind: KindFunction, mode: qualNested}
		if m.tag == "definition.class" {
			d.kind = KindClass
		}
		container := ""
		if p := outer.Parent(); p != nil && x.kind(p) == "block" {
			if gp := p.Parent(); gp != nil {
				container = x.kind(gp)
				if container == "class_definition" && d.kind == KindFunction {
					d.kind = KindMethod
					d.receiver = x.text(field(gp, "name"))
				}
			}
		}
		switch container {
		case "", "module":
			d.exported = !strings.HasPrefix(name, "_")
		case "class_definition":
			d.exported = !strings.HasPrefix(name, "_") || (strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__"))
		}
		d.sig = x.signature(int(n.StartByte()), bodyStart(n))
		d.doc = pyDocstring(x, field(n, "body"))
		if d.kind == KindClass {
			h.types.addScope(n, scopeClass, name)
		} else {
			h.types.addScope(n, scopeFn, name)
			d.result = pyAnnType(x, field(n, "return_type"), d.receiver)
		}
		if x.addDef(d, n, outer) >= 0 && d.kind == KindClass {
			h.fl.addClass(n, d)
		}
	case "definition.var":
		name := x.text(m.name)
		d := &def{name: name, kind: KindVar, exported: !strings.HasPrefix(name, "_")}
		if isUpperConst(name) {
			d.kind = KindConst
		}
		d.sig = x.firstLine(n)
		x.addDef(d, n, n)
	case "reference.call":
		name := x.text(m.name)
		q := x.qualifierText(m.qualifier)
		if q == "" && pyBuiltins[name] {
			return
		}
		q, typ := pyQualType(q)
		x.addTypedRef(RefCalls, name, q, typ, int(m.name.StartByte()))
		if m.qualifier != nil {
			h.fl.noAccess(m.name) // a method call, not a read
		}
	case "reference.inherits":
		name := x.text(m.name)
		if name == "object" || name == "" {
			return
		}
		x.addRef(RefInherits, name, x.qualifierText(m.qualifier), int(m.name.StartByte()))
		if m.qualifier != nil {
			h.fl.noAccess(m.name)
		}
	case "import":
		h.imports(x, n)
	}
}

func (h *pyHandler) imports(x *extractor, n *sitter.Node) {
	line := x.lineOf(int(n.StartByte()))
	add := func(imp Import) {
		imp.Line = line
		x.addImport(imp, int(n.StartByte()))
	}
	names := func() []ImportName {
		var out []ImportName
		for _, ch := range x.fieldChildren(n, "name") {
			switch x.kind(&ch) {
			case "aliased_import":
				out = append(out, ImportName{Name: x.text(field(&ch, "name")), Alias: x.text(field(&ch, "alias"))})
			default:
				out = append(out, ImportName{Name: x.text(&ch)})
			}
		}
		for _, ch := range x.named(n) {
			if x.kind(&ch) == "wildcard_import" {
				out = append(out, ImportName{Name: "*"})
			}
		}
		return out
	}
	switch x.kind(n) {
	case "import_statement":
		for _, nm := range names() {
			add(Import{Path: nm.Name, Alias: nm.Alias})
		}
	case "import_from_statement":
		mod := field(n, "module_name")
		if mod == nil {
			return
		}
		add(Import{Path: strings.Join(strings.Fields(x.text(mod)), ""), Names: names()})
	case "future_import_statement":
		add(Import{Path: "__future__", Names: names()})
	}
}

func (h *pyHandler) finish(x *extractor) {
	h.types.py, h.types.ctor, h.types.blocks, h.types.lang = true, "__init__", pyBlocks, h
	h.fl.settleAccesses(x)
	h.types.resolve(x)
	h.addFields(x)
}

// pyDocstring returns the cleaned docstring at the start of body, or "".
func pyDocstring(x *extractor, body *sitter.Node) string {
	if body == nil || body.NamedChildCount() == 0 {
		return ""
	}
	first := body.NamedChild(0)
	for first != nil && x.isComment(first) {
		first = first.NextNamedSibling()
	}
	if first == nil || x.kind(first) != "expression_statement" || first.NamedChildCount() != 1 {
		return ""
	}
	str := first.NamedChild(0)
	if x.kind(str) != "string" {
		return ""
	}
	return cleanDocstring(x.stringContent(str))
}

// stringContent returns the text of a Python string literal without quotes.
func (x *extractor) stringContent(str *sitter.Node) string {
	var b strings.Builder
	for _, ch := range x.named(str) {
		if k := x.kind(&ch); k == "string_content" || k == "escape_sequence" {
			b.WriteString(x.text(&ch))
		}
	}
	return b.String()
}

// cleanDocstring trims a docstring and removes its common indentation.
func cleanDocstring(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i := 1; i < len(lines); i++ {
		if indent > 0 && len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		} else {
			lines[i] = strings.TrimLeft(lines[i], " \t")
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func isUpperConst(name string) bool {
	hasLetter := false
	for _, r := range name {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			hasLetter = true
		}
	}
	return hasLetter
}

// pythonModule derives a dotted module path from a file path: "src/" and the
// extension are dropped, "__init__" names its package.
func pythonModule(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	p = strings.TrimPrefix(p, "./")
	p = strings.TrimPrefix(p, "src/")
	for _, ext := range []string{".pyi", ".pyw", ".py"} {
		if strings.HasSuffix(p, ext) {
			p = strings.TrimSuffix(p, ext)
			break
		}
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, "__init__"), "/")
	return strings.Trim(strings.ReplaceAll(p, "/", "."), ".")
}
