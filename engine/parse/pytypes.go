package parse

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Python qualifier types (Ref.QualifierType) and result types:
//
//   - self.m(), cls.m(): the enclosing class; super().m(): qualifier "super",
//     the enclosing class (super(C, self): C);
//   - x.m() where x = C() or mod.C(): "()C", "()mod.C" (any call to a plain
//     or dotted name but a builtin; the indexer reads "()C" of a class as C);
//   - parameters and variables annotated `x: C`, `Optional[C]`, `C | None`,
//     `"C"`: "C"; `except E as e`: "E";
//   - self.db.q() where __init__ assigns self.db (or the class body annotates
//     `db: DB`): that attribute's type;
//   - a def's ResultType from its return annotation.
//
// Containers (list[C], Dict[K, C]), unions of two types and builtins give no
// type; nor do untyped parameters, loop variables and `with ... as` targets,
// which still shadow.

// pyNoType are annotation heads that name no class of the repository, or a
// container rather than the type it holds.
var pyNoType = map[string]bool{
	"None": true, "Any": true, "List": true, "Dict": true, "Set": true, "FrozenSet": true,
	"Tuple": true, "Sequence": true, "Mapping": true, "MutableMapping": true, "MutableSequence": true,
	"Iterable": true, "Iterator": true, "Generator": true, "AsyncIterator": true, "AsyncIterable": true,
	"AsyncGenerator": true, "Callable": true, "Type": true, "Awaitable": true, "Coroutine": true,
	"Collection": true, "Deque": true, "DefaultDict": true, "OrderedDict": true, "Counter": true,
	"ChainMap": true, "Literal": true, "TypeGuard": true, "complex": true, "NoReturn": true, "Never": true,
}

// pyWrapper are annotation heads whose first argument is the type.
var pyWrapper = map[string]bool{
	"Optional": true, "Final": true, "ClassVar": true, "Annotated": true, "Required": true,
	"NotRequired": true, "ReadOnly": true,
}

// pyBlocks end the range of a binding inside them.
var pyBlocks = map[string]bool{
	"block": true, "module": true, "function_definition": true, "class_definition": true, "lambda": true,
	"list_comprehension": true, "set_comprehension": true, "dictionary_comprehension": true,
	"generator_expression": true,
}

// How a Python binding's type is inferred from its node (tbind.how).
const (
	pyHowAssign uint8 = iota + 1 // an assignment or named expression
	pyHowExcept                  // the target of `except E as e`
)

// typeMatch handles the scope.* and bind.* captures of python.scm.
func (h *pyHandler) typeMatch(x *extractor, m *match) {
	t := &h.types
	n := &m.node
	switch m.tag {
	case "scope.fn":
		t.addScope(n, scopeFn, "")
	case "bind.assign":
		h.bindAssign(x, m)
		h.fl.targets(x, m.name, n)
	case "bind.untyped":
		h.bindTargets(x, m.name, int(m.name.EndByte()))
	case "bind.except":
		t.addBind(tbind{name: x.text(m.name), at: int(n.StartByte()), off: int(m.name.EndByte()), assign: true, how: pyHowExcept, node: *m.name})
	}
}

// bindAssign records `x = v`, `x: T = v`, `x := v` and self.attr = v; their
// types are inferred when asked for (infer).
func (h *pyHandler) bindAssign(x *extractor, m *match) {
	t := &h.types
	n, left := &m.node, m.name
	switch x.kind(left) {
	case "identifier":
		t.addBind(tbind{name: x.text(left), at: int(n.StartByte()), off: int(n.EndByte()), assign: true, how: pyHowAssign, node: *n})
	case "attribute":
		if q := x.text(left); strings.HasPrefix(q, "self.") && plainIdent(q[len("self."):]) {
			t.addAttr(tattr{name: q[len("self."):], at: int(n.StartByte()), ctor: true, how: pyHowAssign, node: *n})
		}
	default:
		h.bindTargets(x, left, int(n.EndByte()))
	}
}

// infer implements langTypes: an assignment's type is its annotation's, or
// "()F" for a call of F; ref names the variable assigned (self.db = db).
func (h *pyHandler) infer(x *extractor, n *sitter.Node, how uint8) (typ, ref string, annotated bool) {
	if how == pyHowExcept {
		if as := n.Parent(); as != nil {
			return pyTypeExpr(x, as.NamedChild(0), tyExpr{}, 0), "", true
		}
		return "", "", false
	}
	if x.kind(n) == "named_expression" {
		return pyValueType(x, field(n, "value")), "", false
	}
	if ann := field(n, "type"); ann != nil {
		return pyAnnType(x, ann, ""), "", true
	}
	right := field(n, "right")
	if x.kind(right) == "identifier" {
		return "", x.text(right), false
	}
	return pyValueType(x, right), "", false
}

// params implements langTypes for defs and lambdas.
func (h *pyHandler) params(x *extractor, n *sitter.Node) {
	if k := x.kind(n); k == "function_definition" || k == "lambda" {
		h.bindParams(x, field(n, "parameters"))
	}
}

// bindTargets records the names a target pattern binds, untyped.
func (h *pyHandler) bindTargets(x *extractor, n *sitter.Node, off int) {
	if n == nil {
		return
	}
	switch x.kind(n) {
	case "identifier":
		h.types.addBind(tbind{name: x.text(n), at: int(n.StartByte()), off: off, assign: true, node: *n})
	case "pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "as_pattern_target",
		"parenthesized_expression", "tuple", "list", "expression_list":
		for _, ch := range x.named(n) {
			h.bindTargets(x, &ch, off)
		}
	}
}

// bindParams records a def's or lambda's parameters; self and cls are the
// class's business (thisClass).
func (h *pyHandler) bindParams(x *extractor, n *sitter.Node) {
	if n == nil {
		return
	}
	for i, p := range x.named(n) {
		var name, ann *sitter.Node
		switch x.kind(&p) {
		case "identifier":
			if i == 0 && (x.text(&p) == "self" || x.text(&p) == "cls") {
				continue
			}
			name = &p
		case "typed_parameter":
			name, ann = p.NamedChild(0), field(&p, "type")
			if k := x.kind(name); k == "list_splat_pattern" || k == "dictionary_splat_pattern" {
				name, ann = name.NamedChild(0), nil // *args: T is a tuple of T
			}
		case "default_parameter", "typed_default_parameter":
			name, ann = field(&p, "name"), field(&p, "type")
		case "list_splat_pattern", "dictionary_splat_pattern":
			name = p.NamedChild(0)
		default:
			continue
		}
		if x.kind(name) != "identifier" {
			continue
		}
		b := tbind{name: x.text(name), at: int(p.StartByte()), off: int(p.EndByte()), assign: true, fnScoped: true}
		if ann != nil {
			b.typ, b.annotated = pyAnnType(x, ann, ""), true
		}
		h.types.addBind(b)
	}
}

// pyValueType is the type of an assigned value: "()F" for a call of F.
func pyValueType(x *extractor, v *sitter.Node) string {
	for v != nil && x.kind(v) == "assignment" { // a = b = C()
		v = field(v, "right")
	}
	if v == nil || x.kind(v) != "call" {
		return ""
	}
	fn := x.text(field(v, "function"))
	if !dottedName(fn) || pyBuiltins[fn] {
		return ""
	}
	switch head, _, _ := strings.Cut(fn, "."); head {
	case "self", "cls", "super":
		return ""
	}
	return "()" + fn
}

// dottedName reports whether s is a name or a dotted name (a.b.C).
func dottedName(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) && !(s[i] == '.' && s[i-1] != '.') {
			return false
		}
	}
	return true
}

// plainIdent reports whether s is one identifier.
func plainIdent(s string) bool {
	return s != "" && !strings.Contains(s, ".") && dottedName(s)
}

// pyAnnType is the class an annotation names (a `type` node), or "". self
// is what `Self` means there ("" outside a class).
func pyAnnType(x *extractor, ann *sitter.Node, self string) string {
	return pyAnn(x, ann, tyExpr{self: self})
}

// pyDeclAnnType is the type an annotation declares: pyAnnType's, but a
// builtin or container (int, list[C]) is a type too.
func pyDeclAnnType(x *extractor, ann *sitter.Node, self string) string {
	return pyAnn(x, ann, tyExpr{self: self, builtins: true})
}

// tyExpr says how pyTypeExpr reads an annotation.
type tyExpr struct {
	self     string // what Self means
	builtins bool   // builtins and typing containers are types
}

func pyAnn(x *extractor, ann *sitter.Node, how tyExpr) string {
	if ann == nil {
		return ""
	}
	if x.kind(ann) == "type" {
		ann = ann.NamedChild(0)
	}
	return pyTypeExpr(x, ann, how, 0)
}

func pyTypeExpr(x *extractor, n *sitter.Node, how tyExpr, depth int) string {
	if n == nil || depth > 8 {
		return ""
	}
	switch x.kind(n) {
	case "type", "parenthesized_expression":
		return pyTypeExpr(x, n.NamedChild(0), how, depth+1)
	case "identifier", "attribute":
		return pyTypeName(x.text(n), how)
	case "string":
		s := strings.TrimSpace(x.stringContent(n))
		if !dottedName(s) {
			return "" // a forward reference more complex than a (dotted) name
		}
		return pyTypeName(s, how)
	case "binary_operator":
		var members []*sitter.Node
		pyUnion(x, n, &members, 0)
		if len(members) != 1 {
			return ""
		}
		return pyTypeExpr(x, members[0], how, depth+1)
	case "generic_type", "subscript":
		head, args := n.NamedChild(0), []sitter.Node(nil)
		if x.kind(n) == "subscript" {
			head = field(n, "value")
			args = x.fieldChildren(n, "subscript")
		} else if tp := n.NamedChild(1); tp != nil {
			args = x.named(tp)
		}
		h := x.text(head)
		if i := strings.LastIndexByte(h, '.'); i >= 0 {
			h = h[i+1:] // typing.Optional
		}
		switch {
		case pyWrapper[h]:
			if len(args) == 0 {
				return ""
			}
			return pyTypeExpr(x, &args[0], how, depth+1)
		case h == "Union":
			var one *sitter.Node
			for i := range args {
				if a := &args[i]; !pyIsNone(x, a) {
					if one != nil {
						return ""
					}
					one = a
				}
			}
			return pyTypeExpr(x, one, how, depth+1)
		}
		return pyTypeName(x.text(head), how) // C[T] is a C
	}
	return ""
}

// pyTypeName filters a (dotted) type name: builtins and typing containers
// name no class of the repository (unless how.builtins).
func pyTypeName(s string, how tyExpr) string {
	last := s[strings.LastIndexByte(s, '.')+1:]
	switch {
	case last == "Self":
		return how.self
	case how.builtins:
		if last == "None" || pyWrapper[last] { // x: Final = 3
			return ""
		}
	case pyNoType[last] || (last == s && pyBuiltins[s]):
		return ""
	}
	return s
}

// pyUnion collects the members of A | B | None other than None.
func pyUnion(x *extractor, n *sitter.Node, out *[]*sitter.Node, depth int) {
	if depth > 16 {
		*out = append(*out, nil, nil) // too many to be one type
		return
	}
	if x.kind(n) == "binary_operator" && x.text(field(n, "operator")) == "|" {
		pyUnion(x, field(n, "left"), out, depth+1)
		pyUnion(x, field(n, "right"), out, depth+1)
		return
	}
	if !pyIsNone(x, n) {
		*out = append(*out, n)
	}
}

func pyIsNone(x *extractor, n *sitter.Node) bool {
	if x.kind(n) == "type" {
		n = n.NamedChild(0)
	}
	return x.kind(n) == "none"
}

// pyQualType is the pending qualifier type of a call through q (the
// qualifier's text), and the qualifier to record: super() becomes "super".
func pyQualType(q string) (qual, typ string) {
	switch {
	case q == "self" || q == "cls":
		return q, pendThis
	case strings.HasPrefix(q, "super("):
		// super(C, self) names the class; super() is the enclosing one.
		if arg, _, ok := strings.Cut(q[len("super("):], ","); ok && dottedName(strings.TrimSpace(arg)) {
			return "super", strings.TrimSpace(arg)
		}
		return "super", pendThis
	case strings.HasPrefix(q, "self.") && plainIdent(q[len("self."):]):
		return q, pendAttr
	case plainIdent(q):
		return q, pendVar
	}
	return q, ""
}
