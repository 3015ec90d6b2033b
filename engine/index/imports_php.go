package index

import (
	"encoding/json"
	"path"
	"sort"
	"strings"
	"sync"
)

// PHP imports: `use A\B\C` names a class, found through the PSR-4 map of the
// repository's composer.json files (autoload and autoload-dev), else by the
// usual layouts (src/, app/ for App\, lib/, the root); require/include name
// a file, "__DIR__/x" relative to the including file's directory, other
// relative paths to it or to the repository root.

func init() {
	languageImports["php"] = resolvePHP
	manifestFiles["composer.json"] = true
}

func resolvePHP(r *importResolver, from, imp string) string {
	if rest, ok := strings.CutPrefix(imp, "__DIR__"); ok {
		return r.existing(path.Join(dirOf(from), rest))
	}
	if strings.ContainsAny(imp, "/.") {
		if strings.HasPrefix(imp, "/") {
			return ""
		}
		if p := r.existing(path.Join(dirOf(from), imp)); p != "" {
			return p
		}
		return r.existing(imp)
	}
	name := strings.TrimPrefix(imp, "\\")
	for _, root := range r.psr4() {
		if rest, ok := strings.CutPrefix(name, root.prefix); ok && rest != "" {
			if p := r.existing(path.Join(root.dir, strings.ReplaceAll(rest, "\\", "/")+".php")); p != "" {
				return p
			}
		}
	}
	rel := strings.ReplaceAll(name, "\\", "/") + ".php"
	_, tail, nested := strings.Cut(rel, "/")
	cands := []string{"src/" + rel, "lib/" + rel, rel}
	if nested {
		cands = append(cands, "src/"+tail, "app/"+tail, "lib/"+tail)
	}
	for _, c := range cands {
		if r.files[c] {
			return c
		}
	}
	return ""
}

// existing returns the cleaned path p when it is a file of the repository.
func (r *importResolver) existing(p string) string {
	p = path.Clean(p)
	if r.files[p] {
		return p
	}
	return ""
}

// psr4Root maps a namespace prefix ("App\") to a directory of the repository.
type psr4Root struct{ prefix, dir string }

// psr4 returns the PSR-4 roots of every composer.json, longest prefix first,
// read once per resolver.
func (r *importResolver) psr4() []psr4Root {
	f, _ := r.derived.LoadOrStore("php", sync.OnceValue(func() []psr4Root { return readPSR4(r.manifests) }))
	return f.(func() []psr4Root)()
}

func readPSR4(manifests map[string][]byte) []psr4Root {
	var roots []psr4Root
	for p, data := range manifests {
		if path.Base(p) != "composer.json" {
			continue
		}
		var c struct {
			Autoload struct {
				PSR4 map[string]json.RawMessage `json:"psr-4"`
			} `json:"autoload"`
			AutoloadDev struct {
				PSR4 map[string]json.RawMessage `json:"psr-4"`
			} `json:"autoload-dev"`
		}
		if json.Unmarshal(data, &c) != nil {
			continue
		}
		for _, m := range []map[string]json.RawMessage{c.Autoload.PSR4, c.AutoloadDev.PSR4} {
			for prefix, raw := range m {
				var dirs []string
				var one string
				if json.Unmarshal(raw, &one) == nil {
					dirs = []string{one}
				} else if json.Unmarshal(raw, &dirs) != nil {
					continue
				}
				for _, d := range dirs {
					roots = append(roots, psr4Root{prefix: strings.TrimPrefix(prefix, "\\"), dir: path.Join(dirOf(p), d)})
				}
			}
		}
	}
	sort.Slice(roots, func(i, j int) bool {
		if len(roots[i].prefix) != len(roots[j].prefix) {
			return len(roots[i].prefix) > len(roots[j].prefix)
		}
		if roots[i].prefix != roots[j].prefix {
			return roots[i].prefix < roots[j].prefix
		}
		return roots[i].dir < roots[j].dir
	})
	return roots
}
