package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// C and C++ names: what a declarator declares, a name's scope written into it
// (Foo::bar), and the scopes around a definition.

// cScope is where a definition stands.
type cScope struct {
	anc   []sitter.Node // ancestors, root first
	chain []string      // enclosing named namespaces and classes, outermost first
	class *sitter.Node  // the innermost enclosing class, struct or union, or nil
	local bool          // inside a function body, a parameter list or an expression
	anon  bool          // inside an anonymous namespace
}

// ancestors returns n's ancestors, root first. Node.Parent descends from the
// root on every call; one descent serves the whole chain.
func (x *extractor) ancestors(n *sitter.Node) []sitter.Node {
	var out []sitter.Node
	cur := x.root
	for depth := 0; cur != nil && depth < 512; depth++ {
		if cur.Id() == n.Id() {
			return out
		}
		out = append(out, *cur)
		next := cur.ChildWithDescendant(n)
		if next == nil || next.Id() == cur.Id() {
			break
		}
		cur = next
	}
	return out
}

// scopeOf works out n's scope from its ancestors.
func (h *cHandler) scopeOf(x *extractor, n *sitter.Node) cScope {
	sc := cScope{anc: x.ancestors(n)}
	for i := range sc.anc {
		p := &sc.anc[i]
		switch x.kind(p) {
		case "compound_statement", "parameter_list", "lambda_expression", "argument_list", "initializer_list",
			"condition_clause", "for_statement", "template_argument_list", "requires_expression", "enumerator_list":
			sc.local = true
		case "function_definition":
			// A function's declarator (a struct in its return type) is not a
			// definition of the file either.
			sc.local = true
		case "class_specifier", "struct_specifier", "union_specifier":
			if name := field(p, "name"); name != nil {
				sc.chain = append(sc.chain, x.cScopeName(name))
				sc.class = p
			}
		case "namespace_definition":
			name := field(p, "name")
			if name == nil {
				sc.anon = true
				continue
			}
			sc.chain = append(sc.chain, strings.Split(x.cScopeName(name), ".")...)
		}
	}
	return sc
}

// parentOf is the node directly above n in sc, or nil.
func (sc *cScope) parent() *sitter.Node {
	if len(sc.anc) == 0 {
		return nil
	}
	return &sc.anc[len(sc.anc)-1]
}

// outer is the node a definition's chunk is cut from: n with the template
// declarations around it, so that template<...> is in the chunk.
func (x *extractor) cOuter(n *sitter.Node, sc *cScope) *sitter.Node {
	outer := n
	for i := len(sc.anc) - 1; i >= 0 && x.kind(&sc.anc[i]) == "template_declaration"; i-- {
		outer = &sc.anc[i]
	}
	return outer
}

// cDeclName follows a declarator down to the name it declares and reports
// whether that is a function: the innermost declarator around the name is a
// function declarator (int f(void), char *f(void), void (*signal(int))(int)),
// not a pointer or an array (int (*fp)(int) is a variable).
func (x *extractor) cDeclName(n *sitter.Node) (name *sitter.Node, isFunc bool) {
	fn := false
	for depth := 0; n != nil && depth < 64; depth++ {
		switch x.kind(n) {
		case "function_declarator":
			fn = true
		case "pointer_declarator", "reference_declarator", "array_declarator":
			fn = false
		case "parenthesized_declarator", "attributed_declarator", "init_declarator":
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier", "destructor_name",
			"operator_name", "template_function", "primitive_type":
			return n, fn
		case "operator_cast":
			return n, true
		default:
			return nil, false
		}
		next := field(n, "declarator")
		if next == nil {
			next = x.firstDeclarator(n)
		}
		n = next
	}
	return nil, false
}

// firstDeclarator is the named child of a declarator that has no declarator
// field (reference_declarator, parenthesized_declarator).
func (x *extractor) firstDeclarator(n *sitter.Node) *sitter.Node {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch x.kind(ch) {
		case "type_qualifier", "attribute_specifier", "attribute_declaration", "ms_call_modifier",
			"ms_based_modifier", "ms_pointer_modifier", "ms_restrict_modifier", "ms_unaligned_ptr_modifier",
			"comment", "virtual_specifier", "noexcept", "throw_specifier", "trailing_return_type":
			continue
		}
		return ch
	}
	return nil
}

// cNameParts splits a declared name into the scope written into it and the
// name: Foo::bar -> [Foo] bar, ns::Foo<int>::~Foo -> [ns Foo] ~Foo.
func (x *extractor) cNameParts(n *sitter.Node) (scope []string, name string) {
	for depth := 0; n != nil && depth < 32; depth++ {
		switch x.kind(n) {
		case "qualified_identifier":
			if s := field(n, "scope"); s != nil {
				scope = append(scope, strings.Split(x.cScopeName(s), ".")...)
			}
			n = field(n, "name")
			continue
		case "destructor_name":
			return scope, "~" + strings.TrimSpace(strings.TrimPrefix(x.text(n), "~"))
		case "operator_name":
			rest := strings.TrimSpace(strings.TrimPrefix(x.text(n), "operator"))
			if rest != "" && isIdentByte(rest[0]) {
				return scope, "operator " + strings.Join(strings.Fields(rest), " ")
			}
			return scope, "operator" + strings.Join(strings.Fields(rest), "")
		case "operator_cast":
			return scope, "operator " + strings.Join(strings.Fields(x.text(field(n, "type"))), " ")
		case "template_function", "template_type", "template_method":
			return scope, x.text(field(n, "name"))
		}
		return scope, x.text(n)
	}
	return scope, ""
}

// cScopeName renders a scope or namespace name with dots: ns::inner -> ns.inner,
// Foo<int> -> Foo.
func (x *extractor) cScopeName(n *sitter.Node) string {
	switch x.kind(n) {
	case "template_type":
		return x.text(field(n, "name"))
	case "nested_namespace_specifier", "qualified_identifier":
		var parts []string
		for _, ch := range x.named(n) {
			if s := x.cScopeName(&ch); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ".")
	case "namespace_identifier", "type_identifier", "identifier":
		return x.text(n)
	}
	return strings.Join(strings.Fields(x.text(n)), "")
}

// cTypeName is the class a type expression names, as the indexer looks it up:
// the last component, without template arguments; a smart pointer or
// optional names its element (std::unique_ptr<Foo> -> Foo). "" for builtin
// and unnamed types.
func (x *extractor) cTypeName(t *sitter.Node) string {
	for depth := 0; t != nil && depth < 16; depth++ {
		switch x.kind(t) {
		case "type_identifier":
			return x.text(t)
		case "qualified_identifier":
			if s := field(t, "scope"); s != nil && x.text(s) == "std" {
				if n := field(t, "name"); n == nil || x.kind(n) != "template_type" || !cWrappers[x.text(field(n, "name"))] {
					return "" // std::string, std::vector<T>: never the repository's
				}
			}
			t = field(t, "name")
		case "type_descriptor":
			t = field(t, "type")
		case "struct_specifier", "class_specifier", "union_specifier", "enum_specifier":
			t = field(t, "name")
		case "template_type":
			name := x.text(field(t, "name"))
			if !cWrappers[name] {
				return name
			}
			args := x.named(field(t, "arguments"))
			if len(args) == 0 {
				return ""
			}
			t = &args[0]
		default:
			return ""
		}
	}
	return ""
}

// cWrappers are the standard templates whose -> or value is their first
// argument.
var cWrappers = map[string]bool{"unique_ptr": true, "shared_ptr": true, "weak_ptr": true, "optional": true,
	"reference_wrapper": true, "scoped_refptr": true, "RefPtr": true, "Ref": true, "QPointer": true,
	"QSharedPointer": true, "QScopedPointer": true}

// cStorage reports the storage classes and qualifiers of a declaration.
func (x *extractor) cStorage(n *sitter.Node) (static, constant bool) {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		ch := n.NamedChild(i)
		switch x.kind(ch) {
		case "storage_class_specifier":
			static = static || strings.TrimSpace(x.text(ch)) == "static"
		case "type_qualifier":
			t := strings.TrimSpace(x.text(ch))
			constant = constant || t == "const" || t == "constexpr" || t == "constinit"
		}
	}
	return static, constant
}

// cPointsToConst reports whether a declarator is a pointer to the const its
// declaration names (const char *p: a variable), not a const pointer (char
// *const p).
func (x *extractor) cPointsToConst(d *sitter.Node) bool {
	if x.kind(d) == "init_declarator" {
		d = field(d, "declarator")
	}
	if x.kind(d) != "pointer_declarator" {
		return false
	}
	for i := uint(0); i < d.NamedChildCount(); i++ {
		if q := d.NamedChild(i); x.kind(q) == "type_qualifier" && strings.TrimSpace(x.text(q)) == "const" {
			return false
		}
	}
	return true
}
