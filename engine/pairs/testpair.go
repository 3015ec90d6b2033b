package pairs

import (
	"path"
	"strings"

	"github.com/spelunkhq/spelunk/engine/parse"
)

// isTestDef reports whether symbol i of f is a test function: Go TestX in a
// _test.go file, Python test_x (or testX in a test file), a Rust function
// with a #[test]-like attribute, a Java method annotated @Test.
func isTestDef(f *srcFile, i int) bool {
	s := &f.f.Symbols[i]
	if s.Kind != parse.KindFunction && s.Kind != parse.KindMethod {
		return false
	}
	switch f.lang {
	case "go":
		return strings.HasSuffix(f.path, "_test.go") && strings.HasPrefix(s.Name, "Test") && len(s.Name) > 4
	case "python":
		return strings.HasPrefix(s.Name, "test_") || (f.test && strings.HasPrefix(s.Name, "test") && len(s.Name) > 4)
	case "rust":
		head := s.Content[:max(strings.Index(s.Content, "fn "), 0)]
		return strings.Contains(head, "test]") || strings.Contains(head, "#[test")
	case "java":
		head := s.Content[:max(strings.Index(s.Content, "("), 0)]
		return strings.Contains(head, "@Test") || strings.Contains(head, "@ParameterizedTest")
	}
	return false
}

// testWords turns a test function's name into words: TestParseURLWithPort
// gives "parse url with port", test_dedupes_outbox_twice "dedupes outbox
// twice".
func testWords(name string) string {
	for _, p := range []string{"Test", "test_", "test"} {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			name = name[len(p):]
			break
		}
	}
	ws := words(name)
	if len(ws) > 0 && ws[len(ws)-1] == "test" {
		ws = ws[:len(ws)-1]
	}
	return strings.Join(ws, " ")
}

// testPairs gives each test function's name in words → the non-test
// definition it calls whose name shares the most words with the test's
// name; tests with no such callee, or whose best callee's name is
// ambiguous, give nothing.
func testPairs(r *repo, f *srcFile, emit func(Pair)) {
	calls := map[int][]parse.Ref{}
	for _, ref := range f.f.Refs {
		if ref.Kind == parse.RefCalls {
			calls[ref.From] = append(calls[ref.From], ref)
		}
	}
	for i := range f.f.Symbols {
		if !isTestDef(f, i) {
			continue
		}
		q := testWords(f.f.Symbols[i].Name)
		if len(strings.Fields(q)) < 2 {
			continue
		}
		d, ok := bestCallee(r, f, q, calls[i])
		if !ok {
			continue
		}
		emit(Pair{Kind: "test", Query: q, Code: codeOf(d.file, d.idx), Repo: r.name, Path: d.file.path,
			Symbol: d.sym().QualifiedName})
	}
}

// bestCallee picks among the calls the definition whose name overlaps the
// test words most (at least one word); among same-named definitions, the
// one in the test's directory.
func bestCallee(r *repo, f *srcFile, q string, calls []parse.Ref) (def, bool) {
	want := map[string]bool{}
	for _, w := range strings.Fields(q) {
		if !stopwords[w] {
			want[stem(w)] = true
		}
	}
	best, bestScore := "", 0
	for _, c := range calls {
		if len(r.byName[c.Name]) == 0 || c.Name == best {
			continue
		}
		score := 0
		for _, w := range words(c.Name) {
			if want[stem(w)] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = c.Name, score
		}
	}
	if bestScore == 0 {
		return def{}, false
	}
	if d, ok := r.resolve(best); ok {
		return d, true
	}
	var local []def
	for _, d := range r.byName[best] {
		if path.Dir(d.file.path) == path.Dir(f.path) {
			local = append(local, d)
		}
	}
	if len(local) == 1 {
		return local[0], true
	}
	return def{}, false
}

// stem is a crude stem that lets "dedupes" meet "dedupe" and "parsing"
// meet "parse".
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s", "e"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}
