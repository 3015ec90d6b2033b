package mcpserver_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// TestWalkConfidence: find_callers and find_callees give each link its edge's
// confidence, include ambiguous edges through their candidates and filter on
// min_confidence.
func TestWalkConfidence(t *testing.T) {
	e := newEnv(t, false)
	ctx := context.Background()
	cs := e.cs
	refund := call[mcpserver.WalkOut](t, cs, "find_callees", map[string]any{"name": "IssueRefund", "path": "billing/"})
	ids := map[string]int64{"billing.IssueRefund": refund.Symbol.ID}
	for _, n := range refund.AllNodes() {
		if n.Confidence == "" {
			t.Errorf("callee %s has no confidence", n.QualifiedName)
		}
		ids[n.QualifiedName] = n.ID
	}
	backoff := call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"name": "Backoff", "path": "internal/retry/"}).Symbol.ID
	eligible, do := ids["Invoice.IsEligibleForRefund"], ids["retry.Do"]
	if eligible == 0 || do == 0 || backoff == 0 {
		t.Fatalf("fixture symbols: %v, Backoff %d", ids, backoff)
	}
	// IssueRefund's call of IsEligibleForRefund becomes ambiguous between it and
	// Backoff; its call of retry.Do exact.
	set := `UPDATE edges SET confidence = $4, candidates = $5 WHERE repository_id = $1 AND source_id = $2 AND target_id = $3`
	for _, u := range []struct {
		target int64
		conf   string
		cands  []int64
	}{{eligible, "ambiguous", []int64{eligible, backoff}}, {do, "exact", nil}} {
		if tag, err := e.db.Pool.Exec(ctx, set, e.repoID, refund.Symbol.ID, u.target, u.conf, u.cands); err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("set %s: %v (%d rows)", u.conf, err, tag.RowsAffected())
		}
	}

	conf := func(out mcpserver.WalkOut) map[string]mcpserver.GraphNode {
		m := map[string]mcpserver.GraphNode{}
		for _, n := range out.AllNodes() {
			m[n.QualifiedName] = n
		}
		return m
	}
	callers := conf(call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"id": backoff}))
	if n := callers["billing.IssueRefund"]; n.Confidence != "ambiguous" || n.Candidates != 2 {
		t.Errorf("IssueRefund among Backoff's callers: %+v, want ambiguous of 2 candidates", n)
	}
	callees := conf(call[mcpserver.WalkOut](t, cs, "find_callees", map[string]any{"id": refund.Symbol.ID}))
	for name, want := range map[string]string{"Invoice.IsEligibleForRefund": "ambiguous", "retry.Backoff": "ambiguous", "retry.Do": "exact"} {
		if got := callees[name].Confidence; got != want {
			t.Errorf("callee %s: %q, want %q", name, got, want)
		}
	}

	strict := call[mcpserver.WalkOut](t, cs, "find_callees", map[string]any{"id": refund.Symbol.ID, "min_confidence": "exact"})
	for _, n := range strict.AllNodes() {
		if n.Confidence != "exact" {
			t.Errorf("min_confidence exact kept %s (%s)", n.QualifiedName, n.Confidence)
		}
	}
	if _, ok := conf(strict)["retry.Do"]; !ok || len(strict.External) != 0 {
		t.Errorf("min_confidence exact: nodes %v external %v, want retry.Do and no external calls", strict.AllNodes(), strict.External)
	}
	if _, ok := conf(call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"id": backoff, "min_confidence": "inferred"}))["billing.IssueRefund"]; ok {
		t.Error("min_confidence inferred kept the ambiguous caller")
	}
	wantContains(t, "bad min_confidence", callErr(t, cs, "find_callers", map[string]any{"id": backoff, "min_confidence": "certain"}),
		"min_confidence", "exact", "inferred", "ambiguous")
}
