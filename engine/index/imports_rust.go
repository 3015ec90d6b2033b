package index

import (
	"path"
	"strings"
)

// Rust imports, as the parser writes them: `mod x;` is "x" (with a #[path]
// attribute, the file it names: "disabled.rs"), a use is its
// path ("crate::a::B", "super::x", "self::y", "serde::Deserialize"),
// `extern crate z;` is "z". A path resolves to the file of the deepest module
// it names that the repository has: crate:: from the crate's src directory
// (the one next to the nearest Cargo.toml), self:: and super:: from the
// importing file's module, anything else from the file's module (a `mod x;`
// or a 2018 relative path), then from the crate root (2015 paths), then as
// the name of a crate of the workspace. std, core and alloc are external.

func init() {
	languageImports["rust"] = resolveRust
}

func resolveRust(r *importResolver, from, imp string) string {
	if strings.HasSuffix(imp, ".rs") && !strings.Contains(imp, "::") {
		// #[path = "x.rs"] mod m;: relative to the declaring file's directory
		if p := path.Join(dirOf(from), imp); r.files[p] {
			return p
		}
		return ""
	}
	segs := strings.Split(imp, "::")
	if len(segs) > 0 && segs[0] == "" {
		segs = segs[1:] // ::std::x, a 2015 absolute path
	}
	if len(segs) == 0 {
		return ""
	}
	if n := len(segs); n > 1 && (segs[n-1] == "*" || segs[n-1] == "self") {
		segs = segs[:n-1]
	}
	switch segs[0] {
	case "", "*":
		return ""
	case "std", "core", "alloc":
		return ""
	case "crate":
		return rustModuleFile(r, rustCrateRoot(r, from), segs[1:], true)
	case "self":
		if len(segs) == 1 {
			return from
		}
		if f := rustModuleFile(r, rustModDir(from), segs[1:], false); f != "" {
			return f
		}
		return from // an item of this module, or of an inline module of it
	case "super":
		dir := rustModDir(from)
		for len(segs) > 0 && segs[0] == "super" {
			dir = dirOf(dir)
			segs = segs[1:]
		}
		return rustModuleFile(r, dir, segs, true)
	}
	if f := rustModuleFile(r, rustModDir(from), segs, false); f != "" {
		return f
	}
	if f := rustModuleFile(r, dirOf(from), segs, false); f != "" {
		return f // `mod x;` in a crate root not named main.rs or lib.rs (src/bin/tool.rs)
	}
	return rustModuleFile(r, rustCrateRoot(r, from), segs, false)
}

// rustModuleFile returns the file of the deepest module of segs under the
// module directory dir: dir/a/b.rs or dir/a/b/mod.rs, else dir/a.rs ...;
// with none and self true, the file of dir's own module.
func rustModuleFile(r *importResolver, dir string, segs []string, self bool) string {
	for k := len(segs); k >= 1; k-- {
		p := path.Join(append([]string{dir}, segs[:k]...)...)
		for _, c := range []string{p + ".rs", p + "/mod.rs"} {
			if c = strings.TrimPrefix(c, "/"); r.files[c] {
				return c
			}
		}
	}
	if !self {
		return ""
	}
	cands := []string{path.Join(dir, "lib.rs"), path.Join(dir, "main.rs"), path.Join(dir, "mod.rs")}
	if dir != "" {
		cands = append(cands, dir+".rs")
	}
	for _, c := range cands {
		if r.files[c] {
			return c
		}
	}
	return ""
}

// rustModDir is the directory holding the submodules of the module file p:
// its own directory for mod.rs, lib.rs and main.rs, else dir/stem (a/b.rs
// keeps its submodules in a/b/).
func rustModDir(p string) string {
	switch path.Base(p) {
	case "mod.rs", "lib.rs", "main.rs":
		return dirOf(p)
	}
	return strings.TrimSuffix(p, ".rs")
}

// rustCrateRoot is the directory crate:: paths start from: the src directory
// of the nearest Cargo.toml above p when p is in it (the usual layout), else
// the nearest directory above p holding a main.rs or lib.rs below that
// Cargo.toml (a [[bin]] path such as crates/core/main.rs), else p's own
// directory (tests/, examples/ and benches/ files are crate roots of their own).
func rustCrateRoot(r *importResolver, p string) string {
	cargo := ""
	found := false
	for d := dirOf(p); ; d = dirOf(d) {
		if r.files[path.Join(d, "Cargo.toml")] {
			cargo, found = d, true
			break
		}
		if d == "" {
			break
		}
	}
	if src := path.Join(cargo, "src"); strings.HasPrefix(p, src+"/") &&
		(r.files[path.Join(src, "lib.rs")] || r.files[path.Join(src, "main.rs")]) {
		return src
	}
	for d := dirOf(p); ; d = dirOf(d) {
		if r.files[path.Join(d, "lib.rs")] || r.files[path.Join(d, "main.rs")] {
			return d
		}
		if d == "" || (found && d == cargo) {
			break
		}
	}
	if !found {
		for d := dirOf(p); d != ""; d = dirOf(d) {
			if path.Base(d) == "src" {
				return d
			}
		}
	}
	return dirOf(p)
}
