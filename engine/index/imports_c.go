package index

import (
	"path"
	"strings"
)

// C and C++ includes: #include "x.h" names a file relative to the including
// file, else to one of the directories above it or their include/ (how -I
// flags are usually set up), else the repository's include/ or src/. An
// <x.h> include (Path "<x.h>") and one naming no file of the repository are
// external.
func init() {
	languageImports["c"] = resolveInclude
	languageImports["cpp"] = resolveInclude
}

func resolveInclude(r *importResolver, from, imp string) string {
	if imp == "" || strings.HasPrefix(imp, "<") || path.IsAbs(imp) {
		return ""
	}
	try := func(dir string) string {
		p := path.Join(dir, imp)
		if strings.HasPrefix(p, "../") || p == ".." {
			return ""
		}
		if r.files[p] {
			return p
		}
		return ""
	}
	if p := try(dirOf(from)); p != "" {
		return p
	}
	for d := dirOf(from); ; d = dirOf(d) {
		if p := try(path.Join(d, "include")); p != "" {
			return p
		}
		if d == "" {
			break
		}
		if p := try(dirOf(d)); p != "" {
			return p
		}
	}
	return try("src")
}
