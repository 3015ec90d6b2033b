package parse

import (
	"sort"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// C++ qualifier types (Ref.QualifierType), worked out from offsets after the
// matches: the function a call is in (its class for `this` and members), the
// parameters and locals declared before it in that function, and the members
// of the classes in the file. Scopes inside a function are not modelled: the
// last declaration of the name before the call wins.

type cTypes struct {
	fns     []cFn                        // function and method definitions
	classes map[string]bool              // class, struct and union names defined in the file
	methods map[string]map[string]bool   // class name -> its methods known in the file
	fields  map[string]map[string]string // class name -> member -> type name
	locals  map[string][]cLocal          // name -> its declarations
	quals   []cQual                      // qualified calls to type
}

type cFn struct {
	start, end int
	class      string // receiver of a method, "" for a function
}

type cLocal struct {
	off int
	typ string
}

// qualifier forms a call's type can be worked out from.
const (
	qualThis      = iota // this->m()
	qualName             // p->m(), obj.m()
	qualThisField        // this->p->m()
	qualStatic           // Foo::m()
)

type cQual struct {
	off  int
	form int
	name string
}

func (t *cTypes) addFunc(d *def, start, end int) {
	t.fns = append(t.fns, cFn{start, end, d.receiver})
	if d.kind == KindMethod {
		t.addMember(d)
	}
}

func (t *cTypes) addMember(d *def) {
	if t.methods == nil {
		t.methods = map[string]map[string]bool{}
	}
	if t.methods[d.receiver] == nil {
		t.methods[d.receiver] = map[string]bool{}
	}
	t.methods[d.receiver][d.name] = true
}

func (t *cTypes) addClass(d *def) {
	if d.kind == KindEnum {
		return
	}
	if t.classes == nil {
		t.classes = map[string]bool{}
	}
	t.classes[d.name] = true
}

func (t *cTypes) addField(owner *def, name, typ string) {
	if t.fields == nil {
		t.fields = map[string]map[string]string{}
	}
	if t.fields[owner.name] == nil {
		t.fields[owner.name] = map[string]string{}
	}
	if _, dup := t.fields[owner.name][name]; !dup {
		t.fields[owner.name][name] = typ
	}
}

// qualifier records the qualifier of a call through an object when its type
// may be known: this, a name, this->member.
func (t *cTypes) qualifier(x *extractor, off int, q *sitter.Node) {
	switch x.kind(q) {
	case "this":
		t.quals = append(t.quals, cQual{off, qualThis, ""})
	case "identifier":
		t.quals = append(t.quals, cQual{off, qualName, x.text(q)})
	case "field_expression":
		if a := field(q, "argument"); a != nil && x.kind(a) == "this" {
			if f := field(q, "field"); f != nil && x.kind(f) == "field_identifier" {
				t.quals = append(t.quals, cQual{off, qualThisField, x.text(f)})
			}
		}
	}
}

// static records Foo::m(): typed when Foo is a class of the file.
func (t *cTypes) static(off int, scope string) {
	t.quals = append(t.quals, cQual{off, qualStatic, scope})
}

// binding records a parameter, a local or a range-for variable with its type.
func (t *cTypes) binding(x *extractor, m *match) {
	n := &m.node
	typ := field(n, "type")
	decls := x.fieldChildren(n, "declarator")
	for i := range decls {
		nn, isFunc := x.cDeclName(&decls[i])
		if nn == nil || isFunc || x.kind(nn) != "identifier" {
			continue
		}
		name := x.text(nn)
		tn := x.cTypeName(typ)
		if x.kind(typ) == "placeholder_type_specifier" && m.tag == "local.decl" {
			tn = x.cValueType(field(&decls[i], "value"))
		}
		if t.locals == nil {
			t.locals = map[string][]cLocal{}
		}
		t.locals[name] = append(t.locals[name], cLocal{int(nn.StartByte()), tn})
	}
}

// cValueType is the class an `auto` variable's initialiser gives: new Foo,
// Foo{...}, std::make_unique<Foo>(), or "()F" for the result of calling F.
func (x *extractor) cValueType(v *sitter.Node) string {
	switch x.kind(v) {
	case "new_expression":
		return x.cTypeName(field(v, "type"))
	case "compound_literal_expression":
		return x.cTypeName(field(v, "type"))
	case "call_expression":
		fn := field(v, "function")
		switch x.kind(fn) {
		case "identifier":
			return "()" + x.text(fn)
		case "qualified_identifier", "template_function":
			scope, name := x.cNameParts(fn)
			if (name == "make_unique" || name == "make_shared") && (len(scope) == 0 || scope[0] == "std") {
				tf := fn
				for x.kind(tf) == "qualified_identifier" {
					tf = field(tf, "name")
				}
				if args := x.named(field(tf, "arguments")); len(args) > 0 {
					return x.cTypeName(&args[0])
				}
			}
		}
	}
	return ""
}

// resolve sets the qualifier types of the recorded calls, and makes a bare
// call to a method of the enclosing class a call on this.
func (t *cTypes) resolve(x *extractor) {
	if len(t.fns) == 0 {
		return
	}
	sort.Slice(t.fns, func(i, j int) bool { return t.fns[i].start < t.fns[j].start })
	for _, ls := range t.locals {
		sort.Slice(ls, func(i, j int) bool { return ls[i].off < ls[j].off })
	}
	types := map[int]string{}
	for _, q := range t.quals {
		if typ := t.typeOf(q); typ != "" {
			types[q.off] = typ
		}
	}
	for i := range x.refs {
		r := &x.refs[i]
		if r.kind != RefCalls || r.qualType != "" {
			continue
		}
		if r.qualifier != "" {
			r.qualType = types[r.off]
			continue
		}
		if fn := t.fnAt(r.off); fn != nil && fn.class != "" && t.methods[fn.class][r.name] {
			if _, shadowed := t.localBefore(r.name, fn, r.off); !shadowed {
				r.qualifier, r.qualType = "this", fn.class
			}
		}
	}
}

func (t *cTypes) typeOf(q cQual) string {
	if q.form == qualStatic {
		if t.classes[q.name] {
			return q.name
		}
		return ""
	}
	fn := t.fnAt(q.off)
	if fn == nil {
		return ""
	}
	switch q.form {
	case qualThis:
		return fn.class
	case qualName:
		if typ, ok := t.localBefore(q.name, fn, q.off); ok {
			return typ
		}
	}
	return t.memberType(fn.class, q.name)
}

// memberType is the type of member name of class: declared in the file, or
// "class#name" for the indexer to look up when the class is elsewhere.
func (t *cTypes) memberType(class, name string) string {
	if class == "" {
		return ""
	}
	if t.classes[class] {
		return t.fields[class][name]
	}
	return class + "#" + name
}

// fnAt is the function definition holding off, or nil (definitions do not
// nest: a class in a function is not one of the file's).
func (t *cTypes) fnAt(off int) *cFn {
	i := sort.Search(len(t.fns), func(i int) bool { return t.fns[i].start > off }) - 1
	if i >= 0 && off < t.fns[i].end {
		return &t.fns[i]
	}
	return nil
}

// localBefore is the type of the last declaration of name in fn before off.
func (t *cTypes) localBefore(name string, fn *cFn, off int) (string, bool) {
	ls := t.locals[name]
	i := sort.Search(len(ls), func(i int) bool { return ls[i].off >= off }) - 1
	if i >= 0 && ls[i].off >= fn.start {
		return ls[i].typ, true
	}
	return "", false
}
