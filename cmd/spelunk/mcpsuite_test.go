package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// suiteCalls are one valid call of every tool served by default, with the
// characters its answer may take (the ceilings the README states).
var suiteCalls = []struct {
	tool    string
	args    map[string]any
	ceiling int
}{
	{"search_code", map[string]any{"query": "IsEligibleForRefund"}, 4000},
	{"search_symbols", map[string]any{"query": "Cart", "limit": 5}, 5 * 400},
	{"read_symbol", map[string]any{"name": "IssueRefund"}, 32<<10 + 1000},
	{"find_callers", map[string]any{"name": "Backoff"}, 400 + 50*200},
	{"find_callees", map[string]any{"name": "IssueRefund", "depth": 2}, 400 + 50*200},
	{"find_imports", map[string]any{"path": "cart/cart.go"}, 50 * 100},
	{"retrieve_context", map[string]any{"query": "refund eligibility", "budget": 500}, 1800},
	{"briefing", map[string]any{}, 2000},
	{"remember", map[string]any{"text": "Refunds close 30 days after payment.", "author": "agent:suite"}, 3000},
	{"recall", map[string]any{"query": "refund window"}, 10 * 2500},
	{"set_nugget", map[string]any{"key": "suite.k", "value": "v"}, 300},
	{"list_conflicts", map[string]any{}, 2000},
	{"index_file", map[string]any{"path": "billing/refund.go"}, 200},
}

// callRetryingBusy calls a tool as an agent would: an index_file that meets
// the watcher's start-up run is asked again once that run has finished.
func callRetryingBusy(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	for i := 0; ; i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || !res.IsError || i == 50 || len(res.Content) == 0 {
			return res, err
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "call index_file again") {
			return res, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestMCPClientSuite (issue 38): the SDK's client, independent of the server's
// code, drives the real binary over both transports: the catalogue (annotated,
// at most 9,000 characters), every tool once within its ceiling, and a bad
// argument as a tool error.
func TestMCPClientSuite(t *testing.T) {
	f := newMCPFixture(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var cs *mcp.ClientSession
			if transport == "stdio" {
				cs = f.stdioSession(t)
			} else {
				cs = httpSession(t, f.httpEndpoint(t))
			}
			ctx := context.Background()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range tools.Tools {
				if tl.Annotations == nil || tl.Annotations.DestructiveHint == nil {
					t.Errorf("%s: hints not stated: %+v", tl.Name, tl.Annotations)
				}
			}
			if len(tools.Tools) != len(suiteCalls)+2 { // + supersede_memory, invalidate_memory
				t.Errorf("%d tools, want %d", len(tools.Tools), len(suiteCalls)+2)
			}
			for _, c := range suiteCalls {
				res, err := callRetryingBusy(ctx, cs, c.tool, c.args)
				if err != nil || res.IsError {
					var text string
					if res != nil && len(res.Content) > 0 {
						if tc, ok := res.Content[0].(*mcp.TextContent); ok {
							text = tc.Text
						}
					}
					t.Errorf("%s over %s: %v %q", c.tool, transport, err, text)
					continue
				}
				text := res.Content[0].(*mcp.TextContent).Text
				t.Logf("%-16s %5d characters (ceiling %d)", c.tool, len(text), c.ceiling)
				if len(text) > c.ceiling {
					t.Errorf("%s over %s: %d characters, ceiling %d", c.tool, transport, len(text), c.ceiling)
				}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_callers", Arguments: map[string]any{"name": "x", "relation": "eats"}})
			if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "relation") {
				t.Errorf("a bad enum over %s: %v %+v, want a tool error", transport, err, res)
			}
		})
	}
}
