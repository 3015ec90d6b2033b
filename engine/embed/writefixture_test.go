//go:build devtools

// The fixture writer is built only with -tags devtools, so that make test
// never lists (and skips) it.

package embed

import (
	"os"
	"testing"
)

// TestWriteWinkFixture regenerates testdata/embed/wink-mini.tgz (-tags devtools):
//
//	go test -tags devtools ./engine/embed -run TestWriteWinkFixture
func TestWriteWinkFixture(t *testing.T) {
	b, _ := buildWinkFixture()
	if err := os.WriteFile(fixtureTGZ, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
