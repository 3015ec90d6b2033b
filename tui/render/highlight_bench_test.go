package render

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/muesli/termenv"
)

// BenchmarkHighlightFile highlights a 2,000-line Go file (the standard
// library's net/http/server.go, or this package's files when absent), as the
// Symbol pane does once for a large symbol.
func BenchmarkHighlightFile(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip("no GOROOT sources")
	}
	h := NewHighlighter(termenv.TrueColor, true)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		h.Lines("server.go", "go", string(src))
	}
}
