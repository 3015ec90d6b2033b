package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// Names in a memory's text become anchors only when they resolve to a
// definition or file of the indexed project; prose words that look like code
// (a capitalised "Refund", "e.g.", a sentence-ending "config.") never do.
func TestAnchorsFoundInText(t *testing.T) {
	ix := indextest.Fixture(t)
	s := memory.New(ix.DB, ix.RepoID, memory.Options{Embedder: ix.Emb})
	cases := []struct {
		text string
		want []string // path#name
	}{
		{"`Invoice.IsEligibleForRefund` must not allocate.", []string{"billing/refund.go#Invoice.IsEligibleForRefund"}},
		{"IssueRefund retries with backoff, e.g. four times.", []string{"billing/refund.go#billing.IssueRefund"}},
		{"billing.IssueRefund retries with backoff.", []string{"billing/refund.go#billing.IssueRefund"}},
		{"See billing/refund.go:40 for the window check.", []string{"billing/refund.go#Invoice.IsEligibleForRefund"}},
		{"The refund rules live in billing/refund.go.", []string{"billing/refund.go#"}},
		{"PartialRefundCents() prorates; see billing/refund.go.", []string{"billing/refund.go#billing.PartialRefundCents"}},
		{"Refund requests are rare. Invoice totals include tax. Edit the config.", nil},
		{"`NoSuchFunction` and lib/missing.js are not in this repository.", nil},
	}
	for _, c := range cases {
		a, err := s.Add(context.Background(), memory.NewMemory{Kind: memory.KindFact, Author: "t", Text: c.text})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, an := range a.Memory.Anchors {
			got = append(got, an.Path+"#"+an.Name)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%q anchored %v, want %v", c.text, got, c.want)
		}
	}
}

// An anchor given explicitly must resolve: a name the index lacks is refused
// with a message saying so, and so is a name several definitions share.
func TestExplicitAnchorsMustResolve(t *testing.T) {
	ix := indextest.Fixture(t)
	s := memory.New(ix.DB, ix.RepoID, memory.Options{Embedder: ix.Emb})
	ctx := context.Background()
	a, err := s.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "t", Text: "Keep the window short.",
		Anchors: []string{"billing/refund.go:41", "billing/invoice.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Memory.Anchors) != 2 {
		t.Fatalf("anchors = %+v, want the method at line 41 and the file", a.Memory.Anchors)
	}
	for _, bad := range []string{"NoSuchThing.Anywhere", "lib/missing.js", "two words"} {
		_, err := s.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "t", Text: "x", Anchors: []string{bad}})
		if !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("anchor %q: err = %v, want ErrInvalid", bad, err)
		}
	}
}
