package model_test

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/embed/model"
)

// maxShippedBytes bounds the packed model the binary carries.
const maxShippedBytes = 32 << 20

// TestShippedModel checks the code model this build embeds, when there is one:
// its checksum (LoadCode skips it), its size and its name. Without one, the
// build must say so rather than fail.
func TestShippedModel(t *testing.T) {
	_, statErr := os.Stat(model.File)
	r, size, ok := model.Code()
	if ok != (statErr == nil) {
		t.Fatalf("Code() ok = %v, but %s on disk: %v", ok, model.File, statErr)
	}
	if !ok {
		if _, err := embed.LoadCode(); !errors.Is(err, embed.ErrNoCodeModel) {
			t.Errorf("LoadCode() without a model: err = %v, want ErrNoCodeModel", err)
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not in this build: the tree ships one, CI must test it", model.File)
		}
		t.Skipf("%s not in this build", model.File)
	}
	if size > maxShippedBytes {
		t.Errorf("%s is %d bytes, over the %d budget", model.File, size, maxShippedBytes)
	}
	b, err := io.ReadAll(io.NewSectionReader(r, 0, size))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := embed.LoadStatic(b); err != nil { // checks the CRC
		t.Fatalf("the shipped model: %v", err)
	}
	s, err := embed.LoadCode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Name(), "spelunk-code-") {
		t.Errorf("shipped model name %q, want spelunk-code-...", s.Name())
	}
}
