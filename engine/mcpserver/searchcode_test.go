package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

func TestSearchCodeFiles(t *testing.T) {
	e := newEnv(t, false)
	cs := e.cs

	out := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund", "limit": 3, "granularity": "files"})
	if out.Granularity != "files" || len(out.Results) != 0 {
		t.Fatalf("granularity %q with %d definition results, want files and none", out.Granularity, len(out.Results))
	}
	if len(out.Files) == 0 || len(out.Files) > 3 {
		t.Fatalf("%d files, want 1 to 3 (limit 3)", len(out.Files))
	}
	if top := out.Files[0]; top.Path != "billing/refund.go" {
		t.Errorf("top file %s, want billing/refund.go (where IsEligibleForRefund is defined)", top.Path)
	}
	for i, f := range out.Files {
		if f.Score <= 0 || (i > 0 && f.Score > out.Files[i-1].Score) {
			t.Errorf("file %d: score %v (previous %v)", i, f.Score, out.Files[max(i-1, 0)].Score)
		}
		if len(f.Definitions) == 0 {
			t.Errorf("%s: no definitions listed", f.Path)
		}
		for j, d := range f.Definitions {
			if !strings.HasPrefix(d.Lines, f.Path+":") || d.Kind == "" || d.Name == "" || d.ID == 0 {
				t.Errorf("%s definition %d: %+v", f.Path, j, d)
			}
			if j > 0 && d.Score > f.Definitions[j-1].Score {
				t.Errorf("%s: definitions out of order: %+v", f.Path, f.Definitions)
			}
		}
	}
	// A listed definition's id reads it.
	best := out.Files[0].Definitions[0]
	rd := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"id": best.ID})
	if rd.Symbol.Lines != best.Lines {
		t.Errorf("read_symbol %d: %s, want %s", best.ID, rd.Symbol.Lines, best.Lines)
	}

	// symbols is the default, and may be asked for by name; case does not matter.
	sym := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund", "granularity": "symbols"})
	if sym.Granularity != "symbols" || len(sym.Results) == 0 || sym.Files != nil {
		t.Errorf("symbols: granularity %q, %d results, %d files", sym.Granularity, len(sym.Results), len(sym.Files))
	}
	if def := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund"}); def.Granularity != "symbols" {
		t.Errorf("default granularity %q, want symbols", def.Granularity)
	}
	call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "refund", "granularity": "files"})
	for _, bad := range []string{"dirs", "file", strings.Repeat("x", 5000)} {
		wantContains(t, "granularity "+bad[:min(len(bad), 8)], callErr(t, cs, "search_code", map[string]any{"query": "refund", "granularity": bad}),
			"granularity", "symbols", "files")
	}
	callErr(t, cs, "search_code", map[string]any{"query": "refund", "granularity": 3}) // not a string: schema validation
}
