package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// env is a server bound to an indexed fixture, with a connected in-process client.
type env struct {
	url    string
	db     *pg.DB
	root   string
	repoID int64
	srv    *mcpserver.Server
	cs     *mcp.ClientSession
}

func newEnv(t *testing.T, allowResolve bool) *env {
	t.Helper()
	ctx := context.Background()
	url := pgtest.URL(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	root := indextest.Repo(t)
	emb := indextest.Embedder()
	sum, err := index.New(db, emb).Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatalf("index fixture: %v", err)
	}
	srv := mcpserver.New(mcpserver.Config{DB: db, Root: root, RepoID: sum.RepositoryID, Tenant: pg.DefaultTenant,
		Embedder: emb, AllowResolve: allowResolve})
	return &env{url: url, db: db, root: root, repoID: sum.RepositoryID, srv: srv, cs: connect(t, srv)}
}

func connect(t testing.TB, srv *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls a tool that must succeed and decodes its structured output.
func call[Out any](t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) Out {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, resultText(res))
	}
	if res.StructuredContent != nil {
		t.Fatalf("%s: structuredContent repeats the text block", name)
	}
	raw := []byte(resultText(res))
	var out Out
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, raw, err)
	}
	return out
}

// callErr calls a tool that must fail with a tool error (never a protocol error)
// and returns the message.
func callErr(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v, want a tool error", name, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s(%v): succeeded, want a tool error: %s", name, args, resultText(res))
	}
	return resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func wantContains(t testing.TB, what, got string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("%s: %q lacks %q", what, got, s)
		}
	}
}

var allTools = []string{"search_code", "search_symbols", "read_symbol", "find_callers", "find_callees", "find_imports",
	"index_file", "retrieve_context", "remember", "recall", "briefing", "supersede_memory", "invalidate_memory",
	"set_nugget", "list_conflicts"} // resolve_conflict only with AllowResolve

func TestListTools(t *testing.T) {
	cs := connect(t, mcpserver.New(mcpserver.Config{}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		got[tl.Name] = tl
		if tl.Description == "" || strings.Contains(tl.Description, "\n") {
			t.Errorf("%s: description must be one line: %q", tl.Name, tl.Description)
		}
		if tl.InputSchema == nil || tl.OutputSchema != nil {
			t.Errorf("%s: an input schema is required, an output schema not served (it costs every turn)", tl.Name)
		}
		var in struct {
			Properties map[string]any `json:"properties"`
		}
		if raw, err := json.Marshal(tl.InputSchema); err != nil || json.Unmarshal(raw, &in) != nil || in.Properties["repository"] == nil {
			t.Errorf("%s: no repository argument: %s", tl.Name, raw)
		}
	}
	for _, name := range allTools {
		if got[name] == nil {
			t.Errorf("tool %s missing", name)
		}
	}
	if len(res.Tools) != len(allTools) {
		t.Errorf("%d tools listed, want %d", len(res.Tools), len(allTools))
	}
}

func TestCodeTools(t *testing.T) {
	e := newEnv(t, false)
	cs := e.cs

	t.Run("search_code", func(t *testing.T) {
		out := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund", "limit": 5})
		if len(out.Results) == 0 || baseName(out.Results[0].Name) != "IsEligibleForRefund" {
			t.Fatalf("top result: %+v", out.Results)
		}
		r := out.Results[0]
		if hitPath(r) != "billing/refund.go" || !regexp.MustCompile(`^billing/refund.go:[0-9]+-[0-9]+$`).MatchString(r.Lines) {
			t.Errorf("path:lines %q", r.Lines)
		}
		if r.Explain != nil || !strings.Contains(r.Why, "exact name") || !strings.Contains(r.Why, "symbol#1") || r.Kind != "method" {
			t.Errorf("compact hit: %+v", r)
		}
		ex := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "IsEligibleForRefund", "limit": 5, "detail": "explain"})
		if r := ex.Results[0].Explain; r == nil || r.Channels["symbol"].Rank != 1 || r.Final <= 0 {
			t.Errorf("explain: %+v", r)
		}
		if len(out.Results) > 5 {
			t.Errorf("limit 5, got %d", len(out.Results))
		}
		out = call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "can an invoice still be refunded", "channels": []string{"lexical"}})
		if len(out.Results) == 0 {
			t.Error("lexical-only question: no results")
		}
		wantContains(t, "empty query", callErr(t, cs, "search_code", map[string]any{"query": "   "}), "query is required")
		wantContains(t, "punctuation", callErr(t, cs, "search_code", map[string]any{"query": "?!"}), "nothing searchable")
		wantContains(t, "huge", callErr(t, cs, "search_code", map[string]any{"query": strings.Repeat("refund ", 3000)}), "limit is 16384")
		wantContains(t, "limit", callErr(t, cs, "search_code", map[string]any{"query": "x", "limit": 1000}), "between 1 and 100")
		wantContains(t, "channel", callErr(t, cs, "search_code", map[string]any{"query": "x", "channels": []string{"psychic"}}), "does not equal any of")
		callErr(t, cs, "search_code", map[string]any{"limit": 3}) // query missing: schema validation
	})

	t.Run("search_symbols", func(t *testing.T) {
		out := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "refund"})
		names := map[string]bool{}
		for _, s := range out.Symbols {
			names[s.Name] = true
		}
		for _, want := range []string{"IsEligibleForRefund", "IssueRefund", "PartialRefundCents"} {
			if !names[want] {
				t.Errorf("substring refund: %s missing from %v", want, names)
			}
		}
		out = call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "Add", "kind": "method", "path": "cart/"})
		if len(out.Symbols) == 0 {
			t.Fatal("Add methods under cart/: none")
		}
		for _, s := range out.Symbols {
			if s.Kind != "method" || !strings.HasPrefix(s.Path, "cart/") {
				t.Errorf("filter leaked %+v", s)
			}
		}
		out = call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "e", "limit": 2})
		if len(out.Symbols) != 2 || !out.Truncated {
			t.Errorf("limit 2: %d truncated=%v", len(out.Symbols), out.Truncated)
		}
		wantContains(t, "traversal", callErr(t, cs, "search_symbols", map[string]any{"query": "x", "path": "../other"}), "traversal")
		if out := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "%_"}); len(out.Symbols) != 0 {
			t.Errorf("LIKE wildcards are literal: %%_ matched %+v", out.Symbols)
		}
	})

	t.Run("read_symbol", func(t *testing.T) {
		out := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"name": "Invoice.IsEligibleForRefund"})
		if out.Symbol.Name != "IsEligibleForRefund" || !strings.Contains(out.Content, "func (inv *Invoice) IsEligibleForRefund") {
			t.Fatalf("by qualified name: %+v", out)
		}
		byID := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"id": out.Symbol.ID})
		if byID.Content != out.Content {
			t.Error("by id: other content")
		}
		// A line range inside the symbol: just those lines.
		start := out.Symbol.StartLine + 2
		part := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"path": "billing/refund.go", "start_line": start, "end_line": start + 1})
		if part.FromLine != start || part.ToLine != start+1 || strings.Count(part.Content, "\n") != 2 {
			t.Errorf("range %d-%d: got %d-%d %q", start, start+1, part.FromLine, part.ToLine, part.Content)
		}
		abs := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"path": filepath.Join(e.root, "billing/refund.go"), "start_line": start})
		if abs.Symbol.ID != out.Symbol.ID {
			t.Errorf("absolute path inside the repo: %+v", abs.Symbol)
		}
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"name": "NoSuchThing"}, "unknown symbol"},
			{map[string]any{"id": 99999999}, "unknown symbol id"},
			{map[string]any{"id": -1}, "positive"},
			{map[string]any{}, "give id, name, or path"},
			{map[string]any{"path": "billing/refund.go", "start_line": 0}, "start_line"},
			{map[string]any{"path": "billing/refund.go", "start_line": 20, "end_line": 10}, "bad line range"},
			{map[string]any{"path": "billing/refund.go", "start_line": 1, "end_line": 100000}, "limit is 2000"},
			{map[string]any{"path": "billing/refund.go", "start_line": 99999}, "no indexed symbol covers"},
			{map[string]any{"path": "../../etc/passwd", "start_line": 1}, "traversal"},
			{map[string]any{"path": "billing/../../etc/passwd", "start_line": 1}, "traversal"},
			{map[string]any{"path": "/etc/passwd", "start_line": 1}, "outside the repository"},
			{map[string]any{"path": "billing/refund.go\x00", "start_line": 1}, "NUL"},
			{map[string]any{"name": strings.Repeat("a", 5000)}, "limit is 512"},
		} {
			wantContains(t, "read_symbol", callErr(t, cs, "read_symbol", c.args), c.want)
		}
	})

	t.Run("read_symbol caps size", func(t *testing.T) {
		// A large symbol, committed and indexed: read_symbol returns at most 32 KiB.
		var b strings.Builder
		b.WriteString("package big\n\nfunc Huge() int {\n\tx := 0\n")
		for b.Len() < 200<<10 {
			b.WriteString("\tx += 1 // padding padding padding padding padding padding\n")
		}
		b.WriteString("\treturn x\n}\n")
		writeFile(t, e.root, "big/huge.go", b.String())
		call[mcpserver.IndexFileOut](t, cs, "index_file", map[string]any{"path": "big/huge.go"})
		out := call[mcpserver.ReadSymbolOut](t, cs, "read_symbol", map[string]any{"path": "big/huge.go", "start_line": 3})
		if len(out.Content) > 32<<10 {
			t.Errorf("content %d bytes, want <= 32 KiB", len(out.Content))
		}
		if !out.Truncated || !strings.Contains(out.Note, "start_line") {
			t.Errorf("truncated=%v note=%q", out.Truncated, out.Note)
		}
	})

	t.Run("find_callers and find_callees", func(t *testing.T) {
		callers := call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"name": "IsEligibleForRefund", "path": "billing/"})
		found := false
		for _, n := range callers.AllNodes() {
			if baseName(n.QualifiedName) == "IssueRefund" && n.Depth == 1 {
				found = true
			}
		}
		if !found {
			t.Errorf("callers of IsEligibleForRefund lack IssueRefund: %+v", callers.AllNodes())
		}
		callees := call[mcpserver.WalkOut](t, cs, "find_callees", map[string]any{"name": "IssueRefund", "depth": 2})
		found = false
		for _, n := range callees.AllNodes() {
			if baseName(n.QualifiedName) == "IsEligibleForRefund" {
				found = true
			}
		}
		if !found {
			t.Errorf("callees of IssueRefund lack IsEligibleForRefund: %+v", callees.AllNodes())
		}
		byID := call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"id": callers.Symbol.ID})
		if len(byID.AllNodes()) != len(callers.AllNodes()) {
			t.Errorf("by id: %d nodes, by name %d", len(byID.AllNodes()), len(callers.AllNodes()))
		}
		wantContains(t, "unknown", callErr(t, cs, "find_callers", map[string]any{"name": "NoSuchThing"}), "unknown symbol")
		wantContains(t, "depth", callErr(t, cs, "find_callees", map[string]any{"name": "IssueRefund", "depth": 9}), "depth must be")
		wantContains(t, "nothing", callErr(t, cs, "find_callees", map[string]any{}), "give name")
	})

	t.Run("find_imports", func(t *testing.T) {
		out := call[mcpserver.ImportsOut](t, cs, "find_imports", map[string]any{"path": "cart/cart.go"})
		var billing, external bool
		for _, l := range out.Links {
			billing = billing || strings.HasPrefix(l.Path, "billing")
			external = external || l.Module != ""
		}
		if !billing || !external {
			t.Errorf("imports of cart/cart.go: %+v", out.Links)
		}
		imp := call[mcpserver.ImportsOut](t, cs, "find_imports", map[string]any{"path": "billing", "direction": "importers", "depth": 2})
		if len(imp.Links) == 0 {
			t.Error("importers of billing: none")
		}
		wantContains(t, "direction", callErr(t, cs, "find_imports", map[string]any{"path": "cart/cart.go", "direction": "sideways"}), "direction")
		wantContains(t, "traversal", callErr(t, cs, "find_imports", map[string]any{"path": "cart/../../x"}), "traversal")
	})

	t.Run("index_file", func(t *testing.T) {
		writeFile(t, e.root, "billing/fresh.go", "package billing\n\n// FreshlyWritten is new in the working tree.\nfunc FreshlyWritten() int { return 42 }\n")
		// Another file written meanwhile is not index_file's business: only the
		// named file is read and written.
		writeFile(t, e.root, "billing/unnamed.go", "package billing\n\nfunc NotNamed() {}\n")
		out := call[mcpserver.IndexFileOut](t, cs, "index_file", map[string]any{"path": "billing/fresh.go"})
		if out.Revision != "working-tree" || out.Symbols == 0 || len(out.Added) == 0 || out.FilesIndexed != 1 {
			t.Fatalf("index_file: %+v", out)
		}
		if got := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "NotNamed"}); len(got.Symbols) != 0 {
			t.Errorf("index_file indexed a file it was not given: %+v", got.Symbols)
		}
		found := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "FreshlyWritten"})
		if len(found.Symbols) != 1 || found.Symbols[0].Revision != "working-tree" {
			t.Errorf("after index_file: %+v", found.Symbols)
		}
		outside := filepath.Join(t.TempDir(), "secret.go")
		if err := os.WriteFile(outside, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(e.root, "billing", "link.go")); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			path, want string
		}{
			{"billing/nope.go", "no such file"},
			{"../escape.go", "traversal"},
			{outside, "outside the repository"},
			{"billing/link.go", "outside the repository"},
			{"billing", "not a regular file"},
			{".git/config", "inside .git"},
			{"", "path is required"},
		} {
			wantContains(t, "index_file "+c.path, callErr(t, cs, "index_file", map[string]any{"path": c.path}), c.want)
		}
	})

	t.Run("retrieve_context", func(t *testing.T) {
		out := call[mcpserver.RetrieveContextOut](t, cs, "retrieve_context", map[string]any{"query": "refund eligibility window", "budget": 600})
		if len(out.Sources) == 0 || out.Context == "" {
			t.Fatalf("no context: %+v", out)
		}
		if out.TokensUsed > 600 {
			t.Errorf("tokens used %d over the budget 600", out.TokensUsed)
		}
		wantContains(t, "context header", out.Context, "=== "+out.Sources[0].Lines)
		wantContains(t, "budget", callErr(t, cs, "retrieve_context", map[string]any{"query": "x", "budget": 10}), "budget must be")
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// hitPath is the path of a search result's path:start-end.
func hitPath(h mcpserver.CodeHit) string { p, _, _ := strings.Cut(h.Lines, ":"); return p }

// baseName is the last element of a qualified name.
func baseName(q string) string { return q[strings.LastIndex(q, ".")+1:] }

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryTools(t *testing.T) {
	e := newEnv(t, false)
	cs := e.cs
	a := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 8080.", "author": "agent-a"})
	if a.Status != "ACTIVE" || a.ConflictID != "" {
		t.Fatalf("first memory: %+v", a)
	}
	b := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 9090."})
	if b.Status != "DISPUTED" || b.ConflictID == "" || b.Conflict == nil || len(b.Conflict.Memories) != 2 {
		t.Fatalf("contradiction: %+v", b)
	}
	wantContains(t, "remember note", b.Note, "DISPUTED", "Conflicts tab", "spelunk conflicts resolve")
	for _, m := range b.Conflict.Memories {
		if m.ID == b.ID && m.Author != "agent:test-agent" {
			t.Errorf("default author %q, want the client's name", m.Author)
		}
	}

	rec := call[mcpserver.RecallOut](t, cs, "recall", map[string]any{"query": "which port does the API server listen on"})
	if len(rec.Hits) < 2 {
		t.Errorf("recall: %+v", rec)
	}
	call[mcpserver.NuggetSetOut](t, cs, "set_nugget", map[string]any{"key": "db.port", "value": "5432"})
	br := call[mcpserver.BriefingOut](t, cs, "briefing", map[string]any{"query": "API server port"})
	if br.OpenConflicts != 1 || len(br.Nuggets) != 1 || br.Nuggets[0].Value != "5432" || len(br.Memories) < 2 {
		t.Errorf("briefing: %+v", br)
	}
	cl := call[mcpserver.ConflictsOut](t, cs, "list_conflicts", map[string]any{})
	if len(cl.Conflicts) != 1 || cl.Conflicts[0].ID != b.ConflictID || len(cl.Conflicts[0].Memories) != 2 {
		t.Fatalf("list_conflicts: %+v", cl)
	}

	// Without --allow-resolve a person resolves: the tool is not even listed.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "resolve_conflict",
		Arguments: map[string]any{"conflict_id": b.ConflictID, "action": "keep", "memory": "a"}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("resolve_conflict without --allow-resolve: %v, want an unknown tool", err)
	}

	c := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "Deploys go out on Tuesdays.", "kind": "decision"})
	d := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "Deploys go out on Tuesdays and Thursdays.", "kind": "decision"})
	sup := call[mcpserver.MemoryRef](t, cs, "supersede_memory", map[string]any{"old_id": c.ID, "new_id": d.ID, "reason": "schedule changed"})
	if sup.Status != "SUPERSEDED" || sup.SupersededBy != d.ID {
		t.Errorf("supersede: %+v", sup)
	}
	inv := call[mcpserver.MemoryRef](t, cs, "invalidate_memory", map[string]any{"id": d.ID, "reason": "deploys are continuous now"})
	if inv.Status != "INVALIDATED" {
		t.Errorf("invalidate: %+v", inv)
	}

	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"remember", map[string]any{"text": ""}, "text is required"},
		{"remember", map[string]any{"text": "x", "kind": "gossip"}, "does not equal any of"},
		{"remember", map[string]any{"text": strings.Repeat("x", 70<<10)}, "limit is 65536"},
		{"recall", map[string]any{"query": ""}, "query is required"},
		{"recall", map[string]any{"query": "x", "limit": 41}, "between 1 and 40"},
		{"invalidate_memory", map[string]any{"id": a.ID, "reason": " "}, "reason is required"},
		{"invalidate_memory", map[string]any{"id": "00000000-0000-0000-0000-000000000000", "reason": "x"}, "not found"},
		{"supersede_memory", map[string]any{"old_id": a.ID, "new_id": ""}, "new_id is required"},
		{"set_nugget", map[string]any{"key": "", "value": "v"}, "key is required"},
		{"list_conflicts", map[string]any{"status": "maybe"}, "does not equal any of"},
	} {
		wantContains(t, c.tool, callErr(t, cs, c.tool, c.args), c.want)
	}
}

func TestResolveAllowed(t *testing.T) {
	e := newEnv(t, true)
	cs := e.cs
	call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 8080."})
	b := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "The API server listens on port 9090."})
	if b.ConflictID == "" {
		t.Fatalf("no conflict: %+v", b)
	}
	wantContains(t, "no memory", callErr(t, cs, "resolve_conflict", map[string]any{"conflict_id": b.ConflictID, "action": "keep"}), "needs memory")
	wantContains(t, "bad action", callErr(t, cs, "resolve_conflict", map[string]any{"conflict_id": b.ConflictID, "action": "flip"}), "does not equal any of")
	out := call[mcpserver.ResolveOut](t, cs, "resolve_conflict", map[string]any{"conflict_id": b.ConflictID, "action": "keep", "memory": "b", "note": "config says 9090"})
	if out.Conflict.Status != "resolved" || out.Conflict.Resolver != "agent:test-agent" {
		t.Errorf("resolve: %+v", out.Conflict)
	}
	wantContains(t, "again", callErr(t, cs, "resolve_conflict", map[string]any{"conflict_id": b.ConflictID, "action": "both"}), "already resolved")
	if cl := call[mcpserver.ConflictsOut](t, cs, "list_conflicts", map[string]any{"status": "resolved"}); len(cl.Conflicts) != 1 {
		t.Errorf("resolved conflicts: %+v", cl)
	}
}

// TestScoping: no argument reaches another repository of the same tenant or a
// repository of another tenant.
func TestScoping(t *testing.T) {
	e := newEnv(t, true)
	ctx := context.Background()
	emb := indextest.Embedder()

	// Another repository, same tenant, same database.
	otherRoot := indextest.Repo(t)
	writeFile(t, otherRoot, "only/there.go", "package only\n\n// OnlyInOtherRepo lives elsewhere.\nfunc OnlyInOtherRepo() {}\n")
	indextest.Git(t, otherRoot, "add", "-A")
	indextest.Git(t, otherRoot, "commit", "-q", "-m", "other")
	sum, err := index.New(e.db, emb).Index(ctx, otherRoot, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := symbols.Find(ctx, e.db, sum.RepositoryID, "OnlyInOtherRepo", "")
	if err != nil {
		t.Fatal(err)
	}
	otherMem, err := memory.New(e.db, sum.RepositoryID, memory.Options{Embedder: emb}).Add(ctx,
		memory.NewMemory{Kind: memory.KindFact, Author: "x", Text: "The other repository deploys on Fridays."})
	if err != nil {
		t.Fatal(err)
	}

	// Another tenant in the same database.
	tdb := pgtest.OpenTenant(t, e.url, "tenant-b")
	tRoot := indextest.Repo(t)
	tsum, err := index.New(tdb, emb).Index(ctx, tRoot, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tsyms, err := symbols.Find(ctx, tdb, tsum.RepositoryID, "IssueRefund", "")
	if err != nil {
		t.Fatal(err)
	}
	tMem, err := memory.New(tdb, tsum.RepositoryID, memory.Options{Embedder: emb}).Add(ctx,
		memory.NewMemory{Kind: memory.KindFact, Author: "x", Text: "Tenant B keeps its secrets."})
	if err != nil {
		t.Fatal(err)
	}

	cs := e.cs
	for _, id := range []int64{other[0].ID, tsyms[0].ID} {
		wantContains(t, "read_symbol foreign id", callErr(t, cs, "read_symbol", map[string]any{"id": id}), "unknown symbol id")
		wantContains(t, "find_callers foreign id", callErr(t, cs, "find_callers", map[string]any{"id": id}), "unknown symbol id")
	}
	wantContains(t, "name of another repo", callErr(t, cs, "read_symbol", map[string]any{"name": "OnlyInOtherRepo"}), "unknown symbol")
	if out := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "OnlyInOtherRepo"}); len(out.Symbols) != 0 {
		t.Errorf("search_symbols reached another repository: %+v", out.Symbols)
	}
	sc := call[mcpserver.SearchCodeOut](t, cs, "search_code", map[string]any{"query": "OnlyInOtherRepo"})
	for _, r := range sc.Results {
		if baseName(r.Name) == "OnlyInOtherRepo" {
			t.Errorf("search_code reached another repository: %+v", r)
		}
	}
	// Paths: the other repository's files by absolute path and by traversal.
	for _, p := range []string{filepath.Join(otherRoot, "only/there.go"), "../" + filepath.Base(otherRoot) + "/only/there.go"} {
		callErr(t, cs, "index_file", map[string]any{"path": p})
		callErr(t, cs, "read_symbol", map[string]any{"path": p, "start_line": 4})
	}
	for _, id := range []string{otherMem.Memory.ID, tMem.Memory.ID} {
		wantContains(t, "invalidate foreign memory", callErr(t, cs, "invalidate_memory", map[string]any{"id": id, "reason": "x"}), "not found")
		callErr(t, cs, "supersede_memory", map[string]any{"old_id": id, "new_id": id})
		callErr(t, cs, "resolve_conflict", map[string]any{"conflict_id": id, "action": "both"})
	}
	mine := call[mcpserver.RememberOut](t, cs, "remember", map[string]any{"text": "Our release branch is main."})
	wantContains(t, "supersede across repos", callErr(t, cs, "supersede_memory", map[string]any{"old_id": mine.ID, "new_id": otherMem.Memory.ID}), "")
	rec := call[mcpserver.RecallOut](t, cs, "recall", map[string]any{"query": "deploys on Fridays secrets tenant"})
	for _, h := range rec.Hits {
		if h.ID == otherMem.Memory.ID || h.ID == tMem.Memory.ID {
			t.Errorf("recall reached a foreign memory: %+v", h)
		}
	}
	br := call[mcpserver.BriefingOut](t, cs, "briefing", map[string]any{})
	for _, m := range br.Memories {
		if m.ID == otherMem.Memory.ID || m.ID == tMem.Memory.ID {
			t.Errorf("briefing reached a foreign memory: %+v", m)
		}
	}
}

// TestNeverCrashes: hostile arguments produce tool errors, and the session keeps
// answering afterwards.
func TestNeverCrashes(t *testing.T) {
	e := newEnv(t, false)
	cs := e.cs
	hostile := []map[string]any{
		{"query": strings.Repeat("\xff", 10)},
		{"query": 12},
		{"id": "not a number"},
		{"path": strings.Repeat("a/", 3000)},
		{"limit": -5},
		{"depth": -1, "name": "x"},
		{"text": strings.Repeat("é", 40000)},
		{"parents": []string{"zzz"}, "text": "t"},
		{"channels": []string{strings.Repeat("x", 5000)}, "query": "q"},
	}
	for _, tool := range allTools {
		for _, args := range hostile {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil {
				t.Fatalf("%s(%v): protocol error %v", tool, args, err)
			}
			_ = res
		}
	}
	if out := call[mcpserver.SymbolsOut](t, cs, "search_symbols", map[string]any{"query": "Cart"}); len(out.Symbols) == 0 {
		t.Error("the session stopped answering")
	}
}

// An unbound server (no database) lists its tools; calls fail cleanly.
func TestUnboundServer(t *testing.T) {
	cs := connect(t, mcpserver.New(mcpserver.Config{}))
	wantContains(t, "unbound", callErr(t, cs, "search_code", map[string]any{"query": "x"}), "not bound")
}

var update = flag.Bool("update", false, "rewrite testdata/mcp/tool-hashes.txt")

const pinFile = "../../testdata/mcp/tool-hashes.txt"

// TestToolHashesPinned fails when a tool definition (name, description, input or
// output schema) changes without the pinned file being updated: clients that pin
// definitions must be told. Update with go test ./engine/mcpserver -run Pinned -update.
func TestToolHashesPinned(t *testing.T) {
	hs, err := mcpserver.ToolHashes()
	if err != nil {
		t.Fatal(err)
	}
	got := mcpserver.FormatHashes(hs)
	if *update {
		if err := os.MkdirAll(filepath.Dir(pinFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pinFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(pinFile)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if got != string(want) {
		t.Errorf("tool definitions changed; if intended, run go test ./engine/mcpserver -run Pinned -update and note it in the changelog\ngot:\n%s\nwant:\n%s", got, want)
	}
}

// TestToolHashesClientSide recomputes the hashes from what a client receives in
// tools/list, as the README's check does: they must equal the server's.
func TestToolHashesClientSide(t *testing.T) {
	cs := connect(t, mcpserver.New(mcpserver.Config{}))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	client, err := mcpserver.Hashes(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	server, err := mcpserver.ToolHashes()
	if err != nil {
		t.Fatal(err)
	}
	if c, s := mcpserver.FormatHashes(client), mcpserver.FormatHashes(server); c != s {
		t.Errorf("client-side hashes differ:\n%s\nserver:\n%s", c, s)
	}
	for _, tl := range res.Tools {
		c, _ := mcpserver.Canonical(tl.Name, tl.Description, tl.InputSchema, tl.OutputSchema)
		for _, r := range string(c) {
			if r > 0x7e {
				t.Errorf("%s: canonical definition has non-ASCII %q: jq and Go must agree byte for byte", tl.Name, r)
				break
			}
		}
	}
}
