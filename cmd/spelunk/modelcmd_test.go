package main

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
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

// TestModelLearn fine-tunes the built-in model on a small repository through
// the CLI: the file it writes loads as another vector space, and a revision
// the repository lacks is an error that names it.
func TestModelLearn(t *testing.T) {
	repo := t.TempDir()
	runGit := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	runGit("init", "-q")
	src := "package shop\n\n// Refund returns the customer's money for an order cancelled before shipping.\n" +
		"func Refund(order int) error { return nil }\n\n// Reserve holds the stock of an order until the payment clears.\n" +
		"func Reserve(order int) error { return nil }\n"
	if err := os.WriteFile(filepath.Join(repo, "shop.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit("add", ".")
	runGit("commit", "-q", "-m", "refunds and reservations for cancelled orders")
	out := filepath.Join(t.TempDir(), "learned.bin")
	code, stdout, stderr := spelunk(t, "model", "learn", repo, "--out", out)
	if code != 0 || !strings.Contains(stdout, "spelunk-code-256d-v1-learned-") || !strings.Contains(stdout, "no pairs held out") {
		t.Fatalf("model learn: exit %d\n%s%s", code, stdout, stderr)
	}
	s, err := embed.LoadStaticFile(out)
	if err != nil {
		t.Fatal(err)
	}
	base, err := embed.LoadCode()
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() == base.Name() || s.Dims() != base.Dims() {
		t.Errorf("learned %s (%d dims) over %s (%d dims)", s.Name(), s.Dims(), base.Name(), base.Dims())
	}
	if code, _, stderr := spelunk(t, "model", "learn", repo, "--rev", "nosuchrev", "--out", out); code != 1 || !strings.Contains(stderr, "nosuchrev") {
		t.Errorf("an unknown revision: exit %d, %s", code, stderr)
	}
}
