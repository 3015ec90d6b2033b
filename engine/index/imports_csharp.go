package index

import (
	"path"
	"strings"
)

// C# `using X.Y;` names a namespace, which any file may declare: only the
// parse of every file would say which. From the paths alone the convention is
// that a namespace lives in a directory named after it, as one element
// (src/X.Y) or several (src/X/Y, X.Y/Z for X.Y.Z). A using resolves to that
// directory when exactly one directory of .cs files matches; `using static
// X.Y.C;` and `using A = X.Y.C;` to X.Y's C.cs when it exists. Anything else
// (System, a namespace spread over several directories) stays external.

func init() {
	languageImports["csharp"] = resolveCSharp
}

// csNamespaceDirs are the directories directly holding .cs files, by the last
// dot-separated segment of their base name.
type csNamespaceDirs map[string][]string

func newCSNamespaceDirs(r *importResolver) csNamespaceDirs {
	ix := csNamespaceDirs{}
	seen := map[string]bool{}
	for p := range r.files {
		if !strings.HasSuffix(p, ".cs") {
			continue
		}
		if d := dirOf(p); d != "" && !seen[d] {
			seen[d] = true
			b := path.Base(d)
			last := b[strings.LastIndexByte(b, '.')+1:]
			ix[last] = append(ix[last], d)
		}
	}
	return ix
}

// dir returns the one directory named after namespace segs, or "".
func (ix csNamespaceDirs) dir(segs []string) string {
	if len(segs) == 0 {
		return ""
	}
	found := ""
	for _, d := range ix[segs[len(segs)-1]] {
		if namespaceDir(d, segs) {
			if found != "" {
				return "" // ambiguous
			}
			found = d
		}
	}
	return found
}

// namespaceDir reports whether the trailing path elements of dir, split at
// dots, are exactly segs.
func namespaceDir(dir string, segs []string) bool {
	elems := strings.Split(dir, "/")
	i := len(segs)
	for e := len(elems) - 1; e >= 0 && i > 0; e-- {
		parts := strings.Split(elems[e], ".")
		if len(parts) > i {
			return false
		}
		for k, p := range parts {
			if p != segs[i-len(parts)+k] {
				return false
			}
		}
		i -= len(parts)
	}
	return i == 0
}

func resolveCSharp(r *importResolver, _ string, imp string) string {
	ix := resolverIndex(r, "csharp", func() any { return newCSNamespaceDirs(r) }).(csNamespaceDirs)
	segs := strings.Split(imp, ".")
	if d := ix.dir(segs); d != "" {
		return d
	}
	// A type: X.Y.C is C.cs in X.Y's directory.
	if len(segs) > 1 {
		if d := ix.dir(segs[:len(segs)-1]); d != "" && r.files[d+"/"+segs[len(segs)-1]+".cs"] {
			return d + "/" + segs[len(segs)-1] + ".cs"
		}
	}
	return ""
}
