package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// TestModelPack packs a three-token table through the CLI, loads the result
// and checks doctor's description of it.
func TestModelPack(t *testing.T) {
	dir := t.TempDir()
	var vec []byte
	for _, x := range []float32{1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0.5, 0.5} {
		vec = binary.LittleEndian.AppendUint32(vec, math.Float32bits(x))
	}
	files := map[string]string{
		"vocab.txt":   "refund\ncustomer\nparse\n",
		"vectors.f32": string(vec),
		"meta.json":   `{"name":"spelunk-code-4d-test","dims":4,"teacher":"t","source":"s","hash_dims":8,"unknown_weight":0.5}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "code.bin")
	code, stdout, stderr := spelunk(t, "model", "pack", dir, out)
	if code != 0 || !strings.Contains(stdout, "spelunk-code-4d-test, 3 tokens × 4 dims") || !strings.Contains(stdout, "mean cosine 1.000000") {
		t.Fatalf("model pack: exit %d\n%s%s", code, stdout, stderr)
	}
	s, err := embed.LoadStaticFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describeEmbedder(s), s.Name()+" (12 dims): static code model, 3 tokens × 4 dims + 8 hashed, distilled from t"; got != want || !strings.HasPrefix(s.Name(), "spelunk-code-4d-test-") {
		t.Errorf("describeEmbedder = %q, want %q", got, want)
	}
	if code, _, stderr := spelunk(t, "model", "pack", dir); code != 2 || !strings.Contains(stderr, "takes 2 argument(s)") {
		t.Errorf("model pack with one argument: exit %d, %s", code, stderr)
	}
}
