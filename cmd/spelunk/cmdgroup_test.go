package main

import (
	"strings"
	"testing"
)

// TestCmdGroupUnknown: every group built with cmdGroup refuses a word that is no
// sub-command with exit 2 and the same message, naming its visible sub-commands
// in the order of its help (hooks' hidden run is not named); run bare, a group
// prints its help and exits 0. None of this opens a database.
func TestCmdGroupUnknown(t *testing.T) {
	for _, tt := range []struct{ group, names string }{
		{"memory", "add, list, show, search, supersede, invalidate, review"},
		{"nugget", "set, get, list, history"},
		{"state", "set, show"},
		{"conflicts", "list, show, resolve, undo"},
		{"sync", "status, now"},
		{"hooks", "install, uninstall, status"},
		{"db", "status, start, stop, url, distribute"},
	} {
		t.Run(tt.group, func(t *testing.T) {
			code, out, errOut := spelunk(t, tt.group, "frob")
			want := `unknown ` + tt.group + ` command "frob" (` + tt.names + `)`
			if code != 2 || out != "" || !strings.Contains(errOut, want) {
				t.Fatalf("%s frob: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.group, code, out, errOut, want)
			}
			code, out, _ = spelunk(t, tt.group)
			if code != 0 || !strings.Contains(out, "Available Commands:") {
				t.Fatalf("%s bare: exit %d, stdout %q; want its help", tt.group, code, out)
			}
		})
	}
}
