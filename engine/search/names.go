package search

import (
	"regexp"
	"strings"
)

// Names in prose. A question or an issue says which definitions it means by
// marking them: a backticked name (`dedupe`) or a call (dedupe(...)), whatever
// their case; those reach the symbol channel like camelCase and snake_case
// tokens do. What looks like code but names nothing is kept out: `_` (a REPL's
// last value, a throwaway), single letters, the HTTP verbs of a pasted route
// table (GET would look up every get method) and English words written in
// capitals (NOTE, TODO).

// calledName is a name directly followed by "(": a call or a signature.
var calledName = regexp.MustCompile(`(^|[^\w$.])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(`)

// markedNames returns the names q marks as code: backticked spans that are one
// identifier (dotted or not) and names directly followed by "(".
func markedNames(q string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.Trim(strings.TrimSuffix(strings.TrimSpace(s), "()"), ".")
		if s == "" || seen[s] || !looksLikeIdentifier(s) || !isName(s) {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	for _, sp := range backtickSpans(q) {
		add(sp)
	}
	for _, m := range calledName.FindAllStringSubmatch(q, -1) {
		if !stopWords[strings.ToLower(m[2])] {
			add(m[2])
		}
	}
	return out
}

// backtickSpans are the `...` spans of q.
func backtickSpans(q string) []string {
	var out []string
	for {
		i := strings.IndexByte(q, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(q[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, q[i+1:i+1+j])
		q = q[i+1+j+1:]
	}
}

// httpVerbs are the methods of a route table.
var httpVerbs = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true,
	"HEAD": true, "OPTIONS": true, "CONNECT": true, "TRACE": true}

// capitalWords are words written in capitals in prose and tables that name no
// definition.
var capitalWords = map[string]bool{"NOTE": true, "TODO": true, "FIXME": true, "WARNING": true, "WARN": true,
	"IMPORTANT": true, "OK": true, "YES": true, "NO": true, "NOT": true, "AND": true, "OR": true, "THE": true,
	"N/A": true, "NA": true, "TBD": true, "EDIT": true, "UPDATE": true, "BUG": true, "INFO": true, "NEW": true}

// isName reports whether an identifier found in prose can name a definition:
// not `_` or another run of underscores, not a single letter, not an HTTP
// verb, not an English word written in capitals.
func isName(s string) bool {
	last := s[strings.LastIndex(s, ".")+1:]
	if strings.Trim(last, "_$") == "" || len(strings.Trim(s, "_$")) < 2 {
		return false
	}
	if httpVerbs[s] || capitalWords[s] {
		return false
	}
	if strings.ToUpper(s) == s && stopWords[strings.ToLower(s)] {
		return false
	}
	return true
}

// snakeToCamel is the lower-case camelCase spelling of a snake_case name
// (dedupe_items → dedupeitems, compared with lower(name)), or "" when the name
// has no underscore between words.
func snakeToCamel(s string) string {
	t := strings.Trim(s, "_")
	if !strings.Contains(t, "_") || strings.ToUpper(t) == t {
		return "" // no inner underscore, or a CONSTANT_NAME
	}
	return strings.ToLower(strings.ReplaceAll(t, "_", ""))
}
