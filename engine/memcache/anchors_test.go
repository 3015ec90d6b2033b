package memcache_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// The cache carries NEEDS_REVIEW and the anchors' states: a memory added
// through the cache's queue with --anchor is pinned on the core at push, an
// index run on the core changes the method, and the next pull brings the new
// status and the changed anchor into the cached briefing and recall.
func TestCachePullsAnchorsAndNeedsReview(t *testing.T) {
	ctx := context.Background()
	ix := indextest.Fixture(t)
	core := memcache.Core{DB: ix.DB, Store: memory.New(ix.DB, ix.RepoID, memory.Options{Embedder: ix.Emb})}
	c := openCache(t, filepath.Join(t.TempDir(), "cache.db"))
	if _, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "alice",
		Text: "Partial refunds are prorated per returned item.", Anchors: []string{"billing/refund.go:70"}}); err != nil {
		t.Fatal(err)
	}
	// Two queued adds: the push applies them as one run (Store.AddMany).
	if _, err := c.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "alice",
		Text: "`Invoice.IsEligibleForRefund` looks at the payment date."}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	b, err := c.Briefing(ctx, memory.BriefingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, m := range b.Memories {
		for _, a := range m.Anchors {
			names[a.Name] = string(m.Status) + " " + string(a.State)
		}
	}
	if len(b.Memories) != 2 || names["billing.PartialRefundCents"] != "ACTIVE current" || names["Invoice.IsEligibleForRefund"] != "ACTIVE current" {
		t.Fatalf("cached briefing = %+v, want both memories anchored (PartialRefundCents, IsEligibleForRefund), current", b.Memories)
	}

	file := filepath.Join(ix.Root, "billing/refund.go")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "var cents int64", "var cents int64 = 0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	indextest.Git(t, ix.Root, "commit", "-qam", "edit")
	if _, err := index.New(ix.DB, ix.Emb).Index(ctx, ix.Root, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sync(ctx, core); err != nil {
		t.Fatal(err)
	}
	hits, err := c.Recall(ctx, "prorated refunds", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Status != memory.StatusNeedsReview || len(hits[0].Anchors) != 1 || hits[0].Anchors[0].State != memory.AnchorChanged {
		t.Fatalf("cached recall = %+v, want the memory NEEDS_REVIEW with its anchor changed", hits)
	}
}
