//go:build !unix

package source

import "testing"

// mkfifo reports false: this platform has no named pipes.
func mkfifo(t *testing.T, path string) bool { return false }
