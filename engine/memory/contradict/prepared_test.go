package contradict

import "testing"

// TestCheckAnalyzedIsCheck: each statement of the labelled sets analysed once
// and compared with many others (in both orders) gives exactly Check's result,
// so an analysis is never changed by a comparison.
func TestCheckAnalyzedIsCheck(t *testing.T) {
	var stmts []Statement
	for _, set := range pairSets {
		for _, p := range set.load(t) {
			stmts = append(stmts, Statement{Text: p.A, Event: p.AKind == "episode"}, Statement{Text: p.B, Event: p.BKind == "episode"})
		}
	}
	// Each statement against its pair partner and its next 8 neighbours: the
	// partners are where the contradictions are, the neighbours reuse each
	// analysis many times.
	an := make([]*Analysis, len(stmts))
	for i, s := range stmts {
		an[i] = Analyze(s)
	}
	diffs, contradictions := 0, 0
	for i := range stmts {
		for d := 1; d <= 9 && i+d < len(stmts); d++ {
			j := i + d
			for _, p := range [][2]int{{i, j}, {j, i}} {
				want := Check(stmts[p[0]], stmts[p[1]])
				got := CheckAnalyzed(an[p[0]], an[p[1]])
				if got != want {
					diffs++
					t.Errorf("%q vs %q: CheckAnalyzed %+v, Check %+v", stmts[p[0]].Text, stmts[p[1]].Text, got, want)
				}
				if want.Contradicts {
					contradictions++
				}
			}
		}
	}
	if contradictions == 0 {
		t.Fatal("no contradictions among the compared pairs: the test compares nothing that matters")
	}
	t.Logf("%d statements, %d contradictions found, %d differences", len(stmts), contradictions, diffs)
}
