package index

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// Python package roots. A project in the src layout keeps its package in
// src/<pkg>/ and imports it by name from tests/, examples/ and docs/, which
// only work once it is installed; a project may name other roots in its
// pyproject.toml ([tool.setuptools] package-dir, packages.find where) or its
// setup.cfg (package_dir, where). The roots are found once per resolver.

func init() {
	manifestFiles["pyproject.toml"] = true
	manifestFiles["setup.cfg"] = true
}

// pyRootIndex lists, per directory holding a project (a manifest, or the
// repository root), its package roots in order: the src/ directory when it
// exists, then the directories its manifests name.
type pyRootIndex map[string][]string

// pyRootNames match what a manifest says a package root is: `where =
// ["lib"]`, `where = lib`, `package-dir = {"" = "lib"}`, `package_dir = =lib`.
var pyRootNames = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^\s*where\s*=\s*\[?\s*["']?([\w./-]+)["']?`),
	regexp.MustCompile(`(?m)^\s*package[-_]dir\s*=\s*\{\s*["']{2}\s*[=:]\s*["']([\w./-]+)["']`),
	regexp.MustCompile(`(?m)^\s*package_dir\s*=\s*\n?\s*=\s*([\w./-]+)`),
}

func newPyRootIndex(r *importResolver) pyRootIndex {
	ix := pyRootIndex{}
	add := func(project, root string) {
		root = path.Clean(path.Join(project, root))
		if root == "." || !r.dirs[root] {
			return
		}
		for _, have := range ix[project] {
			if have == root {
				return
			}
		}
		ix[project] = append(ix[project], root)
	}
	projects := map[string]bool{"": true}
	for p := range r.manifests {
		if b := path.Base(p); b == "pyproject.toml" || b == "setup.cfg" {
			projects[dirOf(p)] = true
		}
	}
	names := make([]string, 0, len(projects))
	for d := range projects {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		add(d, "src")
		for _, m := range []string{"pyproject.toml", "setup.cfg"} {
			data := r.manifests[path.Join(d, m)]
			for _, re := range pyRootNames {
				for _, sub := range re.FindAllSubmatch(data, -1) {
					add(d, strings.TrimSuffix(string(sub[1]), "/"))
				}
			}
		}
	}
	return ix
}

// pythonRoots are the package roots an absolute import in file from may be
// relative to: those of the projects enclosing it, nearest first.
func (r *importResolver) pythonRoots(from string) []string {
	ix := resolverIndex(r, "python", func() any { return newPyRootIndex(r) }).(pyRootIndex)
	var out []string
	for d := dirOf(from); ; d = dirOf(d) {
		out = append(out, ix[d]...)
		if d == "" {
			return out
		}
	}
}
