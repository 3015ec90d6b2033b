package main

import (
	"strings"
	"testing"
)

// spelunk index /proc is refused before any database work, with the way out
// (issue 11.4: it used to hang on /proc/kmsg, deaf to SIGINT).
func TestIndexRefusesSystemDirectories(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	for _, dir := range []string{"/proc", "/sys", "/dev", "/proc/self", "/"} {
		code, _, errOut := spelunk(t, "index", dir)
		if code != 1 || !strings.Contains(errOut, "refusing to index") || !strings.Contains(errOut, "--force") {
			t.Errorf("spelunk index %s: exit %d, %q; want exit 1 refusing, naming --force", dir, code, errOut)
		}
	}
}
