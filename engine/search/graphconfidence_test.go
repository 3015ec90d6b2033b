package search

import (
	"context"
	"math"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// TestGraphChannelWeighsConfidence: a neighbour counts by its edge's confidence
// (exact 1, inferred 0.7, ambiguous 0.4 shared among the candidates), and an
// ambiguous edge links its source to every candidate.
func TestGraphChannelWeighsConfidence(t *testing.T) {
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
	refund, eligible, total := id("IssueRefund", "billing/refund.go"), id("IsEligibleForRefund", "billing/refund.go"), id("Total", "billing/invoice.go")
	do, backoff, value := id("Do", "internal/retry/backoff.go"), id("Backoff", "internal/retry/backoff.go"), id("Value", "internal/retry/backoff.go")
	set := func(source, target int64, conf string, cands []int64) {
		t.Helper()
		tag, err := fx.DB.Pool.Exec(ctx, `UPDATE edges SET confidence = $4, candidates = $5 WHERE repository_id = $1 AND source_id = $2 AND target_id = $3`,
			fx.RepoID, source, target, conf, cands)
		if err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("set %d->%d %s: %v", source, target, conf, err)
		}
	}
	set(refund, do, "exact", nil)
	set(refund, total, "inferred", nil)
	set(refund, eligible, "ambiguous", []int64{eligible, backoff})
	set(do, backoff, "ambiguous", []int64{backoff, value})

	s := New(fx.DB, fx.RepoID, fx.Emb)
	scores := func(anchor int64) map[int64]float64 {
		t.Helper()
		hits, err := s.graphChannel(ctx, []int64{anchor}, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]float64{}
		for _, h := range hits {
			out[h.id] = h.score
		}
		return out
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: score %g, want %g", what, got, want)
		}
	}
	// Two hops score at most 0.5, so a direct neighbour's 1 or 0.7 is its own.
	got := scores(refund)
	near("exact callee retry.Do", got[do], 1)
	near("inferred callee Invoice.Total", got[total], 0.7)
	if e := got[eligible]; e <= 0 || e >= got[total] {
		t.Errorf("ambiguous callee IsEligibleForRefund scores %g, want above 0 and below the inferred %g", e, got[total])
	}
	// From Backoff: IssueRefund names it as a candidate (0.4 / 2); through retry.Do,
	// whose call of Backoff is ambiguous too, it would score only 0.5 * 0.2 * 1.
	got = scores(backoff)
	near("IssueRefund through an ambiguous edge's candidates", got[refund], 0.2)
	near("retry.Do by its ambiguous call", got[do], 0.2)
}
