package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestApplyRespectsGOMEMLIMIT(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOMEMLIMIT", "")
	Apply()
	if got := debug.SetMemoryLimit(-1); got != Default {
		t.Fatalf("limit %d after Apply, want %d", got, Default)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB") // the runtime read it at start; Apply must not override it
	Apply()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("limit %d after Apply with GOMEMLIMIT set, want it left alone", got)
	}
}
