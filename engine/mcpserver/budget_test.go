package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// Budgets an agent pays (issue 18): the tool catalogue on every turn, and ten
// search_code results. Both are counted on a stdio session, as a client
// receives them: the tools/list result, and a tools/call result's text block.
const (
	maxCatalogueChars = 9000
	maxTenResultChars = 4000
)

// TestCatalogueBudget: the tools/list result a client receives fits the budget,
// all groups served.
func TestCatalogueBudget(t *testing.T) {
	s := newRawSession(t, mcpserver.New(mcpserver.Config{}), 1<<20)
	s.send(initLine)
	s.wantResult("initialize", "1")
	s.send(initDone)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	raw := s.wantResult("tools/list", "2")
	t.Logf("catalogue: %d characters", len(raw))
	if len(raw) > maxCatalogueChars {
		t.Errorf("tools/list is %d characters, budget %d", len(raw), maxCatalogueChars)
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Tools) != len(allTools) {
		t.Fatalf("tools/list: %d tools, %v", len(list.Tools), err)
	}
}

// searchWire calls search_code over stdio and returns the result decoded, its
// text content (what a model reads: the only copy) and the whole result's size.
func searchWire(t *testing.T, s *rawSession, id string, args map[string]any) (mcpserver.SearchCodeOut, string, int) {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": "search_code", "arguments": args})
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + string(params) + `}`)
	raw := s.wantResult("search_code", id)
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError || len(res.Content) != 1 || res.Structured != nil {
		t.Fatalf("search_code %v: want one text block: %s (%v)", args, raw, err)
	}
	var out mcpserver.SearchCodeOut
	if err := json.Unmarshal([]byte(res.Content[0].Text), &out); err != nil {
		t.Fatalf("search_code %v: %v", args, err)
	}
	return out, res.Content[0].Text, len(raw)
}

// TestSearchCodeBudget: ten compact results fit the budget for an identifier and
// a question; detail explain still carries every result's per-channel breakdown.
func TestSearchCodeBudget(t *testing.T) {
	e := newEnv(t, false)
	s := newRawSession(t, e.srv, 1<<20)
	s.send(initLine)
	s.wantResult("initialize", "1")
	s.send(initDone)
	for i, q := range []string{"IsEligibleForRefund", "can an invoice still be refunded", "cart total with discounts"} {
		out, text, wire := searchWire(t, s, itoa(10+i), map[string]any{"query": q})
		t.Logf("%q: ten results %d characters of text (%d on the wire)", q, len(text), wire)
		if len(out.Results) != 10 {
			t.Fatalf("%q: %d results, want 10 (the default)", q, len(out.Results))
		}
		if len(text) > maxTenResultChars {
			t.Errorf("%q: ten results are %d characters, budget %d:\n%s", q, len(text), maxTenResultChars, text)
		}
		if strings.Contains(text, `"channels"`) || strings.Contains(text, `"contribution"`) {
			t.Errorf("%q: the compact form carries the breakdown: %s", q, text)
		}
		if out.Revision == "" || len(out.Revision) > 12 {
			t.Errorf("%q: revision %q, want a short commit", q, out.Revision)
		}
		for _, r := range out.Results {
			if r.ID == 0 || r.Kind == "" || r.Name == "" || r.Why == "" || !strings.Contains(r.Lines, ":") || strings.Contains(r.Sig, "\n") {
				t.Errorf("%q: incomplete compact result %+v", q, r)
			}
		}
	}
	out, text, wire := searchWire(t, s, "20", map[string]any{"query": "IsEligibleForRefund", "detail": "explain"})
	t.Logf("explain: ten results %d characters of text (%d on the wire)", len(text), wire)
	for _, r := range out.Results {
		if r.Explain == nil || len(r.Explain.Channels) == 0 || r.Explain.Final <= 0 || r.Explain.TestFactor <= 0 {
			t.Fatalf("explain result without its breakdown: %+v", r)
		}
		for c, cs := range r.Explain.Channels {
			if !strings.Contains(r.Why, c+"#"+itoa(cs.Rank)) {
				t.Errorf("why %q does not say %s#%d", r.Why, c, cs.Rank)
			}
		}
	}
	wantContains(t, "bad detail", callErr(t, e.cs, "search_code", map[string]any{"query": "x", "detail": "verbose"}), "detail", "explain")
}
