package source

import (
	"bytes"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	base     string // directory holding the .gitignore, relative to the root; "" for the root
	pattern  string // the glob, without "!", a leading "/" or a trailing "/"
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": matches directories only
	anchored bool   // the pattern has a "/" before its end: match the path below base, not the name
}

// parseIgnore parses the .gitignore file found in directory base. It
// implements the format of gitignore(5): blank lines and "#" comments are
// skipped, trailing spaces are dropped unless escaped, "!" negates, a
// trailing "/" matches only directories, a "/" at the start or in the middle
// anchors the pattern to base, and the glob supports *, ?, [...] classes,
// backslash escapes and "**" segments.
func parseIgnore(base string, data []byte) []ignoreRule {
	var rules []ignoreRule
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if r, ok := parseIgnoreLine(base, string(line)); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseIgnoreLine(base, line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	// Trailing spaces are ignored unless the last one is backslash-escaped.
	end := len(line)
	for end > 0 && line[end-1] == ' ' {
		if end >= 2 && line[end-2] == '\\' {
			break
		}
		end--
	}
	line = line[:end]
	r := ignoreRule{base: base}
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, "\\/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	r.pattern = line
	return r, true
}

// matches reports whether the rule matches rel, a slash-separated path
// relative to the walk's root. It does not look at rel's parents.
func (r *ignoreRule) matches(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.base != "" {
		if !strings.HasPrefix(rel, r.base) || len(rel) <= len(r.base) || rel[len(r.base)] != '/' {
			return false
		}
		rel = rel[len(r.base)+1:]
	}
	if !r.anchored {
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			rel = rel[i+1:]
		}
	}
	return wildmatch(r.pattern, rel)
}

// ignoredHere applies rules (outermost .gitignore first, so later rules win)
// to rel alone. The walk calls it on each entry of a directory it has not
// pruned, so the parents are known not to be ignored.
func ignoredHere(rules []ignoreRule, rel string, isDir bool) bool {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].matches(rel, isDir) {
			return !rules[i].negate
		}
	}
	return false
}

// ignored reports whether rel is ignored by rules, as git would: a path
// inside an ignored directory is ignored whatever later rules say, because
// git never looks inside an excluded directory.
func ignored(rules []ignoreRule, rel string, isDir bool) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && ignoredHere(rules, rel[:i], true) {
			return true
		}
	}
	return ignoredHere(rules, rel, isDir)
}

// wildmatch matches the glob p against the path s like git's wildmatch
// with WM_PATHNAME: "*", "?" and classes never match "/"; a "**" that fills
// a whole segment matches across segments ("**/x", "x/**", "a/**/b"); other
// runs of stars act like one.
func wildmatch(p, s string) bool {
	return dowild(p, 0, s, 0) == wmMatch
}

// Results of dowild. The two aborts prune the backtracking as git does: once
// a star has failed against every suffix of the text, no earlier star can do
// better, so matching stays polynomial.
const (
	wmNoMatch = iota
	wmMatch
	wmAbortAll
	wmAbortToStarStar
)

func dowild(p string, pi int, s string, si int) int {
	for ; pi < len(p); pi, si = pi+1, si+1 {
		c := p[pi]
		if si >= len(s) && c != '*' {
			return wmAbortAll
		}
		switch c {
		case '\\':
			if pi+1 < len(p) {
				pi++
				c = p[pi]
			}
			if s[si] != c {
				return wmNoMatch
			}
		case '?':
			if s[si] == '/' {
				return wmNoMatch
			}
		case '[':
			if s[si] == '/' {
				return wmNoMatch
			}
			ok, next, valid := matchClass(p, pi, s[si])
			if !valid {
				return wmAbortAll // git never matches a malformed class
			}
			if !ok {
				return wmNoMatch
			}
			pi = next - 1
		case '*':
			n := 1
			for pi+n < len(p) && p[pi+n] == '*' {
				n++
			}
			rest := pi + n
			matchSlash := false
			if n >= 2 && (pi == 0 || p[pi-1] == '/') && (rest == len(p) || p[rest] == '/') {
				matchSlash = true
				// "**/" also matches zero directories.
				if rest < len(p) && dowild(p, rest+1, s, si) == wmMatch {
					return wmMatch
				}
			}
			if rest == len(p) {
				if !matchSlash && strings.IndexByte(s[si:], '/') >= 0 {
					return wmAbortToStarStar
				}
				return wmMatch
			}
			for k := si; k < len(s); k++ {
				if r := dowild(p, rest, s, k); r != wmNoMatch {
					if !matchSlash || r != wmAbortToStarStar {
						return r
					}
				} else if !matchSlash && s[k] == '/' {
					return wmAbortToStarStar
				}
			}
			return wmAbortAll
		default:
			if s[si] != c {
				return wmNoMatch
			}
		}
	}
	if si < len(s) {
		return wmNoMatch
	}
	return wmMatch
}

// matchClass matches ch against the bracket expression starting at p[pi]
// ('['). It returns whether ch is in the class, the index just past the
// closing ']', and false as its last result when the class is unterminated.
func matchClass(p string, pi int, ch byte) (ok bool, next int, valid bool) {
	i := pi + 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		c := p[i]
		if c == ']' && !first {
			return ok != negate, i + 1, true
		}
		first = false
		if c == '\\' && i+1 < len(p) {
			i++
			c = p[i]
		}
		lo, hi := c, c
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			if hi == '\\' && i+3 < len(p) {
				hi = p[i+3]
				i++
			}
			i += 2
		}
		if lo <= ch && ch <= hi {
			ok = true
		}
		i++
	}
	return false, 0, false
}
