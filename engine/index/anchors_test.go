package index_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// anchored is an indexed fixture with a memory about Invoice.IsEligibleForRefund.
type anchored struct {
	indextest.Indexed
	store *memory.Store
	id    string
}

func newAnchored(t *testing.T) anchored {
	t.Helper()
	ix := indextest.Fixture(t)
	st := memory.New(ix.DB, ix.RepoID, memory.Options{Embedder: ix.Emb})
	// "Refund" starts a sentence and is a struct of the fixture: prose, not an anchor.
	a, err := st.Add(context.Background(), memory.NewMemory{Kind: memory.KindRule, Author: "alice",
		Text: "Refund windows are strict: `Invoice.IsEligibleForRefund` must reject unpaid invoices first."})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Memory.Anchors) != 1 || a.Memory.Anchors[0].Name != "Invoice.IsEligibleForRefund" ||
		a.Memory.Anchors[0].Path != "billing/refund.go" || a.Memory.Anchors[0].State != memory.AnchorCurrent {
		t.Fatalf("anchors = %+v, want the one method in billing/refund.go", a.Memory.Anchors)
	}
	return anchored{Indexed: ix, store: st, id: a.Memory.ID}
}

// commit edits the fixture's files (old → new in path) and commits, then
// re-indexes incrementally.
func (x anchored) commit(t *testing.T, path, old, new string) index.Summary {
	t.Helper()
	file := filepath.Join(x.Root, path)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return x.reindex(t, "edit "+path)
}

func (x anchored) reindex(t *testing.T, msg string) index.Summary {
	t.Helper()
	indextest.Git(t, x.Root, "add", "-A")
	indextest.Git(t, x.Root, "commit", "-q", "-m", msg)
	sum, err := index.New(x.DB, x.Emb).Index(context.Background(), x.Root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func (x anchored) status(t *testing.T) memory.Memory {
	t.Helper()
	m, err := x.store.Get(context.Background(), x.id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (x anchored) queue(t *testing.T) []memory.ReviewItem {
	t.Helper()
	q, err := x.store.Review(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestAnchoredMemoryGoesToReviewWhenItsFunctionChanges(t *testing.T) {
	x := newAnchored(t)
	sum := x.commit(t, "billing/refund.go", "> RefundWindow {", "> 2*RefundWindow {")
	if sum.MemoriesToReview != 1 {
		t.Errorf("summary says %d memories to review, want 1", sum.MemoriesToReview)
	}
	m := x.status(t)
	if m.Status != memory.StatusNeedsReview || !strings.Contains(m.StatusReason, "Invoice.IsEligibleForRefund (billing/refund.go) changed") {
		t.Fatalf("memory is %s (%q), want NEEDS_REVIEW saying the method changed", m.Status, m.StatusReason)
	}
	q := x.queue(t)
	if len(q) != 1 || q[0].ID != x.id || len(q[0].Anchors) != 1 {
		t.Fatalf("review queue = %+v, want the memory with its one anchor", q)
	}
	a := q[0].Anchors[0]
	if a.State != memory.AnchorChanged || !strings.Contains(a.Diff, "-\tif now.Sub(*inv.PaidAt) > RefundWindow {") ||
		!strings.Contains(a.Diff, "+\tif now.Sub(*inv.PaidAt) > 2*RefundWindow {") {
		t.Fatalf("anchor %s, diff:\n%s\nwant changed with the edited line as - and +", a.State, a.Diff)
	}

	// Confirming re-pins: ACTIVE again, the anchor current, the queue empty; a
	// later unrelated run leaves it so.
	if _, err := x.store.Confirm(context.Background(), x.id, "bob", ""); err != nil {
		t.Fatal(err)
	}
	if m := x.status(t); m.Status != memory.StatusActive || m.Anchors[0].State != memory.AnchorCurrent {
		t.Fatalf("after confirm: %s %+v", m.Status, m.Anchors)
	}
	if q := x.queue(t); len(q) != 0 {
		t.Fatalf("queue after confirm = %+v", q)
	}
	x.commit(t, "billing/refund.go", "var cents int64", "var cents int64 // prorated")
	if m := x.status(t); m.Status != memory.StatusActive {
		t.Fatalf("after an unrelated edit the confirmed memory is %s", m.Status)
	}
}

func TestAnchoredMemoryGoesToReviewWhenItsFunctionIsRemoved(t *testing.T) {
	x := newAnchored(t)
	file := filepath.Join(x.Root, "billing/refund.go")
	data, _ := os.ReadFile(file)
	s := string(data)
	start := strings.Index(s, "// IsEligibleForRefund reports")
	end := strings.Index(s, "// IssueRefund checks")
	// IssueRefund calls it; keep the package compiling-shaped for the parser's sake.
	if err := os.WriteFile(file, []byte(s[:start]+s[end:]), 0o644); err != nil {
		t.Fatal(err)
	}
	x.reindex(t, "drop IsEligibleForRefund")
	m := x.status(t)
	if m.Status != memory.StatusNeedsReview || !strings.Contains(m.StatusReason, "removed") {
		t.Fatalf("memory is %s (%q), want NEEDS_REVIEW saying removed", m.Status, m.StatusReason)
	}
	q := x.queue(t)
	if len(q) != 1 || q[0].Anchors[0].State != memory.AnchorRemoved {
		t.Fatalf("review queue = %+v, want the memory with a removed anchor", q)
	}
	// Invalidating takes it out of the queue for good.
	if _, err := x.store.Invalidate(context.Background(), x.id, "bob", "the check is gone"); err != nil {
		t.Fatal(err)
	}
	if q := x.queue(t); len(q) != 0 {
		t.Fatalf("queue after invalidate = %+v", q)
	}
}

func TestUnrelatedChangeLeavesAnchoredMemoryActive(t *testing.T) {
	x := newAnchored(t)
	// Another function of the same file, and lines added above the method (its
	// line range moves, its content does not).
	x.commit(t, "billing/refund.go", "var cents int64", "var cents int64 // prorated")
	x.commit(t, "billing/refund.go", "// Refund is a completed reimbursement.", "// Refund is a completed reimbursement.\n// (kept for audit)")
	x.commit(t, "billing/invoice.go", "package billing", "package billing // invoices")
	if m := x.status(t); m.Status != memory.StatusActive || m.Anchors[0].State != memory.AnchorCurrent {
		t.Fatalf("memory is %s with %+v, want ACTIVE and current", m.Status, m.Anchors)
	}
	if q := x.queue(t); len(q) != 0 {
		t.Fatalf("review queue = %+v, want empty", q)
	}
}

func TestAnchorFollowsRename(t *testing.T) {
	x := newAnchored(t)
	indextest.Git(t, x.Root, "mv", "billing/refund.go", "billing/refunds.go")
	x.reindex(t, "rename refund.go")
	m := x.status(t)
	if m.Status != memory.StatusNeedsReview || len(m.Anchors) != 1 {
		t.Fatalf("memory is %s with %+v, want NEEDS_REVIEW with one anchor", m.Status, m.Anchors)
	}
	a := m.Anchors[0]
	if a.State != memory.AnchorRenamed || a.Path != "billing/refunds.go" || a.OldPath != "billing/refund.go" {
		t.Fatalf("anchor = %+v, want renamed to billing/refunds.go", a)
	}
	// Confirmed, it is pinned at the new path and current.
	if _, err := x.store.Confirm(context.Background(), x.id, "bob", ""); err != nil {
		t.Fatal(err)
	}
	if m := x.status(t); m.Status != memory.StatusActive || m.Anchors[0].State != memory.AnchorCurrent || m.Anchors[0].Path != "billing/refunds.go" {
		t.Fatalf("after confirm: %s %+v", m.Status, m.Anchors)
	}
}

// TestAnchoredMemorySeesChangesPastTheEmbeddedText: a definition's content
// hash covers all of it, so an edit far into a long method sends the memory
// anchored to it to review; the hash was of the embedded text, cut at 800
// characters (1,500 without a doc), and missed it (issue 36, 4).
func TestAnchoredMemorySeesChangesPastTheEmbeddedText(t *testing.T) {
	x := newAnchored(t)
	long := "func (inv *Invoice) IsEligibleForRefund(now time.Time) error {\n" +
		strings.Repeat("\t// The refund rules, at length, as a long method's body reads.\n", 30)
	x.commit(t, "billing/refund.go", "func (inv *Invoice) IsEligibleForRefund(now time.Time) error {\n", long)
	if _, err := x.store.Confirm(context.Background(), x.id, "bob", ""); err != nil {
		t.Fatal(err)
	}
	x.commit(t, "billing/refund.go", "> RefundWindow {", "> 2*RefundWindow {")
	if m := x.status(t); m.Status != memory.StatusNeedsReview {
		t.Fatalf("after its logic changed at character ~2,000 the memory is %s, want NEEDS_REVIEW", m.Status)
	}
}
