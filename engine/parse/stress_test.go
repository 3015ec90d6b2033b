package parse

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStressMutations parses randomly mutated fixture files for a minute,
// checking the invariants and logging inputs that take over 200ms (written
// to the temp dir). It is opt-in:
//
//	SPELUNK_PARSE_STRESS=1 go test ./engine/parse -run TestStressMutations -v
func TestStressMutations(t *testing.T) {
	if os.Getenv("SPELUNK_PARSE_STRESS") == "" {
		t.Skip("set SPELUNK_PARSE_STRESS=1 to run")
	}
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
