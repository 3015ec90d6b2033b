package parse

import (
	"sort"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// Rust calls, macro invocations and imports.

// rustStdMacros are the standard library's macros: never calls of the
// repository's code.
var rustStdMacros = map[string]bool{}

// rustSkipCalls are prelude names that look like calls and are not: enum
// variants of the prelude and drop.
var rustSkipCalls = map[string]bool{"Some": true, "Ok": true, "Err": true, "None": true, "drop": true}

// rustKeywords can precede a parenthesised token tree in macro arguments
// without being a call.
var rustKeywords = map[string]bool{}

func init() {
	for _, m := range strings.Fields(`assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne
		panic todo unimplemented unreachable print println eprint eprintln format format_args write writeln
		vec matches dbg concat stringify include include_str include_bytes env option_env cfg line column file
		module_path compile_error thread_local try`) {
		rustStdMacros[m] = true
	}
	for _, k := range strings.Fields(`as async await break const continue crate dyn else enum extern fn for if impl
		in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while`) {
		rustKeywords[k] = true
	}
}

// rustPathName splits a path (a::b::C, C<T>, a::C<T>) into its last name and
// the dotted path before it, without generic arguments and without a leading
// crate, self or super.
func rustPathName(x *extractor, n *sitter.Node) (name, qualifier string) {
	segs := rustSegments(x, n, nil)
	if len(segs) == 0 {
		return "", ""
	}
	name = segs[len(segs)-1]
	segs = segs[:len(segs)-1]
	for len(segs) > 0 && (segs[0] == "crate" || segs[0] == "self" || segs[0] == "super") {
		segs = segs[1:]
	}
	return name, strings.Join(segs, ".")
}

// rustSegments appends the name segments of path n to out.
func rustSegments(x *extractor, n *sitter.Node, out []string) []string {
	for depth := 0; n != nil && depth < 32; depth++ {
		switch x.kind(n) {
		case "identifier", "type_identifier", "field_identifier", "crate", "self", "super", "primitive_type", "metavariable":
			return append(out, x.text(n))
		case "scoped_identifier", "scoped_type_identifier":
			out = rustSegments(x, field(n, "path"), out)
			n = field(n, "name")
		case "generic_type", "generic_type_with_turbofish":
			n = field(n, "type")
		case "bracketed_type":
			// <T as Trait>::f is T's; <T>::f too.
			c := n.NamedChild(0)
			if c != nil && x.kind(c) == "qualified_type" {
				c = field(c, "type")
			}
			n = c
		default:
			return out
		}
	}
	return out
}

// call records f(), a::f(), x.m() and f::<T>() calls.
func (h *rustHandler) call(x *extractor, m *match) {
	fn := m.callee
	if x.kind(fn) == "generic_function" {
		fn = field(fn, "function")
	}
	switch x.kind(fn) {
	case "identifier":
		name := x.text(fn)
		if !rustSkipCalls[name] {
			x.addRef(RefCalls, name, "", int(fn.StartByte()))
		}
	case "scoped_identifier":
		nm := field(fn, "name")
		name, q := rustPathName(x, fn)
		if name == "" || nm == nil {
			return
		}
		off := int(nm.StartByte())
		x.addRef(RefCalls, name, q, off)
		h.types.qualify(off, field(fn, "path"), true)
	case "field_expression":
		f := field(fn, "field")
		v := field(fn, "value")
		if f == nil || v == nil || x.kind(f) != "field_identifier" {
			return
		}
		off := int(f.StartByte())
		x.addRef(RefCalls, x.text(f), x.qualifierText(v), off)
		h.types.qualify(off, v, false)
		h.fields.callee(off)
	}
}

// macro records m!(...) as a call of m.
func (h *rustHandler) macro(x *extractor, m *match) {
	name, q := rustPathName(x, m.callee)
	if name == "" || (q == "" && rustStdMacros[name]) || strings.HasPrefix(q, "std") || strings.HasPrefix(q, "core") {
		return
	}
	x.addRef(RefCalls, name, q, int(m.callee.StartByte()))
}

// tokenCall records a call written inside macro arguments: a name directly
// followed by a parenthesised token tree (f(x), a.m(x), A::f(x), m!(x)),
// with the names before it joined by . or :: as its qualifier. Attributes
// (#[cfg(any(unix))]) are token trees too, and are skipped.
func (h *rustHandler) tokenCall(x *extractor, m *match) {
	id, tree := m.name, m.value
	if id == nil || tree == nil || !strings.HasPrefix(x.text(tree), "(") {
		return
	}
	name := x.text(id)
	gap := strings.TrimSpace(x.s[id.EndByte():tree.StartByte()])
	if (gap != "" && gap != "!") || rustKeywords[name] || rustSkipCalls[name] || (gap == "!" && rustStdMacros[name]) {
		return
	}
	off := int(id.StartByte())
	if i := sort.Search(len(h.attrs), func(k int) bool { return h.attrs[k].start > off }); i > 0 && off < h.attrs[i-1].end {
		return // #[cfg(any(unix))]
	}
	parts, expr, path := rustTokenQualifier(x, id)
	q := strings.Join(parts, ".")
	if expr != "" {
		q = expr // a.b().m(): the receiver as written
	}
	x.addRef(RefCalls, name, q, off)
	if gap == "" && expr == "" {
		h.types.qualifyTokens(off, parts, path)
	}
}

// rustTokenQualifier walks back from the name id of a call in a token tree
// over its receiver: names joined by . or :: (parts; path when the last
// separator is ::, leading crate/self/super then dropped), or, when the
// receiver has calls or indexing in it (a.b(x)?.m()), its text (expr).
func rustTokenQualifier(x *extractor, id *sitter.Node) (parts []string, expr string, path bool) {
	sep := id.PrevSibling()
	if sep == nil || (x.kind(sep) != "." && x.kind(sep) != "::") {
		return nil, "", false
	}
	path = x.kind(sep) == "::"
	end, start := int(sep.StartByte()), -1
	pure := true
	for p := sep; p != nil && (x.kind(p) == "." || x.kind(p) == "::") && len(parts) < 12; {
		q := p.PrevSibling()
		for q != nil {
			k := x.kind(q)
			if k != "?" && k != "token_tree" && k != "!" {
				break
			}
			pure, start = false, int(q.StartByte())
			q = q.PrevSibling()
		}
		if q == nil {
			break
		}
		k := x.kind(q)
		if strings.HasSuffix(k, "_literal") {
			pure, start = false, int(q.StartByte()) // "x".to_string()
			break
		}
		if k != "identifier" && k != "self" && k != "super" && k != "crate" {
			break
		}
		parts = append(parts, x.text(q))
		start = int(q.StartByte())
		p = q.PrevSibling()
	}
	if start < 0 {
		return nil, "", false
	}
	if !pure {
		return nil, rustCompact(x.s[start:end]), false
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	if path {
		for len(parts) > 0 && (parts[0] == "crate" || parts[0] == "super" || parts[0] == "self") {
			parts = parts[1:]
		}
	}
	return parts, "", path
}

// rustCompact is qualifierText for a span of source: whitespace collapsed,
// capped.
func rustCompact(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 64 {
		cut := 61
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// imports records a use declaration (one Import per name it binds) or an
// extern crate.
func (h *rustHandler) imports(x *extractor, n *sitter.Node) {
	line := x.lineOf(int(n.StartByte()))
	off := int(n.StartByte())
	if x.kind(n) == "extern_crate_declaration" {
		name := x.text(field(n, "name"))
		alias := x.text(field(n, "alias"))
		if alias == "" {
			alias = name
		}
		x.addImport(Import{Path: name, Alias: alias, Line: line}, off)
		return
	}
	depth := 0 // inline modules around the use: a super:: inside them stays in the file
	for _, s := range h.scopes {
		if s.kind == "mod" && s.start <= off && off < s.end {
			depth++
		}
	}
	add := func(segs []string, alias string, names []ImportName) {
		segs = rustInFile(segs, depth)
		if len(segs) == 0 {
			return
		}
		x.addImport(Import{Path: strings.Join(segs, "::"), Alias: alias, Names: names, Line: line}, off)
	}
	var walk func(t *sitter.Node, prefix []string, depth int)
	walk = func(t *sitter.Node, prefix []string, depth int) {
		if t == nil || depth > 16 {
			return
		}
		switch x.kind(t) {
		case "use_as_clause":
			segs := rustSegments(x, field(t, "path"), append([]string(nil), prefix...))
			add(segs, x.text(field(t, "alias")), nil)
		case "scoped_use_list":
			p := rustSegments(x, field(t, "path"), append([]string(nil), prefix...))
			walk(field(t, "list"), p, depth+1)
		case "use_list":
			for _, ch := range x.named(t) {
				walk(&ch, prefix, depth+1)
			}
		case "use_wildcard":
			var segs []string
			if c := t.NamedChild(0); c != nil {
				segs = rustSegments(x, c, append([]string(nil), prefix...))
			} else {
				segs = prefix
			}
			add(segs, "", []ImportName{{Name: "*"}})
		default:
			segs := rustSegments(x, t, append([]string(nil), prefix...))
			if len(segs) == 0 {
				return
			}
			if segs[len(segs)-1] == "self" && len(segs) > 1 {
				segs = segs[:len(segs)-1] // use a::b::{self}
			}
			add(segs, segs[len(segs)-1], nil)
		}
	}
	walk(field(n, "argument"), nil, 0)
}

// rustInFile rewrites the leading super:: segments of a path used inside
// depth inline modules: those that do not leave the file become one self::.
func rustInFile(segs []string, depth int) []string {
	if depth == 0 || len(segs) == 0 || segs[0] != "super" {
		return segs
	}
	k := 0
	for k < len(segs) && segs[k] == "super" {
		k++
	}
	if k <= depth {
		return append([]string{"self"}, segs[k:]...)
	}
	return segs[depth:]
}
