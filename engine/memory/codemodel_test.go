package memory_test

import (
	"errors"
	"os"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// codeModel returns the code embedding model the labelled-pair tests measure:
// the file $SPELUNK_CODE_MODEL names (a trainer's candidate), else the one
// built into the binary. Without either the caller measures the other
// embedders only (ok false), except under CI=true when the tree holds the
// packed model (engine/embed/model/spelunk-code.bin): then the build should
// have embedded it, and its absence is a failure.
func codeModel(t *testing.T) (*embed.Static, bool) {
	t.Helper()
	if p := os.Getenv("SPELUNK_CODE_MODEL"); p != "" {
		s, err := embed.LoadStaticFile(p)
		if err != nil {
			t.Fatalf("SPELUNK_CODE_MODEL: %v", err)
		}
		return s, true
	}
	s, err := embed.LoadCode()
	switch {
	case err == nil:
		return s, true
	case !errors.Is(err, embed.ErrNoCodeModel):
		t.Fatal(err)
	}
	if os.Getenv("CI") == "true" {
		if _, statErr := os.Stat("../embed/model/spelunk-code.bin"); statErr == nil {
			t.Fatalf("CI: engine/embed/model/spelunk-code.bin is in the tree but not in the build: %v", err)
		}
	}
	t.Logf("no code model (%v; set SPELUNK_CODE_MODEL to measure a candidate)", err)
	return nil, false
}
