package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
	"github.com/spelunkhq/spelunk/engine/search"
)

// issueText is a 5 kB issue as a person files it: prose, a traceback with
// path:line frames, a config excerpt and a log, padded with discussion.
func issueText() string {
	var b strings.Builder
	b.WriteString("Refunds are refused for invoices that are still eligible\n\n" +
		"When a customer asks for a refund a day before the window closes, the refund is refused.\n" +
		"IsEligibleForRefund seems to compare the wrong dates. Traceback from the Python service:\n\n" +
		"Traceback (most recent call last):\n" +
		"  File \"py/shop/billing/refunds.py\", line 12, in issue_refund\n" +
		"  File \"py/shop/billing/tax.py\", line 8, in tax_for\n" +
		"ValueError: refund window closed\n\n")
	for b.Len() < 5000 {
		b.WriteString("We checked the cart totals and the discounts applied to the invoice; the refund amount " +
			"is right, only the eligibility check fails. The window is configured in config/app.yaml and the " +
			"billing code reads it when an invoice is refunded. Steps: create an invoice, pay it, ask for a refund.\n")
	}
	return b.String()
}

// TestLongQuery (issue 38): search_code and retrieve_context take a pasted issue
// up to the CLI's long-input limit (16 KiB, said in the schema), and a 5 kB
// issue ranks the same files through search_code as spelunk search --files
// ranks them (the engine's searcher with files granularity).
func TestLongQuery(t *testing.T) {
	e := newEnv(t, false)
	q := issueText()
	if len(q) < 5000 || len(q) > 6000 {
		t.Fatalf("the issue is %d bytes, want about 5 kB", len(q))
	}
	out := call[mcpserver.SearchCodeOut](t, e.cs, "search_code", map[string]any{"query": q, "granularity": "files"})
	cli, err := search.New(e.db, e.repoID, indextest.Embedder()).Search(context.Background(), q, search.Options{Granularity: search.Files, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, f := range out.Files {
		got = append(got, f.Path)
	}
	for _, f := range cli.Files {
		want = append(want, f.Path)
	}
	if len(got) == 0 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("search_code files for a 5 kB issue:\n got  %v\n want %v (spelunk search --files)", got, want)
	}
	t.Logf("5 kB issue: %v", got)
	ctxOut := call[mcpserver.RetrieveContextOut](t, e.cs, "retrieve_context", map[string]any{"query": q, "budget": 1000})
	if ctxOut.Context == "" {
		t.Errorf("retrieve_context on a 5 kB issue: empty context")
	}
	// Up to 16 KiB is taken; more is refused with the limit.
	call[mcpserver.SearchCodeOut](t, e.cs, "search_code", map[string]any{"query": strings.Repeat("refund invoice ", 16<<10/15)})
	wantContains(t, "over 16 KiB", callErr(t, e.cs, "search_code", map[string]any{"query": strings.Repeat("x", 16<<10+1)}), "the limit is 16384")
	for _, tool := range e.srv.Tools() {
		if tool.Name != "search_code" && tool.Name != "retrieve_context" {
			continue
		}
		if d := tool.InputSchema.(*jsonschema.Schema).Properties["query"].Description; !strings.Contains(d, "16 KiB") {
			t.Errorf("%s: the query's description %q does not state the limit", tool.Name, d)
		}
	}
}
