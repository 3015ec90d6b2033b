package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes a CPU profile of the whole process to the file
// $SPELUNK_CPUPROFILE names, for the engineers who profile a run
// (docs/BENCHMARKS.md); the returned function ends it. Unset, it does nothing.
func startCPUProfile() (stop func(), err error) {
	path := os.Getenv("SPELUNK_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("SPELUNK_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("SPELUNK_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "spelunk: SPELUNK_CPUPROFILE:", err)
		}
	}, nil
}
