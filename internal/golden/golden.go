// Package golden compares test output with a checked-in golden file and, when
// asked, rewrites the file: the one mechanism behind the ranking goldens
// (engine/eval) and the screen goldens (tui).
package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// Check compares got with the file at path. With update it writes got there
// instead. A mismatch fails the test with a unified diff (want → got) and the
// command that rewrites the file, regenerate, so that the reviewer reads what
// moved rather than two whole files.
func Check(t testing.TB, path, got string, update bool, regenerate string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it)", err, regenerate)
	}
	if got == string(want) {
		return
	}
	t.Errorf("%s differs from the output (%s rewrites it; review the diff first):\n%s",
		path, regenerate, udiff.Unified(path, "got", string(want), got))
}
