package graph_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// confidenceFixture is the indexed fixture with IssueRefund's edges given known
// confidences: its call of IsEligibleForRefund ambiguous between that and
// retry.Backoff, Total inferred, retry.Do exact, plus a second, inferred call of
// Backoff written after the ambiguous one.
type confidenceFixture struct {
	fx                            indextest.Indexed
	refund, eligible, backoff, do int64
}

func newConfidenceFixture(t *testing.T) confidenceFixture {
	t.Helper()
	fx := indextest.Fixture(t)
	ctx := context.Background()
	id := func(name, path string) int64 {
		t.Helper()
		syms, err := symbols.Find(ctx, fx.DB, fx.RepoID, name, path)
		if err != nil {
			t.Fatalf("find %s: %v", name, err)
		}
		return syms[0].ID
	}
	c := confidenceFixture{fx: fx, refund: id("IssueRefund", "billing/refund.go"), eligible: id("IsEligibleForRefund", "billing/refund.go"),
		backoff: id("Backoff", "internal/retry/backoff.go"), do: id("Do", "internal/retry/backoff.go")}
	total := id("Total", "billing/invoice.go")
	exec := func(sql string, args ...any) {
		t.Helper()
		tag, err := fx.DB.Pool.Exec(ctx, sql, args...)
		if err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("%s: %v (%d rows)", sql, err, tag.RowsAffected())
		}
	}
	set := `UPDATE edges SET confidence = $4, candidates = $5 WHERE repository_id = $1 AND source_id = $2 AND target_id = $3`
	exec(set, fx.RepoID, c.refund, c.eligible, "ambiguous", []int64{c.eligible, c.backoff})
	exec(set, fx.RepoID, c.refund, total, "inferred", nil)
	exec(set, fx.RepoID, c.refund, c.do, "exact", nil)
	exec(`UPDATE edges SET confidence = 'exact' WHERE repository_id = $1 AND source_id = $2 AND target_id = $3`, fx.RepoID, c.do, c.backoff)
	exec(`INSERT INTO edges (repository_id, tenant_id, file_id, source_id, kind, target_id, target_name, line, confidence)
		SELECT repository_id, tenant_id, file_id, source_id, kind, $4, 'Backoff', line + 1000, 'inferred'
		FROM edges WHERE repository_id = $1 AND source_id = $2 AND target_id = $3`, fx.RepoID, c.refund, total, c.backoff)
	return c
}

func byName(w graph.Walk) map[string]graph.Node {
	out := map[string]graph.Node{}
	for _, n := range w.Nodes {
		out[n.QualifiedName] = n
	}
	return out
}

func TestWalkConfidence(t *testing.T) {
	c := newConfidenceFixture(t)
	ctx := context.Background()
	walk := func(id int64, dir graph.Direction, min graph.Confidence) graph.Walk {
		t.Helper()
		w, err := graph.SymbolsWith(ctx, c.fx.DB, c.fx.RepoID, []int64{id}, dir, graph.Options{Depth: 1, MinConfidence: min})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}

	callees := byName(walk(c.refund, graph.Callees, ""))
	for name, want := range map[string]graph.Confidence{
		"Invoice.IsEligibleForRefund": graph.Ambiguous, "Invoice.Total": graph.Inferred, "retry.Do": graph.Exact,
		"retry.Backoff": graph.Inferred, // also a candidate of the ambiguous edge, but the inferred call wins
	} {
		if got := callees[name].Confidence; got != want {
			t.Errorf("callee %s: confidence %q, want %q", name, got, want)
		}
	}
	if n := callees["Invoice.IsEligibleForRefund"].Candidates; n != 2 {
		t.Errorf("ambiguous callee: %d candidates, want 2", n)
	}

	// Callers of Backoff: retry.Do (exact) and IssueRefund through the ambiguous
	// edge's candidates or its inferred call, whichever is more confident.
	callers := byName(walk(c.backoff, graph.Callers, ""))
	if got := callers["retry.Do"].Confidence; got != graph.Exact {
		t.Errorf("caller retry.Do: %q, want exact", got)
	}
	if got := callers["billing.IssueRefund"].Confidence; got != graph.Inferred {
		t.Errorf("caller IssueRefund: %q, want inferred", got)
	}
	if _, err := c.fx.DB.Pool.Exec(ctx, `DELETE FROM edges WHERE repository_id = $1 AND source_id = $2 AND target_id = $3 AND line > 1000`,
		c.fx.RepoID, c.refund, c.backoff); err != nil {
		t.Fatal(err)
	}
	callers = byName(walk(c.backoff, graph.Callers, ""))
	if n, ok := callers["billing.IssueRefund"]; !ok || n.Confidence != graph.Ambiguous || n.Via != c.backoff {
		t.Errorf("caller IssueRefund through an ambiguous edge's candidates: %+v (present %v), want ambiguous via Backoff", n, ok)
	}
	// Its first candidate still has IssueRefund among its callers, ambiguous too.
	if n := byName(walk(c.eligible, graph.Callers, ""))["billing.IssueRefund"]; n.Confidence != graph.Ambiguous {
		t.Errorf("caller of the first candidate: %q, want ambiguous", n.Confidence)
	}
	// Callees list every candidate of an ambiguous edge.
	callees = byName(walk(c.refund, graph.Callees, ""))
	if n := callees["retry.Backoff"]; n.Confidence != graph.Ambiguous || n.Candidates != 2 {
		t.Errorf("second candidate as a callee: %+v, want ambiguous of 2", n)
	}

	// MinConfidence drops what is less confident, external calls included.
	strict := walk(c.refund, graph.Callees, graph.Inferred)
	got := byName(strict)
	if _, ok := got["Invoice.IsEligibleForRefund"]; ok {
		t.Error("min inferred kept an ambiguous callee")
	}
	if _, ok := got["retry.Do"]; !ok {
		t.Error("min inferred dropped an exact callee")
	}
	if len(strict.Unresolved) != 0 {
		t.Errorf("min inferred kept unresolved calls: %v", strict.Unresolved)
	}
	if _, ok := byName(walk(c.backoff, graph.Callers, graph.Exact))["billing.IssueRefund"]; ok {
		t.Error("min exact kept the ambiguous caller")
	}
	all := walk(c.refund, graph.Callees, graph.NotResolved)
	if len(all.Unresolved) == 0 {
		t.Error("min unresolved dropped the external calls")
	}
	for _, u := range all.Unresolved {
		if u.Confidence != graph.NotResolved {
			t.Errorf("external %s: confidence %q", u.Name, u.Confidence)
		}
	}

	// An edge with a target still marked unresolved (resolved before confidences
	// were recorded) was chosen by name: inferred.
	if _, err := c.fx.DB.Pool.Exec(ctx, `UPDATE edges SET confidence = 'unresolved' WHERE repository_id = $1 AND source_id = $2 AND target_name = 'Total' AND target_id IS NOT NULL`,
		c.fx.RepoID, c.refund); err != nil {
		t.Fatal(err)
	}
	if n, ok := byName(walk(c.refund, graph.Callees, graph.Inferred))["Invoice.Total"]; !ok || n.Confidence != graph.Inferred {
		t.Errorf("a legacy resolved edge: %+v (present %v), want inferred", n, ok)
	}

	// Deterministic: the same walk twice is the same list.
	if a, b := walk(c.refund, graph.Callees, ""), walk(c.refund, graph.Callees, ""); !reflect.DeepEqual(a, b) {
		t.Errorf("two walks differ:\n%+v\n%+v", a.Nodes, b.Nodes)
	}
}

func TestParseConfidence(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want graph.Confidence
		ok   bool
	}{{"", "", true}, {"exact", graph.Exact, true}, {"ambiguous", graph.Ambiguous, true}, {"EXACT", "", false}, {"sure", "", false}} {
		got, err := graph.ParseConfidence(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseConfidence(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if !graph.Exact.AtLeast(graph.Inferred) || graph.Ambiguous.AtLeast(graph.Inferred) || !graph.NotResolved.AtLeast("") {
		t.Error("AtLeast order: exact > inferred > ambiguous > unresolved")
	}
}
