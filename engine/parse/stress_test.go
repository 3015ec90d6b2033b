//go:build stress

// Mutation stress runs, minutes long, opt-in by build tag so that make test
// never lists (and skips) them: go test -tags stress ./engine/parse -v

package parse

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStressMutations parses randomly mutated fixture files for a minute,
// checking the invariants and logging inputs that take over 200ms (written
// to the temp dir). It is opt-in:
//
//	go test -tags stress ./engine/parse -run TestStressMutations -v
func TestStressMutations(t *testing.T) {
	var seeds [][]byte
	filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			seeds = append(seeds, b)
		}
		return nil
	})
	paths := []string{"a.go", "a.py", "a.js", "a.ts", "a.tsx", "a.md"}
	r := rand.New(rand.NewSource(1))
	deadline := time.Now().Add(60 * time.Second)
	n := 0
	for time.Now().Before(deadline) {
		src := append([]byte(nil), seeds[r.Intn(len(seeds))]...)
		for k := r.Intn(20); k >= 0; k-- {
			if len(src) == 0 {
				break
			}
			i := r.Intn(len(src))
			switch r.Intn(4) {
			case 0:
				src[i] = byte(r.Intn(128))
			case 1:
				src = append(src[:i], src[min(len(src), i+r.Intn(50)):]...)
			case 2:
				j := r.Intn(len(src))
				a, b := min(i, j), max(i, j)
				src = append(src[:i], append(append([]byte(nil), src[a:b]...), src[i:]...)...)
			case 3:
				src = append(src[:i], append([]byte("({[\"'`/*"[r.Intn(8):][:1]), src[i:]...)...)
			}
		}
		p := paths[r.Intn(len(paths))]
		start := time.Now()
		f, err := Parse(p, src, Options{MaxSymbolBytes: 256})
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, f, src)
		n++
		if d := time.Since(start); d > 200*time.Millisecond {
			_ = os.WriteFile(filepath.Join(os.TempDir(), "spelunk-slow-"+p), src, 0o644)
			t.Logf("slow: %s %d bytes %v", p, len(src), d)
		}
	}
	t.Logf("%d parses", n)
}

// TestStressMutationsRust is TestStressMutations for the Rust inputs, with
// Rust's own brackets among the mutations; opt-in the same way:
//
//	go test -tags stress ./engine/parse -run TestStressMutationsRust -v
func TestStressMutationsRust(t *testing.T) {
	var seeds [][]byte
	_ = filepath.WalkDir(filepath.Join(languagesDir, "rust"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".rs") {
			b, _ := os.ReadFile(p)
			seeds = append(seeds, b)
		}
		return nil
	})
	r := rand.New(rand.NewSource(2))
	deadline := time.Now().Add(60 * time.Second)
	n := 0
	for time.Now().Before(deadline) {
		src := append([]byte(nil), seeds[r.Intn(len(seeds))]...)
		for k := r.Intn(20); k >= 0 && len(src) > 0; k-- {
			i := r.Intn(len(src))
			switch r.Intn(3) {
			case 0:
				src = append(src[:i], src[min(len(src), i+r.Intn(50)):]...)
			case 1:
				j := r.Intn(len(src))
				a, b := min(i, j), max(i, j)
				src = append(src[:i], append(append([]byte(nil), src[a:b]...), src[i:]...)...)
			case 2:
				src = append(src[:i], append([]byte(`({[<"'#!|`[r.Intn(9):][:1]), src[i:]...)...)
			}
		}
		start := time.Now()
		f, err := Parse("src/a.rs", src, Options{MaxSymbolBytes: 256})
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, f, src)
		n++
		if d := time.Since(start); d > 200*time.Millisecond {
			_ = os.WriteFile(filepath.Join(os.TempDir(), fmt.Sprintf("spelunk-slow-%d.rs", n)), src, 0o644)
			t.Logf("slow: %d bytes %v", len(src), d)
		}
	}
	t.Logf("%d parses", n)
}

// TestStressJVM is TestStressMutations for the Java and C# fixtures, opt-in
// the same way, for half a minute per language:
//
//	go test -tags stress ./engine/parse -run TestStressJVM -v
func TestStressJVM(t *testing.T) {
	inserts := []string{"", "{", "}", "\n#if X\n", "\n#else\n", "\"", "/*", "<", "(", "@"}
	for _, dir := range []string{"java", "csharp"} {
		var seeds [][]byte
		var exts []string
		_ = filepath.WalkDir(filepath.Join(fixtureDir, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				seeds, exts = append(seeds, b), append(exts, filepath.Ext(p))
			}
			return nil
		})
		r := rand.New(rand.NewSource(1))
		n := 0
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); n++ {
			k := r.Intn(len(seeds))
			src := seeds[k]
			i := r.Intn(len(src) + 1)
			j := min(len(src), i+r.Intn(60))
			m := string(src[:i]) + inserts[r.Intn(len(inserts))] + string(src[j:])
			start := time.Now()
			f, err := Parse("a"+exts[k], []byte(m), Options{MaxSymbolBytes: 256})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, f, []byte(m))
			if d := time.Since(start); d > time.Second {
				t.Logf("slow: %v for %d bytes", d, len(m))
			}
		}
		t.Logf("%s: %d parses", dir, n)
	}
}
