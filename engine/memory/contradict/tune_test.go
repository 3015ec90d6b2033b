//go:build judgetune

package contradict

import "testing"

// TestTuneMisses lists the judge's misses and false alarms on the development
// sets and the tune halves only (never a test half), while working on the
// judge: go test -tags judgetune -run TestTuneMisses -v ./engine/memory/contradict
// (a build tag rather than a skip: it checks nothing, it lists).
func TestTuneMisses(t *testing.T) {
	for _, set := range pairSets {
		// pairs_heldout5 is blind in both halves until a round tunes on it.
		if set.split == "test" || set.file == "pairs_heldout5" {
			continue
		}
		var tp, fp, fn int
		for _, p := range set.load(t) {
			if p.Split == "test" {
				continue
			}
			got := Check(Statement{Text: p.A, Event: p.AKind == "episode"}, Statement{Text: p.B, Event: p.BKind == "episode"})
			switch {
			case got.Contradicts && p.Conflict:
				tp++
			case got.Contradicts:
				fp++
				t.Logf("FP %s %s (%s): %q vs %q: %s", set, p.ID, p.Category, p.A, p.B, got.Reason)
			case p.Conflict:
				fn++
				t.Logf("FN %s %s (%s): %q vs %q", set, p.ID, p.Category, p.A, p.B)
			}
		}
		t.Logf("SUM %s: P %.3f R %.3f (tp %d fp %d fn %d)", set, float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1)), tp, fp, fn)
	}
}
