package parse

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// corpus reads up to limit bytes of files with extension ext under root,
// skipping testdata and vendor directories, in walk order.
func corpus(tb testing.TB, root, ext string, limit int) (paths []string, srcs [][]byte, total int) {
	tb.Helper()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || total >= limit {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "vendor" || n == "test" || n == "tests" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ext) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		paths = append(paths, p)
		srcs = append(srcs, b)
		total += len(b)
		return nil
	})
	if total == 0 {
		// Under CI a corpus the machine should have is a failure, not a skip:
		// CI must not pass by skipping what it was meant to check.
		if os.Getenv("CI") == "true" {
			tb.Fatalf("no %s files under %s (CI=true, so this fails)", ext, root)
		}
		tb.Skipf("no %s files under %s", ext, root)
	}
	return paths, srcs, total
}

// cpuTime is the process's user+system CPU time: on a shared machine it
// measures the work done, where wall time also measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchCorpus(b *testing.B, paths []string, srcs [][]byte, total int) {
	// Load the grammar and compile its queries first (about 0.1 CPU-s, once
	// per process): on a corpus of a few fixture files it was most of the time.
	if _, err := Parse(paths[0], srcs[0], Options{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		for i, src := range srcs {
			if _, err := Parse(paths[i], src, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(total)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// BenchmarkParse measures parse+chunk throughput on one goroutine over 4 MB
// of the Go standard library. MB/s is wall time; MB/cpu-s divides by the
// process's CPU time (GC included), which stays meaningful when other work
// shares the machine.
func BenchmarkParse(b *testing.B) {
	paths, srcs, total := corpus(b, filepath.Join(goRoot(), "src"), ".go", 4<<20)
	benchCorpus(b, paths, srcs, total)
}

// goRoot is the Go toolchain's root (its src tree is the benchmark corpus).
func goRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
