package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// Filter narrows a search to part of the repository. It is parsed out of the
// query text (ParseFilters) in the syntax of code search tools people already
// know, and applied inside every channel, so a filtered search still fills its
// page with matches instead of fusing first and dropping afterwards.
type Filter struct {
	// Paths: path:PAT or file:PAT. A result's path must match one of them: a
	// pattern with * or ? is a glob over the whole path (* crosses /), any
	// other pattern a substring. Both ignore case.
	Paths []string `json:"paths,omitempty"`
	// NotPaths: -path:PAT or -file:PAT. A result's path must match none.
	NotPaths []string `json:"not_paths,omitempty"`
	// Langs: lang:NAME (go, python, typescript, ...). One of them.
	Langs []string `json:"langs,omitempty"`
	// NotLangs: -lang:NAME.
	NotLangs []string `json:"not_langs,omitempty"`
	// Kinds: kind:NAME (function, method, class, type, ...). One of them.
	Kinds []string `json:"kinds,omitempty"`
	// Tests: "" (tests are in, ranked lower), "no" (test:no or -test: tests
	// are out) or "only" (test:only or test:yes: nothing but tests).
	Tests string `json:"tests,omitempty"`
	// Repos: repo:PAT, NotRepos: -repo:PAT. They choose which repositories a
	// search over several covers (MatchesRepo, SelectRepos), before any of them
	// is searched: a Searcher covers one repository and leaves them alone.
	Repos    []string `json:"repos,omitempty"`
	NotRepos []string `json:"not_repos,omitempty"`
}

// ErrFilter marks a filter that could not be understood: a caller reports it as
// a usage error.
var ErrFilter = errors.New("bad filter")

// FilterHelp is the filter syntax in one paragraph, for --help texts and MCP
// tool descriptions.
const FilterHelp = `Filters in the query: path:DIR/ or file:NAME (substring, or a glob with * and ?), ` +
	`-path:PAT / -file:PAT to leave paths out, lang:go (-lang: to leave out), kind:function|method|class|type|..., ` +
	`test:no (or -test) to leave tests out, test:only for tests alone, repo:NAME (-repo: to leave out) ` +
	`to choose among the indexed repositories. A value with spaces is quoted: path:"my dir/". ` +
	`Several path: filters match any of them; everything else in the query is searched as usual.`

// filterKinds are the symbol kinds kind: accepts (those the parsers emit, but
// fields, which are not search results).
var filterKinds = []string{"block", "class", "const", "constant", "enum", "function", "impl", "interface",
	"method", "module", "part", "struct", "test", "trait", "type", "var"}

// langAliases are the names people type for a language.
var langAliases = map[string]string{"golang": "go", "py": "python", "js": "javascript", "ts": "typescript",
	"jsx": "javascript", "rs": "rust", "rb": "ruby", "c++": "cpp", "cxx": "cpp", "cs": "csharp", "kt": "kotlin"}

// Empty reports whether f lets everything through.
func (f Filter) Empty() bool {
	return len(f.Paths) == 0 && len(f.NotPaths) == 0 && len(f.Langs) == 0 && len(f.NotLangs) == 0 &&
		len(f.Kinds) == 0 && f.Tests == "" && !f.HasRepos()
}

// rows is f without its repository choice: what a channel applies to rows of
// the one repository it searches.
func (f Filter) rows() Filter {
	f.Repos, f.NotRepos = nil, nil
	return f
}

// HasRepos reports whether f chooses repositories (repo: or -repo:).
func (f Filter) HasRepos() bool { return len(f.Repos) > 0 || len(f.NotRepos) > 0 }

// String is f in the query syntax, for explain: "path:engine/ -test".
func (f Filter) String() string {
	var parts []string
	add := func(prefix string, vals []string) {
		for _, v := range vals {
			if strings.ContainsAny(v, " \t\"") {
				v = fmt.Sprintf("%q", v)
			}
			parts = append(parts, prefix+v)
		}
	}
	add("path:", f.Paths)
	add("-path:", f.NotPaths)
	add("lang:", f.Langs)
	add("-lang:", f.NotLangs)
	add("kind:", f.Kinds)
	add("repo:", f.Repos)
	add("-repo:", f.NotRepos)
	if f.Tests != "" {
		parts = append(parts, "test:"+f.Tests)
	}
	return strings.Join(parts, " ")
}

// merge adds g's conditions to f; a conflicting test: setting is an error.
func (f Filter) merge(g Filter) (Filter, error) {
	f.Paths = append(slices.Clip(f.Paths), g.Paths...)
	f.NotPaths = append(slices.Clip(f.NotPaths), g.NotPaths...)
	f.Langs = append(slices.Clip(f.Langs), g.Langs...)
	f.NotLangs = append(slices.Clip(f.NotLangs), g.NotLangs...)
	f.Kinds = append(slices.Clip(f.Kinds), g.Kinds...)
	f.Repos = append(slices.Clip(f.Repos), g.Repos...)
	f.NotRepos = append(slices.Clip(f.NotRepos), g.NotRepos...)
	if g.Tests != "" {
		if f.Tests != "" && f.Tests != g.Tests {
			return f, fmt.Errorf("%w: test:%s and test:%s contradict each other", ErrFilter, f.Tests, g.Tests)
		}
		f.Tests = g.Tests
	}
	return f, nil
}

// ParseFilters takes the filters out of a query and returns the rest of it,
// spaces kept between the words left. A word that only looks like a filter
// (http://host, a key: value) stays in the query; a filter with an empty or
// unknown value is an error wrapping ErrFilter.
func ParseFilters(q string) (string, Filter, error) {
	var f Filter
	var rest []string
	for _, tok := range filterTokens(q) {
		ok, err := f.add(tok)
		if err != nil {
			return "", Filter{}, err
		}
		if !ok {
			rest = append(rest, tok)
		}
	}
	if len(rest) == len(filterTokens(q)) {
		return q, f, nil // no filter: the query as typed, its layout kept
	}
	return strings.Join(rest, " "), f, nil
}

// filterTokens splits q at white space, a double-quoted span (and a
// backquoted one) staying in one token with its quotes.
func filterTokens(q string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	for _, r := range q {
		switch {
		case quote != 0:
			cur.WriteRune(r)
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '`':
			quote = r
			cur.WriteRune(r)
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// add records tok in f when it is a filter; false when it is a query word.
func (f *Filter) add(tok string) (bool, error) {
	if tok == "-test" || tok == "-tests" {
		return true, f.setTests("no", false)
	}
	neg := strings.HasPrefix(tok, "-")
	key, val, found := strings.Cut(strings.TrimPrefix(tok, "-"), ":")
	if !found {
		return false, nil
	}
	key = strings.ToLower(key)
	switch key {
	case "path", "file", "lang", "language", "kind", "test", "tests", "repo":
	default:
		return false, nil
	}
	if strings.HasPrefix(val, "//") {
		return false, nil // file://..., a URL
	}
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
		val = val[1 : len(val)-1]
	}
	if strings.TrimSpace(val) == "" {
		return false, fmt.Errorf("%w: %s: needs a value (%s:VALUE)", ErrFilter, key, key)
	}
	return true, f.set(key, val, neg)
}

// set applies one parsed filter.
func (f *Filter) set(key, val string, neg bool) error {
	switch key {
	case "path", "file":
		if neg {
			f.NotPaths = append(f.NotPaths, val)
		} else {
			f.Paths = append(f.Paths, val)
		}
	case "lang", "language":
		lang, err := filterLang(val)
		if err != nil {
			return err
		}
		if neg {
			f.NotLangs = append(f.NotLangs, lang)
		} else {
			f.Langs = append(f.Langs, lang)
		}
	case "kind":
		k := strings.ToLower(val)
		if neg || !slices.Contains(filterKinds, k) {
			return fmt.Errorf("%w: kind:%s: a kind is one of %s", ErrFilter, val, strings.Join(filterKinds, ", "))
		}
		f.Kinds = append(f.Kinds, k)
	case "test", "tests":
		return f.setTests(val, neg)
	case "repo":
		if neg {
			f.NotRepos = append(f.NotRepos, val)
		} else {
			f.Repos = append(f.Repos, val)
		}
	}
	return nil
}

// setTests applies test:VALUE.
func (f *Filter) setTests(val string, neg bool) error {
	var mode string
	switch strings.ToLower(val) {
	case "no", "false", "exclude", "none":
		mode = "no"
	case "only", "yes", "true":
		mode = "only"
	default:
		return fmt.Errorf("%w: test:%s: say test:no (or -test) to leave tests out, test:only for tests alone", ErrFilter, val)
	}
	if neg {
		return fmt.Errorf("%w: -test:%s: say test:no or test:only", ErrFilter, val)
	}
	if f.Tests != "" && f.Tests != mode {
		return fmt.Errorf("%w: test:%s and test:%s contradict each other", ErrFilter, f.Tests, mode)
	}
	f.Tests = mode
	return nil
}

// filterLang is the indexed name of a language as typed, or an error listing them.
func filterLang(val string) (string, error) {
	l := strings.ToLower(val)
	if a, ok := langAliases[l]; ok {
		l = a
	}
	known := append(parse.Languages(), "text")
	if slices.Contains(known, l) {
		return l, nil
	}
	slices.Sort(known)
	return "", fmt.Errorf("%w: lang:%s: not a language spelunk indexes (%s)", ErrFilter, val, strings.Join(known, ", "))
}
