package index

import (
	"bufio"
	"bytes"
	"path"
	"sort"
	"strings"
	"sync"
)

// importResolver maps an import as written to the file (JS/TS, Python) or directory (a
// Go package) it names inside the repository, or "" for an external module.
type importResolver struct {
	files     map[string]bool
	dirs      map[string]bool
	goModules []goModule // longest module path first
	pySuffix  map[string][]string
	manifests map[string][]byte // contents of the manifestFiles, by path
	derived   sync.Map          // what a language works out from them, once (imports_<lang>.go)
}

// manifestFiles are the files whose contents import resolution reads: go.mod,
// and those a language adds in its init (composer.json).
var manifestFiles = map[string]bool{"go.mod": true}

type goModule struct {
	path string // module path from go.mod
	dir  string // directory of go.mod
}

func newImportResolver(paths []string, goMods map[string][]byte) *importResolver {
	r := &importResolver{files: make(map[string]bool, len(paths)), dirs: map[string]bool{}, pySuffix: map[string][]string{}, manifests: goMods}
	for _, p := range paths {
		r.files[p] = true
		for d := dirOf(p); ; d = dirOf(d) {
			if r.dirs[d] {
				break
			}
			r.dirs[d] = true
			if d == "" {
				break
			}
		}
	}
	for p, data := range goMods {
		if mod := modulePath(data); mod != "" && path.Base(p) == "go.mod" {
			r.goModules = append(r.goModules, goModule{path: mod, dir: dirOf(p)})
		}
	}
	sort.Slice(r.goModules, func(i, j int) bool { return len(r.goModules[i].path) > len(r.goModules[j].path) })
	return r
}

// modulePath reads the module directive of a go.mod file.
func modulePath(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

var jsExts = []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts", "/index.ts", "/index.tsx", "/index.js", "/index.jsx"}

// languageImports resolves the imports of the languages that register it
// from a file of their own (imports_<lang>.go, in an init): from is the
// importing file, imp the import as written; "" for an external one.
var languageImports = map[string]func(r *importResolver, from, imp string) string{}

func (r *importResolver) resolve(lang, from, imp string) string {
	if f, ok := languageImports[lang]; ok {
		return f(r, from, imp)
	}
	switch lang {
	case "javascript", "typescript", "tsx":
		if !strings.HasPrefix(imp, ".") {
			return ""
		}
		base := path.Join(dirOf(from), imp)
		// `import x from './util.js'` in TypeScript names util.ts.
		trimmed := strings.TrimSuffix(strings.TrimSuffix(base, ".js"), ".jsx")
		for _, b := range []string{base, trimmed} {
			for _, ext := range jsExts {
				if r.files[b+ext] {
					return b + ext
				}
			}
		}
	case "python":
		return r.resolvePython(from, imp)
	case "go":
		for _, m := range r.goModules {
			if imp == m.path || strings.HasPrefix(imp, m.path+"/") {
				d := path.Join(m.dir, strings.TrimPrefix(strings.TrimPrefix(imp, m.path), "/"))
				if d == "." {
					d = ""
				}
				if r.dirs[d] {
					return d
				}
			}
		}
	}
	return ""
}

func (r *importResolver) resolvePython(from, imp string) string {
	dots := len(imp) - len(strings.TrimLeft(imp, "."))
	mod := strings.ReplaceAll(imp[dots:], ".", "/")
	var bases []string
	if dots > 0 {
		d := dirOf(from)
		for i := 1; i < dots; i++ {
			d = dirOf(d)
		}
		bases = []string{path.Join(d, mod)}
	} else {
		// An absolute import is relative to some source root: the repository root,
		// the importing file's ancestors, then the package roots of the project
		// (src/ layouts, those its pyproject.toml or setup.cfg name: pythonRoots)
		// so that tests/, examples/ and docs/ find the package they exercise.
		bases = append(bases, mod)
		for d := dirOf(from); d != ""; d = dirOf(d) {
			bases = append(bases, path.Join(d, mod))
		}
		for _, root := range r.pythonRoots(from) {
			bases = append(bases, path.Join(root, mod))
		}
	}
	for _, b := range bases {
		b = strings.TrimPrefix(b, "./")
		if b == "." {
			b = ""
		}
		for _, cand := range []string{b + ".py", path.Join(b, "__init__.py"), b + ".pyi"} {
			if r.files[cand] {
				return cand
			}
		}
	}
	return ""
}
