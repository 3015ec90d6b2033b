package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// BenchmarkHighlightFile highlights a 4,073-line Go file (the standard
// library's net/http/server.go of go1.26), as the Symbol pane does once for a
// large symbol.
func BenchmarkHighlightFile(b *testing.B) {
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	h := NewHighlighter(termenv.TrueColor, true)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		h.Lines("server.go", "go", string(src))
	}
}
