package memcache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeaderCheck: the header check alone finds a cache file truncated or
// overwritten at its start, and passes a sound one and a new, empty one.
func TestHeaderCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.db")
	c, err := Open(t.Context(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := c.db().Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, fmt.Sprintf("k%d", i), strings.Repeat("x", 400)); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	sound, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := headerCheck(path); err != nil {
		t.Fatalf("sound file: %v", err)
	}
	for name, data := range map[string][]byte{
		"truncated": sound[:len(sound)/2],
		"garbage":   append([]byte("garbage!garbage!garbage!"), sound[24:]...),
	} {
		p := filepath.Join(dir, name+".db")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := headerCheck(p); !errors.Is(err, errDamaged) {
			t.Errorf("%s: %v, want errDamaged", name, err)
		}
	}
	if _, err := headerCheck(filepath.Join(dir, "new.db")); err != nil {
		t.Errorf("no file yet: %v", err)
	}
}
