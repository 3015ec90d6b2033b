package index

import (
	"path"
	"strings"
	"sync"
)

// Ruby imports: require_relative "x" (recorded as "./x") and other "./" or
// "../" paths name x.rb next to the requiring file; require "a/b" names
// lib/a/b.rb when the repository has it, else a/b.rb or lib/a/b.rb under the
// nearest directory above the file that has one (a gem's lib/ or test/ in a
// repository of several gems), else the one file of the repository that is
// a/b.rb under some lib/ directory (another gem of the repository).

func init() {
	languageImports["ruby"] = resolveRuby
}

func resolveRuby(r *importResolver, from, imp string) string {
	rel := imp
	if !strings.HasSuffix(rel, ".rb") {
		rel += ".rb"
	}
	if strings.HasPrefix(imp, "./") || strings.HasPrefix(imp, "../") {
		return r.existing(path.Join(dirOf(from), rel))
	}
	if strings.HasPrefix(imp, "/") || imp == "" {
		return ""
	}
	rel = path.Clean(rel)
	if r.files["lib/"+rel] {
		return "lib/" + rel
	}
	for d := dirOf(from); ; d = dirOf(d) {
		for _, c := range []string{path.Join(d, rel), path.Join(d, "lib", rel)} {
			if r.files[c] {
				return c
			}
		}
		if d == "" {
			break
		}
	}
	if cands := r.rubyLib()[rel]; len(cands) == 1 {
		return cands[0]
	}
	return ""
}

// rubyLib maps a path under a lib/ directory ("a/b.rb") to the files of the
// repository at that path under some lib/, built once per resolver.
func (r *importResolver) rubyLib() map[string][]string {
	f, _ := r.derived.LoadOrStore("ruby", sync.OnceValue(func() map[string][]string {
		m := map[string][]string{}
		for p := range r.files {
			if !strings.HasSuffix(p, ".rb") {
				continue
			}
			if i := strings.LastIndex(p, "/lib/"); i >= 0 {
				m[p[i+len("/lib/"):]] = append(m[p[i+len("/lib/"):]], p)
			} else if rest, ok := strings.CutPrefix(p, "lib/"); ok {
				m[rest] = append(m[rest], p)
			}
		}
		return m
	}))
	return f.(func() map[string][]string)()
}
