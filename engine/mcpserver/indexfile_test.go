package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// TestIndexFileSummary (issue 38: index_file on an unchanged file returned all
// its symbols, 16,846 characters): the answer is counts and what changed, short
// for an unchanged file.
func TestIndexFileSummary(t *testing.T) {
	e := newEnv(t, false)
	s := newRawSession(t, e.srv, 1<<20)
	s.send(initLine)
	s.wantResult("initialize", "1")
	s.send(initDone)
	text := toolWire(t, s, "2", "index_file", map[string]any{"path": "billing/refund.go"})
	t.Logf("unchanged: %d characters: %s", len(text), text)
	var out mcpserver.IndexFileOut
	decode(t, text, &out)
	if !out.Unchanged || out.FilesIndexed != 0 || out.Symbols == 0 || len(text) > 200 {
		t.Errorf("index_file of an unchanged file: %d characters, want a short summary: %s", len(text), text)
	}

	// An edit: one definition changed, one added, one removed, the rest moved.
	p := filepath.Join(e.root, "billing", "refund.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "func IssueRefund(", "// Added is new.\nfunc Added() int { return 1 }\n\nfunc IssueRefund(", 1)
	if edited == string(src) {
		t.Fatal("fixture: no IssueRefund to edit")
	}
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	text = toolWire(t, s, "3", "index_file", map[string]any{"path": "billing/refund.go"})
	t.Logf("edited: %d characters: %s", len(text), text)
	out = mcpserver.IndexFileOut{}
	decode(t, text, &out)
	if out.Unchanged || out.FilesIndexed != 1 || len(out.Added) != 1 || !strings.HasSuffix(out.Added[0].Name, "Added") || out.Added[0].ID == 0 {
		t.Errorf("index_file after adding a function: %s", text)
	}
	if out.Moved == 0 {
		t.Errorf("the definitions below the insertion moved: %s", text)
	}
}

func decode(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("decode %s: %v", text, err)
	}
}
