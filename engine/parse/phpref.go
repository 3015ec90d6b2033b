package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// PHP calls, route closures and imports.

// phpBuiltins are functions of the PHP runtime called often enough to crowd
// the graph; no repository defines them.
var phpBuiltins = map[string]bool{
	"count": true, "strlen": true, "sprintf": true, "implode": true, "explode": true, "in_array": true,
	"array_key_exists": true, "array_merge": true, "array_map": true, "array_filter": true, "array_keys": true,
	"array_values": true, "is_array": true, "is_string": true, "is_null": true, "is_int": true, "is_object": true,
	"isset": true, "empty": true, "unset": true, "compact": true, "define": true, "defined": true,
	"json_encode": true, "json_decode": true, "var_dump": true, "print_r": true, "trim": true, "str_replace": true,
	"strtolower": true, "strtoupper": true, "substr": true, "strpos": true, "preg_match": true, "preg_replace": true,
	"func_get_args": true, "call_user_func": true, "call_user_func_array": true, "method_exists": true,
	"function_exists": true, "class_exists": true, "get_class": true, "dirname": true, "file_exists": true,
	"array_slice": true, "array_shift": true, "array_pop": true, "array_push": true, "array_unique": true,
	"max": true, "min": true, "abs": true, "intval": true, "strval": true, "is_callable": true,
}

func (h *phpHandler) call(x *extractor, m *match) {
	n := &m.node
	name := x.text(m.name)
	off := int(m.name.StartByte())
	switch x.kind(n) {
	case "function_call_expression":
		name = phpLastSegment(name)
		if !phpBuiltins[strings.ToLower(name)] {
			x.addRef(RefCalls, name, "", off)
		}
	case "scoped_call_expression":
		q, typ := h.scopeQual(x, m.qualifier)
		if routeVerbs[strings.ToLower(name)] && (q == "Route" || strings.HasSuffix(q, "\\Route")) {
			h.route(x, n, name, false)
		}
		x.addTypedRef(RefCalls, name, q, typ, off)
	default: // member calls
		q, typ := h.memberQual(x, m.qualifier)
		if routeVerbs[strings.ToLower(name)] && strings.HasPrefix(q, "$") {
			h.route(x, n, name, true)
		}
		x.addTypedRef(RefCalls, name, q, typ, off)
	}
}

// Pending qualifier types of PHP, beyond pendVar and pendThis (phptypes.go).
const (
	phpPendProp  = "\x00p"  // $this->prop: the property's type
	phpPendClass = "\x00c:" // a class name: its binding (phpHandler.classType)
)

// memberQual is the qualifier recorded for $obj->m(): "this" for $this (the
// resolver's name for the receiver), else the object as written.
func (h *phpHandler) memberQual(x *extractor, obj *sitter.Node) (string, string) {
	switch x.kind(obj) {
	case "variable_name":
		if t := x.text(obj); t == "$this" {
			return "this", pendThis
		} else {
			return t, pendVar
		}
	case "member_access_expression":
		if o := field(obj, "object"); x.kind(o) == "variable_name" && x.text(o) == "$this" && x.kind(field(obj, "name")) == "name" {
			return x.qualifierText(obj), phpPendProp
		}
	}
	return x.qualifierText(obj), ""
}

// scopeQual is the qualifier recorded for C::m(): self and static become
// "self", parent "super" (the resolver's names), a class name stays.
func (h *phpHandler) scopeQual(x *extractor, scope *sitter.Node) (string, string) {
	t := x.qualifierText(scope)
	switch x.kind(scope) {
	case "relative_scope":
		if t == "parent" {
			return "super", pendThis
		}
		return "self", pendThis
	case "name":
		return t, phpPendClass + t
	case "qualified_name":
		return t, phpLastSegment(t)
	}
	return t, ""
}

// routeVerbs are the router methods whose closure argument is a route.
var routeVerbs = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true,
	"options": true, "any": true, "match": true}

// route records Route::get('/x', function () {...}) (and, for member calls,
// $app->get('/x', ...) with a path starting with "/") as a function named
// "GET /x"; a controller action, Route::get('/x', [C::class, 'm']) or 'C@m',
// becomes a call of C.m from the enclosing code.
func (h *phpHandler) route(x *extractor, call *sitter.Node, verb string, member bool) {
	var args []sitter.Node
	for _, a := range x.named(field(call, "arguments")) {
		if x.kind(&a) == "argument" && a.NamedChildCount() > 0 {
			args = append(args, *a.NamedChild(0))
		}
	}
	verbs := strings.ToUpper(verb)
	if verbs == "MATCH" {
		if len(args) == 0 || x.kind(&args[0]) != "array_creation_expression" {
			return
		}
		var vs []string
		for _, el := range x.named(&args[0]) {
			if v := phpStringLit(x, el.NamedChild(0)); v != "" {
				vs = append(vs, strings.ToUpper(v))
			}
		}
		verbs, args = strings.Join(vs, "|"), args[1:]
	}
	if len(args) < 2 || verbs == "" {
		return
	}
	path := phpStringLit(x, &args[0])
	if path == "" || (member && !strings.HasPrefix(path, "/")) {
		return
	}
	action := &args[len(args)-1]
	if k := x.kind(action); k != "anonymous_function" && k != "arrow_function" {
		h.routeAction(x, action)
		return
	}
	name := verbs + " /" + strings.TrimPrefix(path, "/")
	d := &def{name: name, qual: name, kind: KindFunction, exported: true}
	// The chunk is the statement: Route::get(...)->name('x');
	outer := call
	for p := outer.Parent(); p != nil; p = p.Parent() {
		k := x.kind(p)
		if k != "member_call_expression" && k != "expression_statement" {
			break
		}
		outer = p
		if k == "expression_statement" {
			break
		}
	}
	d.sig = x.signature(int(outer.StartByte()), bodyStart(action))
	// The router call is the enclosing code's, not the route's.
	d.refStart, d.refEnd = int(action.StartByte()), int(action.EndByte())
	x.addDef(d, action, outer)
}

// routeAction records the controller method a route names as called.
func (h *phpHandler) routeAction(x *extractor, action *sitter.Node) {
	var class, method string
	switch x.kind(action) {
	case "array_creation_expression":
		els := x.named(action)
		if len(els) != 2 {
			return
		}
		c := els[0].NamedChild(0)
		if x.kind(c) != "class_constant_access_expression" || c.NamedChildCount() != 2 || x.text(c.NamedChild(1)) != "class" {
			return
		}
		class, method = x.text(c.NamedChild(0)), phpStringLit(x, els[1].NamedChild(0))
	default:
		class, method, _ = strings.Cut(phpStringLit(x, action), "@")
	}
	if class == "" || method == "" {
		return
	}
	typ := phpPendClass + class
	if strings.Contains(class, "\\") {
		typ = phpLastSegment(class)
	}
	x.addTypedRef(RefCalls, method, class, typ, int(action.StartByte()))
}

// phpStringLit is the value of a string literal without interpolation, or "".
func phpStringLit(x *extractor, n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch x.kind(n) {
	case "string", "encapsed_string":
		var b strings.Builder
		for _, ch := range x.named(n) {
			switch x.kind(&ch) {
			case "string_content":
				b.WriteString(x.text(&ch))
			case "escape_sequence":
				b.WriteString(strings.TrimPrefix(x.text(&ch), "\\"))
			default:
				return "" // interpolated
			}
		}
		return b.String()
	}
	return ""
}

// useDecl records `use A\B;`, `use A\B as C;`, `use A\{B, C as D};` and the
// function and const forms; only class imports bind a class name.
func (h *phpHandler) useDecl(x *extractor, n *sitter.Node) {
	prefix := ""
	classes := field(n, "type") == nil
	var clauses []sitter.Node
	for _, ch := range x.named(n) {
		switch x.kind(&ch) {
		case "namespace_name":
			prefix = x.text(&ch)
		case "namespace_use_clause":
			clauses = append(clauses, ch)
		case "namespace_use_group":
			for _, c := range x.named(&ch) {
				if x.kind(&c) == "namespace_use_clause" {
					clauses = append(clauses, c)
				}
			}
		}
	}
	for i := range clauses {
		cl := &clauses[i]
		alias := field(cl, "alias")
		var path string
		for _, c := range x.named(cl) {
			if k := x.kind(&c); (k == "name" || k == "qualified_name") && (alias == nil || c.Id() != alias.Id()) {
				path = x.text(&c)
				break
			}
		}
		if prefix != "" {
			path = prefix + "\\" + path
		}
		path = strings.TrimPrefix(path, "\\")
		if path == "" {
			continue
		}
		binding := phpLastSegment(path)
		if alias != nil {
			binding = x.text(alias)
		}
		if classes && field(cl, "type") == nil {
			if h.imports == nil {
				h.imports = map[string]string{}
			}
			h.imports[binding] = path
		}
		x.addImport(Import{Path: path, Alias: binding, Line: x.lineOf(int(cl.StartByte()))}, int(n.StartByte()))
	}
}

// require records require/include of a literal path.
func (h *phpHandler) require(x *extractor, n *sitter.Node) {
	if p := phpLiteralPath(x, n.NamedChild(0)); p != "" {
		x.addImport(Import{Path: p, Line: x.lineOf(int(n.StartByte()))}, int(n.StartByte()))
	}
}

// phpLiteralPath evaluates a path expression made of string literals,
// __DIR__, dirname(__FILE__) and dirname(__DIR__[, levels]) joined with ".";
// "" when any part is not literal.
func phpLiteralPath(x *extractor, n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch x.kind(n) {
	case "parenthesized_expression":
		return phpLiteralPath(x, n.NamedChild(0))
	case "string", "encapsed_string":
		return phpStringLit(x, n)
	case "name":
		if x.text(n) == "__DIR__" {
			return "__DIR__"
		}
	case "binary_expression":
		if x.text(field(n, "operator")) != "." {
			return ""
		}
		l, r := phpLiteralPath(x, field(n, "left")), phpLiteralPath(x, field(n, "right"))
		if l == "" || r == "" {
			return ""
		}
		return l + r
	case "function_call_expression":
		if x.text(field(n, "function")) != "dirname" {
			return ""
		}
		var args []string
		for _, a := range x.named(field(n, "arguments")) {
			args = append(args, x.text(&a))
		}
		switch {
		case len(args) == 1 && args[0] == "__FILE__":
			return "__DIR__"
		case len(args) >= 1 && args[0] == "__DIR__":
			levels := 1
			if len(args) == 2 && len(args[1]) == 1 && args[1][0] >= '1' && args[1][0] <= '9' {
				levels = int(args[1][0] - '0')
			}
			return "__DIR__" + strings.Repeat("/..", levels)
		}
	}
	return ""
}
