package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/search"
)

// toolWire calls a tool over stdio and returns its text block: what the client
// receives and a budget is measured on.
func toolWire(t *testing.T, s *rawSession, id, tool string, args map[string]any) string {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + string(params) + `}`)
	raw := s.wantResult(tool, id)
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s %v: %s (%v)", tool, args, raw, err)
	}
	return res.Content[0].Text
}

// TestRetrieveContextBudget (issue 38: budget 2000 returned 11,607 characters):
// the whole answer, sources and omitted lists included, fits budget ×
// search.CharsPerToken characters as the client receives it, for small and
// large budgets and a pasted issue; scores are rounded, revisions short, the
// query echo clipped.
func TestRetrieveContextBudget(t *testing.T) {
	e := newEnv(t, false)
	s := newRawSession(t, e.srv, 1<<20)
	s.send(initLine)
	s.wantResult("initialize", "1")
	s.send(initDone)
	id := 10
	for _, q := range []string{"refund eligibility window", "cart total with discounts", issueText()} {
		for _, budget := range []int{100, 300, 2000, 8000} {
			id++
			text := toolWire(t, s, itoa(id), "retrieve_context", map[string]any{"query": q, "budget": budget, "limit": 100})
			ceiling := int(float64(budget) * search.CharsPerToken)
			t.Logf("budget %5d: %6d characters (ceiling %d) for %.30q", budget, len(text), ceiling, q)
			if len(text) > ceiling {
				t.Errorf("budget %d, query %.30q: %d characters, over %d", budget, q, len(text), ceiling)
			}
			var out mcpserver.RetrieveContextOut
			if err := json.Unmarshal([]byte(text), &out); err != nil {
				t.Fatal(err)
			}
			if budget >= 300 && (len(out.Sources) == 0 || !strings.Contains(out.Context, "=== "+out.Sources[0].Lines)) {
				t.Errorf("budget %d: no source packed: %s", budget, text)
			}
			if len(out.Query) > 130 || len(out.Revision) > 12 {
				t.Errorf("query echo %d bytes, revision %q", len(out.Query), out.Revision)
			}
			for _, src := range out.Sources {
				if src.Score != float64(int(src.Score*1000+0.5))/1000 || len(src.Rev) > 12 {
					t.Errorf("source %+v: score not rounded or long revision", src)
				}
			}
		}
	}
}
