package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// Every code tool's result says stale (and only then) when its file changed on
// disk since it was indexed; index_file makes it fresh again (issue 14).
func TestToolsSayStale(t *testing.T) {
	e := newEnv(t, false)
	cs := e.cs
	search := func() mcpserver.SearchCodeOut {
		return call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund"})
	}
	out := search()
	if len(out.Results) == 0 || hitPath(out.Results[0]) != "billing/refund.go" || out.Revision == "" {
		t.Fatalf("search_code: %+v", out.Results)
	}
	if raw := rawCall(t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund"}); strings.Contains(raw, `"stale"`) {
		t.Fatalf("nothing edited, yet the result names stale: %s", raw)
	}

	refund := filepath.Join(e.root, "billing", "refund.go")
	orig, err := os.ReadFile(refund)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(refund, append([]byte("// moved down a line\n"), orig...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range search().Results {
		if r.Stale != (hitPath(r) == "billing/refund.go") {
			t.Errorf("search_code after editing refund.go: %s %s stale %v", r.Lines, r.Name, r.Stale)
		}
	}
	files := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund", "granularity": "files"})
	for _, f := range files.Files {
		if files.Revision == "" || f.Stale != (f.Path == "billing/refund.go") {
			t.Errorf("search_code files: %s revision %q stale %v", f.Path, files.Revision, f.Stale)
		}
	}
	if got := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"name": "Invoice.IsEligibleForRefund"}); !got.Symbol.Stale {
		t.Errorf("read_symbol of an edited file: %+v", got.Symbol)
	}
	syms := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "Refund"})
	var some bool
	for _, s := range syms.Symbols {
		some = some || s.Stale
		if s.Stale != (s.Path == "billing/refund.go") {
			t.Errorf("search_symbols: %s %s stale %v", s.Path, s.Name, s.Stale)
		}
	}
	if !some {
		t.Errorf("search_symbols Refund: no result from refund.go: %+v", syms.Symbols)
	}
	walk := call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"name": "Invoice.IsEligibleForRefund"})
	if !walk.Symbol.Stale || len(walk.AllNodes()) == 0 {
		t.Errorf("find_callers: anchor %+v, %d nodes", walk.Symbol, len(walk.AllNodes()))
	}
	for _, n := range walk.AllNodes() {
		if n.Stale != (n.Path == "billing/refund.go") {
			t.Errorf("find_callers: %s %s stale %v", n.Path, n.QualifiedName, n.Stale)
		}
	}
	ctxOut := call[mcpserver.RetrieveContextOut](t, cs, "retrieve_context", map[string]any{"query": "IsEligibleForRefund", "budget": 2000})
	if len(ctxOut.Sources) == 0 || !ctxOut.Sources[0].Stale || !strings.Contains(ctxOut.Context, "stale: changed on disk since indexed") {
		t.Errorf("retrieve_context: %+v\n%s", ctxOut.Sources, ctxOut.Context)
	}

	idx := call[mcpserver.IndexFileOut](t, cs, "index_file", map[string]any{"path": "billing/refund.go"})
	if idx.Unchanged || idx.FilesIndexed == 0 {
		t.Errorf("index_file of a changed file: %+v", idx)
	}
	for _, r := range search().Results {
		if r.Stale {
			t.Errorf("after index_file: %s %s still stale", r.Lines, r.Name)
		}
	}
}

// rawCall returns a tool's output as JSON, as the client sees it.
func rawCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %v", name, err, res)
	}
	return resultText(res)
}
