package parse

import (
	"bytes"
	"strings"
)

// Attribute-like macros break the C and C++ grammars: `class LEVELDB_EXPORT
// Cache {` parses as a function named Cache, `SQLITE_API int f(void);` and
// `void f() GUARDED_BY(mu);` as errors. cMaskMacros blanks them in the bytes
// the grammar reads (same length, same lines; chunks and names still come
// from the source as written). Only at file, namespace and class scope, never
// in a function body, and only these forms:
//
//   - class|struct|union MACRO Name: MACRO;
//   - a macro named like an annotation (EXPORT, API, EXTERN, INLINE, STATIC,
//     DEPRECATED, GUARDED, LOCK, REQUIRES, ...), bare or with arguments;
//   - MACRO(args) after a parameter list, before ; { : = , or a qualifier;
//   - MACRO or MACRO(args) alone on its line (Q_OBJECT, REDIS_NO_SANITIZE("x")),
//     unless a { follows (TEST_F(A, B) then its body);
//   - in a function body, only `if MACRO (`: a macro for constexpr (fmt's
//     FMT_CONSTEXPR20), which left the grammar a class-long error.

type cTok struct {
	s, e int
	nl   bool // a line break precedes it
}

// cMaskMacros returns src with such macros blanked, or src itself when
// there are none.
func cMaskMacros(src []byte) []byte {
	m := &cMasker{src: src, str: string(src), toks: cTokens(src), learned: map[string]bool{}}
	var stack []bool // per open brace: a code block (function body, initializer, enum)
	code, scopeKw := false, false
	for i := 0; i < len(m.toks); i++ {
		t := m.text(i)
		switch t {
		case "{":
			prev := m.text(i - 1)
			isCode := code || !scopeKw || prev == ")" || prev == "=" || cCodePrev[prev]
			stack = append(stack, code)
			code, scopeKw = isCode, false
			continue
		case "}":
			if n := len(stack); n > 0 {
				code, stack = stack[n-1], stack[:n-1]
			}
			scopeKw = false
			continue
		case ";":
			scopeKw = false
			continue
		case "namespace", "class", "struct", "union", "extern":
			scopeKw = true
			continue
		case "enum":
			scopeKw = false // its braces hold enumerators, not declarations
			continue
		}
		if cIdent(t) && !cKeywords[t] && cTypeWords[m.text(i+1)] && !cKeywords[m.text(i-1)] {
			// An identifier right before int, char, struct...: never valid C
			// or C++ unless it is a macro (static redisAtomic int n;).
			m.mask(m.toks[i].s, m.toks[i].e)
			continue
		}
		if code && m.text(i-1) == "if" && cCaps(t) && m.text(i+1) == "(" {
			// if FMT_CONSTEXPR20 (cond): a macro standing for constexpr, the
			// only word allowed there besides consteval.
			m.mask(m.toks[i].s, m.toks[i].e)
			continue
		}
		if !code && cCaps(t) {
			if end := m.macroAt(i); end > i {
				m.mask(m.toks[i].s, m.toks[end-1].e)
				i = end - 1
			}
		}
	}
	out := maskLinkageGuards(src, m.out)
	if out == nil {
		return src
	}
	return out
}

// cMasker is the state of one cMaskMacros pass.
type cMasker struct {
	src     []byte
	str     string // src as a string: token texts are cut from it without copies
	toks    []cTok
	out     []byte          // the masked copy, made on the first mask
	learned map[string]bool // macros seen as class MACRO Name
}

func (m *cMasker) text(i int) string {
	if i < 0 || i >= len(m.toks) {
		return ""
	}
	return m.str[m.toks[i].s:m.toks[i].e]
}

func (m *cMasker) mask(a, b int) {
	if m.out == nil {
		m.out = append([]byte(nil), m.src...)
	}
	for i := a; i < b; i++ {
		if m.out[i] != '\n' && m.out[i] != '\r' {
			m.out[i] = ' '
		}
	}
}

// macroAt decides whether the upper-case token i, at file, namespace or
// class scope, is an attribute-like macro: it returns the token index just
// past it and its arguments, or i when it is not.
func (m *cMasker) macroAt(i int) int {
	t, prev, next := m.text(i), m.text(i-1), m.text(i+1)
	end := i + 1
	if next == "(" {
		if end = cMatchParen(m.str, m.toks, i+1); end < 0 {
			return i
		}
	}
	after := m.text(end)
	alone := m.toks[i].nl && (end >= len(m.toks) || m.toks[end].nl) && after != "{" && after != "}" &&
		after != "," && after != "=" && after != "(" && strings.ContainsRune(t, '_')
	switch {
	case (prev == "class" || prev == "struct" || prev == "union") && next != "(" && cIdent(next) && !cCaps(next) || m.learned[t] && next != "(":
		m.learned[t] = true
	case cAnnotation(t):
	case next == "(" && (prev == ")" || cQualifierWord[prev]) && cAfterAnnotation(after):
	case alone:
	default:
		return i
	}
	return end
}

// maskLinkageGuards blanks the C header idiom
//
//	#ifdef __cplusplus
//	extern "C" {
//	#endif
//
// and its closing counterpart: a brace in one conditional closed in another
// is a syntax error to the grammar. out is the masked copy so far, or nil.
func maskLinkageGuards(src, out []byte) []byte {
	for i := 0; i < len(src); {
		j := bytes.Index(src[i:], []byte("__cplusplus"))
		if j < 0 {
			break
		}
		j += i
		ls := bytes.LastIndexByte(src[:j], '\n') + 1
		le := lineEnd(src, j)
		i = le
		dir := bytes.Fields(src[ls:le])
		if len(dir) == 0 || !bytes.HasPrefix(dir[0], []byte("#")) || !cppGuardDirective(dir) {
			continue
		}
		// The body: lines up to #endif or #else, only extern "C" { or }.
		start, k := le, le
		ok := false
		for k < len(src) {
			e := lineEnd(src, k)
			line := bytes.TrimSpace(src[k:e])
			if bytes.HasPrefix(line, []byte("#")) {
				ok = bytes.HasPrefix(bytes.Join(bytes.Fields(line), nil), []byte("#endif")) ||
					bytes.HasPrefix(bytes.Join(bytes.Fields(line), nil), []byte("#else"))
				break
			}
			flat := string(bytes.Join(bytes.Fields(line), nil))
			if flat != "" && flat != `extern"C"{` && flat != "}" {
				break
			}
			k = e
		}
		if !ok || k == start {
			continue
		}
		if out == nil {
			out = append([]byte(nil), src...)
		}
		for b := start; b < k; b++ {
			if out[b] != '\n' && out[b] != '\r' {
				out[b] = ' '
			}
		}
		i = k
	}
	return out
}

// cppGuardDirective reports whether a directive's words test for C++:
// #ifdef __cplusplus, #if defined(__cplusplus), #if defined __cplusplus.
func cppGuardDirective(words [][]byte) bool {
	d := string(bytes.Join(words, nil))
	return d == "#ifdef__cplusplus" || d == "#if__cplusplus" || d == "#ifdefined(__cplusplus)" || d == "#ifdefined__cplusplus" ||
		d == "#if(defined(__cplusplus))"
}

// lineEnd is the offset just past the line holding i (its newline included).
func lineEnd(src []byte, i int) int {
	if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
		return i + k + 1
	}
	return len(src)
}

// cTypeWords are the builtin type words: a type name never comes right
// before one (T const is valid, T int is not).
var cTypeWords = map[string]bool{"int": true, "char": true, "short": true, "long": true, "unsigned": true,
	"signed": true, "float": true, "double": true, "void": true, "_Bool": true, "bool": true, "struct": true,
	"union": true, "enum": true}

// cKeywords are the C and C++ keywords an identifier before a type word can
// be without being a macro.
var cKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`auto break case char const continue default do double else enum extern
		float for goto if inline int long register restrict return short signed sizeof static struct switch
		typedef union unsigned void volatile while _Bool _Complex _Atomic _Noreturn _Thread_local _Alignas
		alignas alignof and asm bool catch class concept consteval constexpr constinit const_cast co_await
		co_return co_yield decltype delete dynamic_cast explicit export false friend mutable namespace new
		noexcept not nullptr operator or private protected public reinterpret_cast requires static_assert
		static_cast template this thread_local throw true try typeid typename using virtual wchar_t char8_t
		char16_t char32_t final override __extension__ __inline __inline__ __restrict __thread`) {
		cKeywords[k] = true
	}
}

// cCodePrev are the tokens after which { opens a function body.
var cCodePrev = map[string]bool{"const": true, "override": true, "noexcept": true, "mutable": true,
	"volatile": true, "try": true, "else": true, "do": true, "->": true, "]": true}

// cQualifierWord may stand between a parameter list and an annotation macro.
var cQualifierWord = map[string]bool{"const": true, "override": true, "final": true, "noexcept": true, "volatile": true}

// cAfterAnnotation reports whether tok may follow an annotation macro that
// ends a declarator.
func cAfterAnnotation(tok string) bool {
	switch tok {
	case ";", "{", ":", "=", ",", ")", "const", "override", "final", "noexcept", "":
		return true
	}
	return cCaps(tok)
}

// cAnnotationWords are the words of annotation macro names: a segment of the
// name (between underscores) is one of them or begins with one (LOCKS,
// ALIGNED); the last four may also end one (ZEXPORT, PHPAPI, DLLIMPORT).
var cAnnotationWords = []string{"STATIC", "INLINE", "DECL", "VISIBILITY", "DEPRECATED", "NOINLINE",
	"UNUSED", "NORETURN", "HIDDEN", "ATTRIBUTE", "ATTR", "NODISCARD", "CDECL", "STDCALL", "FASTCALL",
	"WINAPI", "SANITIZE", "NOEXCEPT", "OVERRIDE", "PACKED", "ALIGN", "LOCK", "GUARDED", "REQUIRES",
	"EXCLUDES", "ACQUIRE", "RELEASE", "CAPABILITY", "PRINTF", "WARN", "PURE", "CONSTEXPR", "CONSTEVAL", "CONSTINIT",
	"FORCEINLINE", "EXPORT", "EXTERN", "API", "IMPORT"}

// cAnnotation reports whether a macro is named like an annotation.
func cAnnotation(t string) bool {
	for seg := range strings.SplitSeq(t, "_") {
		if seg == "" {
			continue
		}
		for i, w := range cAnnotationWords {
			if strings.HasPrefix(seg, w) || (i >= len(cAnnotationWords)-4 && strings.HasSuffix(seg, w)) {
				return true
			}
		}
	}
	return false
}

// cCaps reports whether t is an upper-case identifier of two letters or more
// (a macro by convention).
func cCaps(t string) bool {
	if t == "" || t[0] >= '0' && t[0] <= '9' {
		return false
	}
	upper := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c >= 'A' && c <= 'Z':
			upper++
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return upper >= 2
}

func cIdent(t string) bool { return t != "" && isIdentByte(t[0]) && !(t[0] >= '0' && t[0] <= '9') }

// cMatchParen returns the index just past the ) matching the ( at toks[i], or -1.
func cMatchParen(src string, toks []cTok, i int) int {
	depth := 0
	for j := i; j < len(toks) && j < i+4096; j++ {
		switch src[toks[j].s:toks[j].e] {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j + 1
			}
		case "{", "}", ";":
			return -1
		}
	}
	return -1
}

// cConds follows #if nesting so that only the first branch of a
// conditional is read: braces opened in one branch and closed in another
// then balance, as in the code the compiler sees.
type cConds struct {
	depth int // open #ifs
	skip  int // depth of the #if whose later branch is being skipped, 0: none
}

// directive takes a preprocessor line and reports whether the lines after it
// are skipped.
func (c *cConds) directive(line []byte) bool {
	d := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), []byte("#")))
	word := d
	if i := bytes.IndexFunc(d, func(r rune) bool { return r < 'a' || r > 'z' }); i >= 0 {
		word = d[:i]
	}
	switch string(word) {
	case "if", "ifdef", "ifndef":
		c.depth++
	case "else", "elif", "elifdef", "elifndef":
		if c.skip == 0 && c.depth > 0 {
			c.skip = c.depth
		}
	case "endif":
		if c.skip == c.depth {
			c.skip = 0
		}
		c.depth = max(c.depth-1, 0)
	}
	return c.skip != 0
}

// cTokens splits src into identifiers, numbers and punctuation (one token
// per character, "->" and "::" excepted), without comments, literals and
// preprocessor lines.
func cTokens(src []byte) []cTok {
	toks := make([]cTok, 0, len(src)/6)
	nl, lineStart := true, true
	var pp cConds
	skip := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			nl, lineStart = true, true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2
			continue
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			i = skipCComment(src, i)
			continue
		case c == '#' && lineStart:
			start := i
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' {
					i++
				}
				i++
			}
			skip = pp.directive(src[start:i])
			continue
		case skip:
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		lineStart = false
		start := i
		switch {
		case c == '"' || c == '\'':
			i = skipLiteral(src, i)
		case isIdentByte(c):
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
		case (c == '-' && i+1 < len(src) && src[i+1] == '>') || (c == ':' && i+1 < len(src) && src[i+1] == ':'):
			i += 2
		default:
			i++
		}
		toks = append(toks, cTok{start, i, nl})
		nl = false
	}
	return toks
}
