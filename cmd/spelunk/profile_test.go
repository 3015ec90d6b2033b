package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfileOfTheProcess: SPELUNK_CPUPROFILE=FILE leaves a CPU profile
// (pprof's format: a gzipped protocol buffer, whole once the command ends); a file that cannot be created is an error naming the variable,
// before the command runs.
func TestCPUProfileOfTheProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv("SPELUNK_CPUPROFILE", path)
	if code, _, stderr := spelunk(t, "--help"); code != 0 {
		t.Fatalf("spelunk --help with a profile: exit %d: %s", code, stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzipped: %v", err)
	}
	if body, err := io.ReadAll(zr); err != nil || len(body) == 0 {
		t.Fatalf("the profile: %d bytes, %v", len(body), err)
	}

	t.Setenv("SPELUNK_CPUPROFILE", filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.prof"))
	code, _, stderr := spelunk(t, "--help")
	if code != 1 || !strings.Contains(stderr, "SPELUNK_CPUPROFILE") {
		t.Fatalf("an unwritable profile: exit %d, stderr %q; want 1 naming SPELUNK_CPUPROFILE", code, stderr)
	}
}
