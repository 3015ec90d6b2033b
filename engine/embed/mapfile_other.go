//go:build !unix

package embed

import "os"

// readFileShared reads path (mapping it is done only on unix systems).
func readFileShared(path string) ([]byte, error) { return os.ReadFile(path) }
