package parse

import sitter "github.com/tree-sitter/go-tree-sitter"

// JavaScript and TypeScript imports: import/export ... from, require(), import().

// isRequire reports whether v is require('x'), require('x').y or await import('x').
func isRequire(x *extractor, v *sitter.Node) bool {
	for v != nil {
		switch x.kind(v) {
		case "call_expression":
			fn := field(v, "function")
			if fn == nil {
				return false
			}
			if k := x.kind(fn); k == "import" || (k == "identifier" && x.text(fn) == "require") {
				return true
			}
			v = fn
		case "member_expression":
			v = field(v, "object")
		case "await_expression":
			v = v.NamedChild(0)
		default:
			return false
		}
	}
	return false
}

// requireImport records require('x') or TypeScript's import x = require('x').
func (h *jsHandler) requireImport(x *extractor, m *match) {
	n := &m.node
	imp := Import{Path: stringValue(x, m.key), Line: x.lineOf(int(n.StartByte()))}
	if x.kind(n) == "import_require_clause" {
		for _, ch := range x.named(n) {
			if x.kind(&ch) == "identifier" {
				imp.Alias = x.text(&ch)
				break
			}
		}
	} else {
		h.requireBinding(x, n, &imp)
	}
	x.addImport(imp, int(n.StartByte()))
}

func (h *jsHandler) importStatement(x *extractor, n *sitter.Node) {
	src := field(n, "source")
	if src == nil {
		return
	}
	imp := Import{Path: stringValue(x, src), Line: x.lineOf(int(n.StartByte()))}
	var walk func(c *sitter.Node)
	walk = func(c *sitter.Node) {
		for _, ch := range x.named(c) {
			switch x.kind(&ch) {
			case "import_clause", "named_imports", "export_clause":
				walk(&ch)
			case "identifier":
				if x.kind(c) == "import_clause" {
					imp.Names = append(imp.Names, ImportName{Name: "default", Alias: x.text(&ch)})
				}
			case "namespace_import", "namespace_export":
				for _, id := range x.named(&ch) {
					imp.Alias = x.text(&id)
				}
			case "import_specifier", "export_specifier":
				nm := ImportName{Name: stringValue(x, field(&ch, "name"))}
				if a := field(&ch, "alias"); a != nil {
					nm.Alias = stringValue(x, a)
				}
				imp.Names = append(imp.Names, nm)
			}
		}
	}
	walk(n)
	x.addImport(imp, int(n.StartByte()))
}

// requireBinding fills the names a require() call is bound to:
// const x = require(), const {a, b: c} = require(), const y = require().y.
func (h *jsHandler) requireBinding(x *extractor, call *sitter.Node, imp *Import) {
	n := call
	member := ""
	p := n.Parent()
	if p != nil && x.kind(p) == "member_expression" {
		member = x.text(field(p, "property"))
		n, p = p, p.Parent()
	}
	if p != nil && x.kind(p) == "await_expression" {
		n, p = p, p.Parent()
	}
	if p == nil || x.kind(p) != "variable_declarator" {
		return
	}
	name := field(p, "name")
	switch x.kind(name) {
	case "identifier":
		if member != "" {
			imp.Names = append(imp.Names, ImportName{Name: member, Alias: aliasIfDiff(member, x.text(name))})
		} else {
			imp.Alias = x.text(name)
		}
	case "object_pattern":
		for _, ch := range x.named(name) {
			switch x.kind(&ch) {
			case "shorthand_property_identifier_pattern":
				imp.Names = append(imp.Names, ImportName{Name: x.text(&ch)})
			case "pair_pattern":
				k, v := stringValue(x, field(&ch, "key")), x.text(field(&ch, "value"))
				imp.Names = append(imp.Names, ImportName{Name: k, Alias: aliasIfDiff(k, v)})
			}
		}
	}
}

func aliasIfDiff(name, alias string) string {
	if name == alias {
		return ""
	}
	return alias
}
