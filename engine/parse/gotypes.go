package parse

import (
	"strings"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Go qualifier types (Ref.QualifierType): what the file says cheaply about
// the type of a call's qualifier. Declarations come from a small second
// query; each name's declarations are visible from the end of the
// declaration to the end of its enclosing block, and the latest visible one
// wins, which is Go's lexical scoping without a full walk. Anything the
// rules do not cover gets no type: a wrong type is worse than none.

// goFields caches field ids: ChildByFieldName allocates a C string per call.
var goFields struct {
	once sync.Once
	ids  map[string]uint16
}

// goField returns n's child by field name (one of those loadGoFields knows).
func goField(n *sitter.Node, name string) *sitter.Node {
	if n == nil {
		return nil
	}
	if id, ok := goFields.ids[name]; ok {
		return n.ChildByFieldId(id)
	}
	return n.ChildByFieldName(name)
}

func loadGoFields(g *grammar) {
	goFields.once.Do(func() {
		goFields.ids = map[string]uint16{}
		for _, f := range []string{"name", "type", "value", "left", "right", "alias", "operand",
			"field", "function", "arguments", "operator", "result", "type_parameters", "type_arguments",
			"package", "receiver", "parameters", "element", "key"} {
			goFields.ids[f] = g.ts.FieldIdForName(f)
		}
	})
}

// goVar is one declared name. Its type is worked out on first use.
type goVar struct {
	start, end int          // visible in [start, end)
	typ        *sitter.Node // the declared type, or nil
	val        *sitter.Node // the initial value, or nil
	elemOf     *sitter.Node // a range expression whose element (or map value) this is, or nil
	untyped    bool         // neither says anything (range, variadic, second of a tuple)
	done, busy bool
	res        string
}

// goDeclNode is a declaration the query found ("local.short", ...).
type goDeclNode struct {
	tag   string
	start int
	n     sitter.Node
}

// goQual is a call whose qualifier may have a type.
type goQual struct {
	off  int // the call name's offset, as in rawRef.off
	q    sitter.Node
	text string // rawRef.qualifier
}

// goSpan is a top-level declaration's range and its type parameters.
type goSpan struct {
	start, end int
	names      []string
}

// goTypes is the per-file state of the qualifier typing.
type goTypes struct {
	quals   []goQual
	decls   []goDeclNode
	structs map[string]sitter.Node            // struct name -> struct_type
	fields  map[string]map[string]string      // struct name -> field -> type, filled on demand
	fieldTy map[string]map[string]sitter.Node // struct name -> field -> type expression
	results map[string]string                 // top-level function -> ResultType
	types   map[string]bool                   // type names declared in the file
	tparams []goSpan
	vars    map[string][]*goVar
	pkgVars map[string]*goVar
	imports map[string]bool
}

// goPredeclared are the predeclared types: nothing to resolve methods on.
var goPredeclared = map[string]bool{
	"bool": true, "byte": true, "complex64": true, "complex128": true, "error": true, "float32": true,
	"float64": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true, "rune": true,
	"string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "any": true, "comparable": true,
}

// namedType renders a type expression as a type name ("B", "pkg.B"),
// looking through pointers, parentheses and type arguments; "" for
// predeclared, unnamed and type-parameter types.
func (t *goTypes) namedType(x *extractor, n *sitter.Node) string {
	for n != nil {
		switch x.kind(n) {
		case "type_identifier", "identifier":
			name := x.text(n)
			if goPredeclared[name] || t.isTypeParam(name, int(n.StartByte())) {
				return ""
			}
			return name
		case "qualified_type":
			return x.text(goField(n, "package")) + "." + x.text(goField(n, "name"))
		case "pointer_type", "parenthesized_type", "type_elem":
			n = n.NamedChild(0)
		case "generic_type":
			n = goField(n, "type")
		default:
			return ""
		}
	}
	return ""
}

func (t *goTypes) isTypeParam(name string, off int) bool {
	for _, s := range t.tparams {
		if s.start <= off && off < s.end {
			for _, n := range s.names {
				if n == name {
					return true
				}
			}
		}
	}
	return false
}

// addTypeParams records the type parameters declared on a top-level
// declaration n: [T any] on a function or type, Stack[T] on a receiver.
func (t *goTypes) addTypeParams(x *extractor, n *sitter.Node, recv *sitter.Node) {
	var names []string
	if tp := goField(n, "type_parameters"); tp != nil {
		for _, d := range x.named(tp) {
			for _, nm := range x.fieldChildren(&d, "name") {
				names = append(names, x.text(&nm))
			}
		}
	}
	if recv != nil {
		for _, p := range x.named(recv) {
			ty := goField(&p, "type")
			for ty != nil && x.kind(ty) == "pointer_type" {
				ty = ty.NamedChild(0)
			}
			if ty == nil || x.kind(ty) != "generic_type" {
				continue
			}
			for _, a := range x.named(goField(ty, "type_arguments")) {
				names = append(names, x.text(&a))
			}
		}
	}
	if len(names) > 0 {
		t.tparams = append(t.tparams, goSpan{int(n.StartByte()), int(n.EndByte()), names})
	}
}

// addFunc records a top-level function's result type, for field chains
// through a call (NewS().db).
func (t *goTypes) addFunc(name, result string) {
	if result == "" {
		return
	}
	if t.results == nil {
		t.results = map[string]string{}
	}
	t.results[name] = result
}

// resultType is Symbol.ResultType of a function or method declaration.
func (t *goTypes) resultType(x *extractor, fn *sitter.Node) string {
	r := goField(fn, "result")
	if r != nil && x.kind(r) == "parameter_list" {
		r = r.NamedChild(0)
		if r == nil || x.kind(r) != "parameter_declaration" {
			return ""
		}
		r = goField(r, "type")
	}
	return t.namedType(x, r)
}

// addType records a type declaration: its name, and for a struct its node
// (for field chains); it returns the embedded types (Symbol.Embeds).
func (t *goTypes) addType(x *extractor, name string, ty *sitter.Node) []string {
	if t.types == nil {
		t.types = map[string]bool{}
	}
	t.types[name] = true
	var embeds []string
	switch x.kind(ty) {
	case "struct_type":
		if t.structs == nil {
			t.structs = map[string]sitter.Node{}
		}
		t.structs[name] = *ty
		for _, fl := range x.named(ty) {
			for _, fd := range x.named(&fl) {
				if x.kind(&fd) == "field_declaration" && goField(&fd, "name") == nil {
					embeds = appendName(embeds, t.namedType(x, goField(&fd, "type")))
				}
			}
		}
	case "interface_type":
		for _, el := range x.named(ty) {
			if x.kind(&el) == "type_elem" && el.NamedChildCount() == 1 {
				embeds = appendName(embeds, t.namedType(x, el.NamedChild(0)))
			}
		}
	}
	return embeds
}

func appendName(names []string, n string) []string {
	if n == "" {
		return names
	}
	return append(names, n)
}

// structField returns the type of field f of the struct named s in this
// file ("" when s is not such a struct or has no such field). Embedded
// fields are named after their type; promoted fields are not looked up.
func (t *goTypes) structField(x *extractor, s, f string) string {
	if strings.HasPrefix(s, "()") {
		s = t.results[s[2:]] // a call of a function in this file
	}
	st, ok := t.structs[s]
	if !ok {
		return ""
	}
	fields, ok := t.fields[s]
	if !ok {
		fields = map[string]string{}
		for _, fl := range x.named(&st) {
			for _, fd := range x.named(&fl) {
				if x.kind(&fd) != "field_declaration" {
					continue
				}
				tn := goField(&fd, "type")
				ty := t.namedType(x, tn)
				names := x.fieldChildren(&fd, "name")
				if len(names) == 0 && ty != "" {
					fields[ty[strings.LastIndexByte(ty, '.')+1:]] = ty
				}
				for _, nm := range names {
					fields[x.text(&nm)] = ty
					if tn != nil {
						if t.fieldTy == nil {
							t.fieldTy = map[string]map[string]sitter.Node{}
						}
						if t.fieldTy[s] == nil {
							t.fieldTy[s] = map[string]sitter.Node{}
						}
						t.fieldTy[s][x.text(&nm)] = *tn
					}
				}
			}
		}
		if t.fields == nil {
			t.fields = map[string]map[string]string{}
		}
		t.fields[s] = fields
	}
	return fields[f]
}

// elemTypeOf is the element type of a slice or array type expression, or the
// value type of a map's: what ranging over it gives ("" otherwise).
func (t *goTypes) elemTypeOf(x *extractor, ty *sitter.Node) string {
	switch x.kind(ty) {
	case "slice_type", "array_type":
		return t.namedType(x, goField(ty, "element"))
	case "map_type":
		return t.namedType(x, goField(ty, "value"))
	}
	return ""
}

// fieldTypeName is Field.Type: the named type, or for a slice, array or map
// field "[]" and its element (value) type, so that ranging over the field of a
// struct declared in another file can be typed by the indexer ("T#f[]").
func (t *goTypes) fieldTypeName(x *extractor, ty *sitter.Node) string {
	if e := t.elemTypeOf(x, ty); e != "" {
		return "[]" + e
	}
	return t.namedType(x, ty)
}

// resolve sets QualifierType on the calls and field accesses recorded in t.quals.
func (t *goTypes) resolve(x *extractor) {
	if len(t.quals) == 0 {
		return
	}
	t.imports = map[string]bool{}
	for _, imp := range x.f.Imports {
		t.imports[goImportName(imp)] = true
	}
	t.collect(x)
	got := map[int]string{}
	for i := range t.quals {
		if ty := t.exprType(x, &t.quals[i].q, 0); ty != "" {
			got[t.quals[i].off] = ty
		}
	}
	if len(got) == 0 {
		return
	}
	for i := range x.refs {
		r := &x.refs[i]
		if (r.kind == RefCalls || r.kind == RefReads || r.kind == RefWrites) && r.qualifier != "" {
			if ty, ok := got[r.off]; ok {
				r.qualType = ty
			}
		}
	}
}

// goImportName is the name an import binds: its alias, or a guess from the
// path ("yaml" for gopkg.in/yaml.v3, "chi" for github.com/go-chi/chi/v5).
func goImportName(imp Import) string {
	if imp.Alias != "" {
		return imp.Alias
	}
	p := strings.Split(imp.Path, "/")
	last := p[len(p)-1]
	if len(p) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = p[len(p)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(strings.TrimSuffix(last, "-go"), "go-")
	return strings.ReplaceAll(last, "-", "")
}
