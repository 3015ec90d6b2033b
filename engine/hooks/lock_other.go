//go:build !unix

package hooks

import "os"

// lockFile without flock: every caller gets the "lock" (see Coalesce).
func lockFile(p string, _ bool) (*os.File, error) {
	return os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
}

// Detach does nothing where there are no sessions.
func Detach() {}
