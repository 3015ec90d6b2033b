package parse

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// fixtureRoots hold the committed per-language fixtures (testdata/fixture,
// the C/C++ one, the Rust crate): the corpus of a language's benchmark where
// no larger one is on the machine.
var fixtureRoots = []string{fixtureDir, cFixtureDir, "../../testdata/languages"}

// BenchmarkParseLanguages measures parse+chunk throughput (BenchmarkParse's
// method, up to 4 MB) for every language but Go (BenchmarkParse). Each runs
// on the largest corpus present, named in the sub-benchmark: the repository
// of its testdata/eval/languages list when cloned at the listed commit, the
// Python and npm installations for Python and JavaScript, else the language's
// committed fixture files, so that every language is measured in make bench.
func BenchmarkParseLanguages(b *testing.B) {
	roots := map[string]string{"python": "/usr/lib/python3.11", "javascript": "/usr/lib/node_modules/npm"}
	for _, l := range readEvalLists(b) {
		if dir, err := l.checkout(); err == nil {
			roots[l.lang] = dir
		}
	}
	langs := Languages()
	sort.Strings(langs)
	for _, lang := range langs {
		if lang == "go" {
			continue
		}
		paths, srcs, total := languageCorpus(roots[lang], lang, 4<<20)
		name := lang + "/" + filepath.Base(roots[lang])
		if total == 0 {
			paths, srcs, total = nil, nil, 0
			for _, root := range fixtureRoots {
				p, s, n := languageCorpus(root, lang, 4<<20-total)
				paths, srcs, total = append(paths, p...), append(srcs, s...), total+n
			}
			name = lang + "/fixture"
		}
		b.Run(name, func(b *testing.B) {
			if total == 0 {
				b.Fatalf("no %s files on the machine nor in the fixtures", lang)
			}
			benchCorpus(b, paths, srcs, total)
		})
	}
}

// languageCorpus reads up to limit bytes of the files under root that parse
// as lang (a .h file as the language it is sniffed as), skipping .git and
// vendor; nothing when root is "" or absent.
func languageCorpus(root, lang string, limit int) (paths []string, srcs [][]byte, total int) {
	if root == "" {
		return nil, nil, 0
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || total >= limit {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "vendor" {
				return filepath.SkipDir
			}
			return nil
		}
		byExt := Language(p)
		if byExt != lang && !sniffs(byExt) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if sniffLanguage(byExt, p, src) != lang {
			return nil
		}
		paths, srcs, total = append(paths, p), append(srcs, src), total+len(src)
		return nil
	})
	return paths, srcs, total
}

// sniffs reports whether files of lang may turn out to be in another
// language (.h: C or C++).
func sniffs(lang string) bool {
	l := registered[lang]
	return l != nil && l.sniff != nil
}
