// Package memlimit bounds a spelunk process's memory: a soft limit for the Go
// runtime, so that the collector works harder as the heap nears it instead of
// letting it grow to twice what is live.
package memlimit

import (
	"os"
	"runtime/debug"
)

// Default is the Go runtime's soft limit. A first index of all of $GOROOT/src
// peaked at 340 MiB RSS without one and 276 MiB with it (the rest of RSS is
// tree-sitter's C memory and the mapped embedder data), at no measurable CPU
// cost; issue 13 asks for < 300 MiB on any repository size.
const Default = 200 << 20

// Apply sets the limit unless GOMEMLIMIT already set one (the runtime reads the
// variable itself). Past the limit the runtime caps the collector's CPU rather
// than fail, so a repository whose live heap needs more still indexes.
func Apply() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(Default)
	}
}
