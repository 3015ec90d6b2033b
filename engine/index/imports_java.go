package index

import (
	"path"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"weak"
)

// Java imports name classes by package: `import a.b.C` is the file a/b/C.java
// under some source root (src/main/java, src, a module's own root), which the
// path alone does not say. So the file is looked for under every root: one
// candidate is the answer; several (the same class in two modules) go to the
// one under the importing file's own root, else none. `import a.b.C.Inner`
// is C.java; `import a.b.*` is the directory a/b.

func init() {
	languageImports["java"] = resolveJava
}

func resolveJava(r *importResolver, from, imp string) string {
	ix := resolverIndex(r, "java", func() any { return newSuffixIndex(r, ".java") }).(*suffixIndex)
	segs := strings.Split(imp, ".")
	for k := len(segs); k >= 1; k-- {
		if f := ix.pick(ix.files, strings.Join(segs[:k], "/")+".java", from); f != "" {
			return f
		}
		// Only a nested class's outer class can stand for it.
		if k < 2 || !startsUpperCase(segs[k-2]) {
			break
		}
	}
	return ix.pick(ix.dirs, strings.Join(segs, "/"), from)
}

func startsUpperCase(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// suffixIndex holds a language's files by base name and the directories that
// directly hold such files by their own base name.
type suffixIndex struct {
	files, dirs map[string][]string
}

func newSuffixIndex(r *importResolver, ext string) *suffixIndex {
	ix := &suffixIndex{files: map[string][]string{}, dirs: map[string][]string{}}
	seen := map[string]bool{}
	for p := range r.files {
		if !strings.HasSuffix(p, ext) {
			continue
		}
		ix.files[path.Base(p)] = append(ix.files[path.Base(p)], p)
		if d := dirOf(p); d != "" && !seen[d] {
			seen[d] = true
			ix.dirs[path.Base(d)] = append(ix.dirs[path.Base(d)], d)
		}
	}
	return ix
}

// pick returns the one path of set that ends with rel (whole path elements),
// or, among several, the one whose root (the path without rel) holds from.
func (ix *suffixIndex) pick(set map[string][]string, rel, from string) string {
	var found []string
	for _, p := range set[path.Base(rel)] {
		if p == rel || strings.HasSuffix(p, "/"+rel) {
			found = append(found, p)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	best, bestRoot, tie := "", -1, false
	for _, p := range found {
		root := strings.TrimSuffix(p, rel)
		if !strings.HasPrefix(from, root) {
			continue
		}
		switch {
		case len(root) > bestRoot:
			best, bestRoot, tie = p, len(root), false
		case len(root) == bestRoot:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// resolverIndexes are lookup tables a language builds once per resolver (a
// run's file list), dropped with the resolver.
var resolverIndexes struct {
	sync.Mutex
	m map[weak.Pointer[importResolver]]map[string]any
}

// resolverIndex returns r's table named key, built on first use.
func resolverIndex(r *importResolver, key string, build func() any) any {
	wp := weak.Make(r)
	resolverIndexes.Lock()
	defer resolverIndexes.Unlock()
	if resolverIndexes.m == nil {
		resolverIndexes.m = map[weak.Pointer[importResolver]]map[string]any{}
	}
	tables, ok := resolverIndexes.m[wp]
	if !ok {
		tables = map[string]any{}
		resolverIndexes.m[wp] = tables
		runtime.AddCleanup(r, func(wp weak.Pointer[importResolver]) {
			resolverIndexes.Lock()
			delete(resolverIndexes.m, wp)
			resolverIndexes.Unlock()
		}, wp)
	}
	t, ok := tables[key]
	if !ok {
		t = build()
		tables[key] = t
	}
	return t
}
