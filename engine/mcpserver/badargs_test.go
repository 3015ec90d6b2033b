package mcpserver_test

import (
	"strings"
	"testing"
)

// TestNonsenseArgumentsAreToolErrors: every numeric and enumerated argument of
// every tool refuses a value that makes no sense (a negative count, a depth past
// the range, an unknown kind) with a tool error naming the valid range or values,
// never by answering with a default (issue 11 item 11, the MCP side). Fixed
// values are schema enums (issue 38): the SDK's validation names them.
func TestNonsenseArgumentsAreToolErrors(t *testing.T) {
	e := newEnv(t, true)
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"search_code", map[string]any{"query": "x", "limit": -1}, []string{"limit must be between 1 and 100"}},
		{"search_code", map[string]any{"query": "x", "granularity": "lines"}, []string{"granularity", "symbols", "files"}},
		{"search_code", map[string]any{"query": "x lang:klingon"}, []string{"lang:klingon", "not a language"}},
		{"search_code", map[string]any{"query": "path:py/"}, []string{"nothing searchable"}},
		{"search_code", map[string]any{"query": "x", "channels": []string{"dense", "magic"}}, []string{"channels", "does not equal any of", "dense", "graph"}},
		{"retrieve_context", map[string]any{"query": "x", "limit": -3}, []string{"limit must be between 1 and 100"}},
		{"retrieve_context", map[string]any{"query": "x", "budget": -1}, []string{"budget must be"}},
		{"retrieve_context", map[string]any{"query": "x", "budget": 1 << 20}, []string{"budget must be"}},
		{"search_symbols", map[string]any{"query": "x", "limit": -1}, []string{"limit must be between 1 and 100"}},
		{"search_symbols", map[string]any{"query": "x", "kind": "funtion"}, []string{"kind", "function", "method"}},
		{"read_symbol", map[string]any{"path": "billing/refund.go", "start_line": -4}, []string{"start_line"}},
		{"read_symbol", map[string]any{"path": "billing/refund.go", "start_line": 5, "end_line": 2}, []string{"end_line"}},
		{"read_symbol", map[string]any{"id": -7}, []string{"id"}},
		{"find_callers", map[string]any{"name": "IssueRefund", "depth": -1}, []string{"depth must be between 1 and 5"}},
		{"find_callers", map[string]any{"name": "IssueRefund", "depth": 6}, []string{"depth must be between 1 and 5"}},
		{"find_callees", map[string]any{"name": "IssueRefund", "limit": -1}, []string{"limit must be between 1 and 100"}},
		{"find_callers", map[string]any{"name": "IssueRefund", "min_confidence": "sure"}, []string{"min_confidence", "exact", "inferred", "ambiguous"}},
		{"find_callers", map[string]any{"name": "IssueRefund", "relation": "eats"}, []string{"relation", "calls", "reads", "writes"}},
		{"find_imports", map[string]any{"path": "cart/cart.go", "depth": -2}, []string{"depth must be between 1 and 5"}},
		{"find_imports", map[string]any{"path": "cart/cart.go", "limit": 500}, []string{"limit must be between 1 and 100"}},
		{"find_imports", map[string]any{"path": "cart/cart.go", "direction": "sideways"}, []string{"direction", "imports", "importers"}},
		{"recall", map[string]any{"query": "x", "limit": -1}, []string{"limit must be between 1 and 40"}},
		{"briefing", map[string]any{"limit": -1}, []string{"limit must be between 1 and 100"}},
		{"briefing", map[string]any{"limit": 101}, []string{"limit must be between 1 and 100"}},
		{"list_conflicts", map[string]any{"limit": -1}, []string{"limit must be between 1 and 100"}},
		{"list_conflicts", map[string]any{"status": "maybe"}, []string{"status", "open", "resolved", "all"}},
		{"remember", map[string]any{"text": "x", "kind": "gossip"}, []string{"kind", "fact", "decision", "rule", "episode"}},
		{"resolve_conflict", map[string]any{"conflict_id": "abc", "action": "flip"}, []string{"action", "keep", "both", "merge", "invalidate"}},
	}
	for _, c := range cases {
		got := callErr(t, e.cs, c.tool, c.args)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s(%v): %q lacks %q", c.tool, c.args, got, w)
			}
		}
	}
}
