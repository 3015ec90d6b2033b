package pairs

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spelunkhq/spelunk/engine/parse"
	"github.com/spelunkhq/spelunk/engine/source"
)

// maxCode is the cap on a pair's code, in bytes.
const maxCode = 2000

// srcFile is one parsed source file of a repository.
type srcFile struct {
	path string // slash-separated, relative to the repository
	lang string
	test bool // a test file by its path
	f    *parse.File
}

// def is one definition: a chunk that a query may point at.
type def struct {
	file *srcFile
	idx  int // index in file.f.Symbols
}

func (d def) sym() *parse.Symbol { return &d.file.f.Symbols[d.idx] }

// repo is one directory's parsed code and its definitions by name.
type repo struct {
	name   string
	dir    string
	files  []*srcFile
	byName map[string][]def // non-test definitions
	docs   []string         // Markdown files, relative paths
	gitDir string           // where the history is read ("": none)
	rev    string           // the newest commit of the history read
}

// codeLangs are the languages the miner reads.
var codeLangs = map[string]bool{
	"go": true, "python": true, "javascript": true, "typescript": true, "tsx": true,
	"rust": true, "java": true,
}

// defKinds are the chunk kinds a pair's code may be.
var defKinds = map[parse.Kind]bool{
	parse.KindFunction: true, parse.KindMethod: true, parse.KindClass: true, parse.KindStruct: true,
	parse.KindInterface: true, parse.KindType: true, parse.KindEnum: true,
}

// skipDirs are directory names never walked.
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, "vendor": true, "third_party": true, "testdata": true,
	"__pycache__": true, "dist-types": true, ".hg": true, ".svn": true,
	// Third-party packages installed beside a Python standard library are not
	// the library, and may be packages the corpus excludes.
	"site-packages": true, "dist-packages": true,
}

// loadRepo walks dir and parses its code files with par workers.
func loadRepo(ctx context.Context, name, dir string, par int) (*repo, error) {
	r := &repo{name: name, dir: dir, byName: map[string][]def{}}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable entry is skipped, not fatal
		}
		if e.IsDir() {
			if p != dir && (skipDirs[e.Name()] || strings.HasPrefix(e.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		rel := filepath.ToSlash(mustRel(dir, p))
		if isMarkdown(rel) {
			r.docs = append(r.docs, rel)
		} else if codeLangs[parse.Language(rel)] {
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", dir, err)
	}
	r.files = parseAll(ctx, dir, paths, par)
	for _, f := range r.files {
		for i, s := range f.f.Symbols {
			if defKinds[s.Kind] && !f.test && !isTestDef(f, i) {
				r.byName[s.Name] = append(r.byName[s.Name], def{f, i})
			}
		}
	}
	return r, nil
}

func mustRel(base, p string) string {
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return rel
}

// parseAll parses paths under dir with par workers, in path order; files
// that cannot be read, are skipped by source.Classify or fail to parse are
// left out.
func parseAll(ctx context.Context, dir string, paths []string, par int) []*srcFile {
	out := make([]*srcFile, len(paths))
	ch := make(chan int)
	var wg sync.WaitGroup
	for range max(par, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				out[i] = parseOne(dir, paths[i])
			}
		}()
	}
	for i := range paths {
		if ctx.Err() != nil {
			break
		}
		ch <- i
	}
	close(ch)
	wg.Wait()
	var files []*srcFile
	for _, f := range out {
		if f != nil {
			files = append(files, f)
		}
	}
	return files
}

func parseOne(dir, rel string) *srcFile {
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	if source.Classify(rel, src[:min(len(src), source.SniffLen)], int64(len(src)), source.Options{}) != "" {
		return nil
	}
	return parseSource(rel, src)
}

// parseSource parses one file's bytes; nil when it is not code.
func parseSource(rel string, src []byte) *srcFile {
	f, err := parse.Parse(rel, src, parse.Options{})
	if err != nil || !codeLangs[f.Language] {
		return nil
	}
	return &srcFile{path: rel, lang: f.Language, test: isTestPath(rel), f: f}
}

// isTestPath reports whether a file is a test file by its path.
func isTestPath(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(base, "_test.py"), base == "conftest.py",
		strings.Contains(base, ".test."), strings.Contains(base, ".spec."),
		strings.HasSuffix(base, "Test.java"), strings.HasSuffix(base, "Tests.java"):
		return true
	}
	for _, d := range strings.Split(p, "/") {
		if d == "tests" || d == "test" || d == "__tests__" || d == "spec" {
			return true
		}
	}
	return false
}

func isMarkdown(p string) bool {
	low := strings.ToLower(p)
	return strings.HasSuffix(low, ".md") || strings.HasSuffix(low, ".markdown")
}

// resolve returns the one definition named name, or false when there is
// none or more than one.
func (r *repo) resolve(name string) (def, bool) {
	ds := r.byName[name]
	if len(ds) != 1 {
		return def{}, false
	}
	return ds[0], true
}
