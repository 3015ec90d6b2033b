package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseC measures parse+chunk throughput on C and C++: up to 4 MB of
// the evaluation repositories (testdata/eval/languages) when they are cloned
// under SPELUNK_REAL_REPOS (default /work/repos), else of the system headers.
func BenchmarkParseC(b *testing.B) {
	repos := os.Getenv("SPELUNK_REAL_REPOS")
	if repos == "" {
		repos = "/work/repos"
	}
	for _, c := range []struct{ name, root, ext, fallback string }{
		{"c", filepath.Join(repos, "redis", "src"), ".c", "/usr/include"},
		{"cpp", filepath.Join(repos, "leveldb"), ".cc", "/usr/include/c++"},
	} {
		b.Run(c.name, func(b *testing.B) {
			root, ext := c.root, c.ext
			if _, err := os.Stat(root); err != nil {
				root, ext = c.fallback, ".h"
			}
			paths, srcs, total := corpus(b, root, ext, 4<<20)
			benchCorpus(b, paths, srcs, total)
		})
	}
}
