package parse

import (
	"fmt"
	"strings"
)

// The languages beyond the first five register themselves from their own file
// (an init calling registerLanguage), so adding one touches no shared switch:
// its extensions, grammar, query files and handler are all it declares.

// language is one registered language.
type language struct {
	name    string
	exts    []string // lower-case, with the dot: ".java"
	spec    grammarSpec
	handler func() langHandler
	// sniff, when set, names the language a file of this one's extensions is
	// really in ("" keeps this one): .h is C or C++.
	sniff func(path string, src []byte) string
	// prepare, when set, rewrites the bytes the grammar parses (same length,
	// same lines): C blanks attribute-like macros the grammar cannot parse.
	prepare func(src []byte) []byte
}

var (
	registered = map[string]*language{} // by name
	byExt      = map[string]string{}    // extension -> name
)

// registerLanguage adds l; it panics on a clash, at start-up, so a mistake
// is found by every test rather than by a user.
func registerLanguage(l language) {
	if _, ok := registered[l.name]; ok {
		panic(fmt.Sprintf("parse: language %q registered twice", l.name))
	}
	if _, ok := grammarSpecs[l.name]; ok {
		panic(fmt.Sprintf("parse: language %q is built in", l.name))
	}
	for _, e := range l.exts {
		e = strings.ToLower(e)
		if other, ok := byExt[e]; ok {
			panic(fmt.Sprintf("parse: extension %s claimed by %s and %s", e, other, l.name))
		}
		byExt[e] = l.name
	}
	registered[l.name] = &l
	grammarSpecs[l.name] = l.spec
}

// Languages lists every parsed language: the built-in ones and the registered.
func Languages() []string {
	out := []string{"go", "python", "javascript", "typescript", "tsx"}
	for name := range registered {
		out = append(out, name)
	}
	return out
}

// sniffLanguage is lang, or the language src is in when lang's extension is
// ambiguous.
func sniffLanguage(lang, p string, src []byte) string {
	if l := registered[lang]; l != nil && l.sniff != nil {
		if s := l.sniff(p, src); s != "" {
			return s
		}
	}
	return lang
}
