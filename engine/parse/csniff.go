package parse

import "bytes"

// sniffLimit bounds the bytes sniffCPlusPlus reads: what a header is written
// in shows early.
const sniffLimit = 256 << 10

// sniffCPlusPlus reports whether src, a header, is C++: outside comments and
// literals it has `::`, `namespace X`, `template <`, `class X {` or `class
// X :`, an access specifier (`public:`), or includes an extension-less
// standard header (<vector>; every C one ends in .h). A C header that guards
// its declarations with #ifdef __cplusplus / extern "C" stays C.
func sniffCPlusPlus(src []byte) bool {
	src = src[:min(len(src), sniffLimit)]
	var prev, prev2 string // the two previous tokens
	lineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\\':
			i++
			continue
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			i = skipCComment(src, i)
			continue
		case c == '#' && lineStart:
			end := bytes.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			if cppInclude(src[i : i+end]) {
				return true
			}
			i += end
			continue
		case c == '"' || c == '\'':
			i = skipLiteral(src, i)
			prev2, prev = prev, "lit"
			lineStart = false
			continue
		}
		lineStart = false
		tok := ""
		if isIdentByte(c) {
			j := i
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			tok = string(src[i:j])
			i = j
		} else if c == ':' && i+1 < len(src) && src[i+1] == ':' {
			return true
		} else {
			tok = string(c)
			i++
		}
		switch {
		case prev == "namespace" && (tok == "{" || isIdentByte(tok[0])):
			return true
		case prev == "template" && tok == "<":
			return true
		case prev2 == "class" && isIdentByte(prev[0]) && (tok == "{" || tok == ":" || tok == "final"):
			return true
		case (prev == "public" || prev == "private" || prev == "protected") && tok == ":" && (i >= len(src) || src[i] != ':'):
			return true
		}
		prev2, prev = prev, tok
	}
	return false
}

// cppInclude reports whether a preprocessor line includes an extension-less
// standard header (#include <vector>).
func cppInclude(line []byte) bool {
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("#")))
	rest, ok := bytes.CutPrefix(line, []byte("include"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	if len(rest) < 3 || rest[0] != '<' {
		return false
	}
	end := bytes.IndexByte(rest, '>')
	return end > 1 && bytes.IndexByte(rest[1:end], '.') < 0
}

// skipLiteral returns the offset just past the string or character literal
// starting at i (or the end of its line when it is not closed).
func skipLiteral(src []byte, i int) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i + 1
		case '\n':
			return i
		}
	}
	return i
}

// skipCComment returns the offset past the // or /* */ comment starting at i
// (a line comment ends before its newline; an unclosed block runs to the end).
func skipCComment(src []byte, i int) int {
	if src[i+1] == '/' {
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(src)
	}
	if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
		return i + 2 + j + 2
	}
	return len(src)
}
