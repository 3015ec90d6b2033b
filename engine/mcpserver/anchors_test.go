package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// remember anchors a memory (given anchors and names in the text); after the
// anchored method changes and the repository is re-indexed, recall and briefing
// mark it needs_review with the anchor's state.
func TestRememberAnchorsAndRecallMarksNeedsReview(t *testing.T) {
	e := newEnv(t, false)
	a := call[mcpserver.RememberOut](t, e.cs, "remember", map[string]any{
		"text":    "Eligibility is checked before any provider call.",
		"anchors": []string{"Invoice.IsEligibleForRefund"}})
	if len(a.Anchors) != 1 || a.Anchors[0].Name != "Invoice.IsEligibleForRefund" || a.Anchors[0].State != "current" {
		t.Fatalf("remember anchors = %+v", a.Anchors)
	}
	if msg := callErr(t, e.cs, "remember", map[string]any{"text": "x", "anchors": []string{"NoSuchThing.Anywhere"}}); !strings.Contains(msg, "no definition of that name") {
		t.Fatalf("unresolvable anchor: %q", msg)
	}

	file := filepath.Join(e.root, "billing/refund.go")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "return ErrNotPaid", "return ErrNotPaid // unpaid", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	indextest.Git(t, e.root, "commit", "-qam", "edit")
	if _, err := index.New(e.db, indextest.Embedder()).Index(context.Background(), e.root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	r := call[mcpserver.RecallOut](t, e.cs, "recall", map[string]any{"query": "eligibility provider call"})
	if len(r.Hits) == 0 || r.Hits[0].ID != a.ID || !r.Hits[0].NeedsReview || r.Hits[0].Status != "NEEDS_REVIEW" ||
		len(r.Hits[0].Anchors) != 1 || r.Hits[0].Anchors[0].State != "changed" {
		t.Fatalf("recall = %+v, want the memory marked needs_review with a changed anchor", r.Hits)
	}
	b := call[mcpserver.BriefingOut](t, e.cs, "briefing", map[string]any{})
	if len(b.Memories) != 1 || !b.Memories[0].NeedsReview || b.Memories[0].Anchors[0].State != "changed" {
		t.Fatalf("briefing = %+v, want the memory marked", b.Memories)
	}
}
