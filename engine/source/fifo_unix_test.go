//go:build unix

package source

import (
	"syscall"
	"testing"
)

// mkfifo creates a named pipe and reports true.
func mkfifo(t *testing.T, path string) bool {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}
