//go:build unix && !linux

package source

import "testing"

// mkdev reports false: device numbers are encoded per platform, and only
// Linux's is tested here.
func mkdev(t *testing.T, path string) bool { return false }
