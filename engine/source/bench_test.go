package source

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goSrcRepo copies $GOROOT/src (about 10k files) into a new git repository
// with one commit. It takes a few seconds, outside the timed loops.
func goSrcRepo(b *testing.B) string {
	b.Helper()
	src := filepath.Join(goRoot(), "src")
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		src = filepath.Join(string(trimNL(out)), "src")
	}
	if _, err := os.Stat(src); err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatalf("no Go source tree: %v", err)
		}
		b.Skipf("no Go source tree: %v", err)
	}
	dir := filepath.Join(realTempDir(b), "src")
	if out, err := exec.Command("cp", "-a", src, dir).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v\n%s", src, err, out)
	}
	gitT(b, dir, "init", "-q")
	gitT(b, dir, "add", "-A")
	gitT(b, dir, "commit", "-q", "-m", "go source")
	return dir
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// BenchmarkFiles lists the committed Go source tree: `git ls-tree` plus the
// classification of every blob's head through `git cat-file --batch`, first
// with the loose objects a fresh commit leaves, then packed as in a clone.
func BenchmarkFiles(b *testing.B) {
	dir := goSrcRepo(b)
	ctx := context.Background()
	run := func(b *testing.B) {
		r := openT(b, dir)
		var n int
		for b.Loop() {
			files, err := r.Files(ctx, Options{})
			if err != nil {
				b.Fatal(err)
			}
			n = len(files)
		}
		b.ReportMetric(float64(n), "files")
	}
	b.Run("loose", run)
	gitT(b, dir, "gc", "-q")
	b.Run("packed", run)
	// Nothing on disk to verify against: every head comes from git.
	dir = noCheckoutClone(b, dir)
	b.Run("packed-no-checkout", run)
}

// noCheckoutClone clones dir without a checkout, so every read goes to git.
func noCheckoutClone(b *testing.B, dir string) string {
	clone := filepath.Join(realTempDir(b), "clone")
	gitT(b, filepath.Dir(clone), "clone", "-q", "--no-checkout", "file://"+dir, clone)
	return clone
}

// BenchmarkWorkingTree lists and hashes the same tree from disk, through git
// and as a plain directory.
func BenchmarkWorkingTree(b *testing.B) {
	dir := goSrcRepo(b)
	ctx := context.Background()
	run := func(b *testing.B) {
		r := openT(b, dir)
		var n int
		for b.Loop() {
			files, err := r.WorkingTree(ctx, Options{})
			if err != nil {
				b.Fatal(err)
			}
			n = len(files)
		}
		b.ReportMetric(float64(n), "files")
	}
	b.Run("git", run)
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		b.Fatal(err)
	}
	b.Run("plain", run)
}

// BenchmarkRead reads every indexable committed file through Read, as the
// indexer does: from a clean checkout (verified by hash), then from git.
func BenchmarkRead(b *testing.B) {
	dir := goSrcRepo(b)
	gitT(b, dir, "gc", "-q")
	ctx := context.Background()
	run := func(b *testing.B) {
		r := openT(b, dir)
		files, err := r.Files(ctx, Options{})
		if err != nil {
			b.Fatal(err)
		}
		var bytes int64
		for b.Loop() {
			bytes = 0
			for _, f := range files {
				if f.Skip != "" {
					continue
				}
				data, err := r.Read(ctx, f, r.Head)
				if err != nil {
					b.Fatal(err)
				}
				bytes += int64(len(data))
			}
		}
		b.SetBytes(bytes)
	}
	b.Run("checkout", run)
	dir = noCheckoutClone(b, dir)
	b.Run("cat-file", run)
}

// goRoot is the Go toolchain's root (its src tree is the benchmark corpus).
func goRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
