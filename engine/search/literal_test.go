package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
)

func TestExtractLiterals(t *testing.T) {
	tests := []struct {
		q    string
		want []string
	}{
		{`refund larger than the order`, []string{"refund larger than the order"}},
		{`why do I get "refund larger than the order" on big refunds`, []string{"refund larger than the order"}},
		{"set `REQUESTS_CA_BUNDLE` to fix it", []string{"REQUESTS_CA_BUNDLE"}},
		{`don't retry when it's failing`, []string{"don't retry when it's failing"}},
		// A pasted message carrying values of its own: the fixed parts are phrases too.
		{`error: refund window has expired for order 1234 today`, []string{
			"error: refund window has expired for order 1234 today", "refund window has expired for order", "today"}[:2]},
		{`ab`, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range extractLiterals(tt.q) {
			got = append(got, l.text)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("extractLiterals(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestExtractMentions(t *testing.T) {
	trace := `Traceback (most recent call last):
  File "/srv/app/.venv/lib/python3.11/site-packages/shop/billing/refunds.py", line 66, in process_refund
    raise RefundError("refund larger than the order")
    at handle (/home/ci/work/js/lib/router.js:42:7)
    at Object.<anonymous> (lib/app.js:10:3)
	at com.acme.billing.Refunds.process(Refunds.java:88)
goroutine 1 [running]:
main.(*Server).handle(0xc000010000)
	/home/me/src/shop/cmd/shopd/main.go:31 +0x1d
`
	got := extractMentions(trace)
	want := []mention{
		{path: "/srv/app/.venv/lib/python3.11/site-packages/shop/billing/refunds.py", line: 66, name: "process_refund"},
		{path: "com/acme/billing/Refunds.java", line: 88, name: "process"},
		{path: "/home/ci/work/js/lib/router.js", line: 42, name: "handle"},
		{path: "lib/app.js", line: 10, name: "<anonymous>"},
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Fatalf("mentions:\n%+v\nwant first:\n%+v", got, want)
		}
	}
	var goLine bool
	for _, m := range got {
		if strings.HasSuffix(m.path, "cmd/shopd/main.go") && m.line == 31 {
			goLine = true
		}
	}
	if !goLine {
		t.Errorf("the Go frame's file:line is missing from %+v", got)
	}
	if names := goPanicNames(trace); len(names) == 0 || names[0] != "Server.handle" {
		t.Errorf("Go panic names %q, want Server.handle first", names)
	}
}

func TestBestPathMatch(t *testing.T) {
	paths := []string{"py/shop/billing/refunds.py", "py/shop/utils/retry.py", "internal/retry/retry.go", "a/utils.py", "b/utils.py"}
	tests := []struct{ mentioned, want string }{
		{"/srv/site-packages/shop/billing/refunds.py", "py/shop/billing/refunds.py"},
		{"refunds.py", "py/shop/billing/refunds.py"},
		{"utils.py", ""}, // two files of that name and nothing to choose between them
		{"x/a/utils.py", "a/utils.py"},
		{"missing.py", ""},
	}
	for _, tt := range tests {
		if got := bestPathMatch(tt.mentioned, paths); got != tt.want {
			t.Errorf("bestPathMatch(%q) = %q, want %q", tt.mentioned, got, tt.want)
		}
	}
}

// A pasted message or a quoted string ranks the one definition holding it
// first, whatever the query looks like.
func TestLiteralChannelRanksTheDefinitionHoldingThePhrase(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	tests := []struct{ query, wantPath, wantName string }{
		{"refund larger than the order", "py/shop/billing/refunds.py", "process_refund"},
		{`RefundError: refund larger than the order`, "py/shop/billing/refunds.py", "process_refund"},
		{`why would a customer see "refund larger than the order"?`, "py/shop/billing/refunds.py", "process_refund"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp, err := s.Search(context.Background(), tt.query, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Results) == 0 {
				t.Fatal("no results")
			}
			top := resp.Results[0]
			if top.Path != tt.wantPath || top.Name != tt.wantName {
				t.Fatalf("top %s:%s, want %s:%s", top.Path, top.Name, tt.wantPath, tt.wantName)
			}
			if _, ok := top.Explain.Channels[Literal]; !ok || top.Explain.Boost == 0 {
				t.Errorf("the literal channel is not in the explain of the top result: %+v", top.Explain)
			}
		})
	}
}

// A traceback's frames point at definitions; frames outside the repository
// resolve to nothing and cost nothing.
func TestTracebackFramesResolveToDefinitions(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	trace := strings.Repeat("The refund endpoint crashes for some orders after the last deploy. ", 5) + `
Traceback (most recent call last):
  File "/usr/lib/python3.11/asyncio/runners.py", line 118, in run
  File "/srv/app/shop/billing/refunds.py", line 66, in process_refund
    raise RefundError("the amount is wrong")
shop.billing.refunds.RefundError: the amount is wrong
`
	resp, err := s.Search(context.Background(), trace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Name != "process_refund" {
		t.Fatalf("top %+v, want process_refund (the frame)", resp.Results[:min(3, len(resp.Results))])
	}
}

func TestHostileQueriesGetAnAnswer(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	huge := strings.Repeat("refund order customer invoice ", 40000) // ~1.2 MB
	resp, err := s.Search(context.Background(), huge, Options{})
	if err != nil {
		t.Fatalf("1 MB query: %v", err)
	}
	if len(resp.Notes) == 0 || !strings.Contains(resp.Notes[0], "cut") {
		t.Errorf("a cut query says so; notes %q", resp.Notes)
	}
	if _, err := s.Search(context.Background(), "what is the of and to", Options{}); err != nil {
		t.Errorf("stop words only: %v", err)
	}
	outside := `File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode` + strings.Repeat(" x", 300)
	if _, err := s.Search(context.Background(), outside, Options{}); err != nil {
		t.Errorf("a frame outside the repository: %v", err)
	}
	files, err := s.Search(context.Background(), "refund window", Options{Granularity: Files, Limit: 3})
	if err != nil || len(files.Files) == 0 || len(files.Files) > 3 {
		t.Fatalf("files: %v, %d files", err, len(files.Files))
	}
	for _, f := range files.Files {
		if len(f.Symbols) == 0 || f.Symbols[0].Path != f.Path {
			t.Errorf("file %s lists %+v", f.Path, f.Symbols)
		}
	}
}
