package parse

import (
	"path/filepath"
	"testing"
)

// TestRealWorldCorpora parses a few MB of real code found on the machine
// (Go standard library, Python standard library, npm) and checks the
// invariants on every file. Where a corpus is absent it skips, except under
// CI=true, where it fails (corpus).
func TestRealWorldCorpora(t *testing.T) {
	for _, c := range []struct{ root, ext string }{
		{filepath.Join(goRoot(), "src"), ".go"},
		{"/usr/lib/python3.11", ".py"},
		{"/usr/lib/node_modules/npm", ".js"},
	} {
		t.Run(c.ext, func(t *testing.T) {
			paths, srcs, total := corpus(t, c.root, c.ext, 2<<20)
			kinds := map[Kind]int{}
			partial := 0
			for i, src := range srcs {
				f, err := Parse(paths[i], src, Options{})
				if err != nil {
					t.Fatalf("%s: %v", paths[i], err)
				}
				checkInvariants(t, f, src)
				if f.Partial {
					partial++
				}
				for _, s := range f.Symbols {
					kinds[s.Kind]++
				}
			}
			t.Logf("%d files, %d bytes, %d partial; chunks by kind: %v", len(srcs), total, partial, kinds)
		})
	}
}
