package contradict

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

type labelled struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Conflict bool   `json:"conflict"`
	A        string `json:"a"`
	B        string `json:"b"`
	AKind    string `json:"a_kind"`
	BKind    string `json:"b_kind"`
	Split    string `json:"split"`
}

func loadPairs(t *testing.T, path string) []labelled {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p labelled
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, p)
	}
	return out
}

// pairSet is one measured set: a file, and for a split file one half of it.
type pairSet struct {
	file, split string
	// minP, minR: the floors enforced on the judge alone, just under what it
	// reaches (0: reported only).
	minP, minR float64
}

func (s pairSet) String() string {
	if s.split == "" {
		return s.file
	}
	return s.file + "/" + s.split
}

// pairSets are the sets the judge is measured on: the development set, the old
// held-out set, both halves of pairs_heldout2 (tuned on "tune" only) and the
// development sets of the third and fourth rounds, pairs_dev2 and pairs_dev3.
var pairSets = []pairSet{
	{"pairs", "", 0.97, 0.95},
	{"holdout", "", 0.95, 0.95},
	{"pairs_heldout2", "tune", 0.97, 0.92},
	// Measured blind (aggregate figures only) after each judge change: 0.941 /
	// 0.727 when first frozen, 0.970 / 0.727 after the second round of issue 17,
	// 1.000 / 0.773 after the third, 1.000 / 0.841 after the fourth. The floor
	// guards against regressions and was not tuned towards.
	{"pairs_heldout2", "test", 0.95, 0.82},
	// The third and fourth rounds' development sets (testdata/memory/README.md).
	{"pairs_dev2", "", 0.95, 0.83},
	{"pairs_dev3", "", 0.95, 0.77},
	// The fifth round's blind set (session i17fresh): written and committed before
	// the judge ran on it; tuned on the tune half only (0.879 / 0.518 -> 1.000 /
	// 0.714). The test half was measured at the baseline (0.857 / 0.529) and once
	// with the judge frozen (0.848 / 0.574); its floor guards against regressions
	// and was not tuned towards. Sixth round (session i17judge2): tune 0.714 ->
	// 0.786 recall at 1.000 precision; the test half measured once at the end,
	// 0.851 / 0.588.
	{"pairs_heldout3", "tune", 0.97, 0.78},
	{"pairs_heldout3", "test", 0.85, 0.58},
	// The seventh round's blind set (helper h4blind, 2026-12-04): written and
	// committed (b794bb2) before the judge ran on it. Baseline tune 0.840 /
	// 0.304, test 0.900 / 0.176; tuned on the tune half only (1.000 / 0.580);
	// the test half measured once with the judge frozen (f97fd50): 0.917 /
	// 0.216. Its floor guards against regressions and was not tuned towards.
	{"pairs_heldout4", "tune", 0.97, 0.57},
	{"pairs_heldout4", "test", 0.9, 0.2},
	// A second blind set (helper h5blind, committed 59a2196), measured once with
	// the judge frozen at f97fd50 and not tuned on (neither half's failures are
	// listed): tune 0.818 / 0.383, test 0.909 / 0.189. Regression floors.
	{"pairs_heldout5", "tune", 0.8, 0.37},
	{"pairs_heldout5", "test", 0.9, 0.18},
}

func (s pairSet) load(t *testing.T) []labelled {
	t.Helper()
	var out []labelled
	for _, p := range loadPairs(t, "../../../testdata/memory/"+s.file+".jsonl") {
		if s.split == "" || p.Split == s.split {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no pairs", s)
	}
	return out
}

// TestJudgeOnLabelledPairs measures the heuristic alone (no similarity gate) on the
// labelled pairs; the end-to-end figure with the embedder is in engine/memory.
func TestJudgeOnLabelledPairs(t *testing.T) {
	for _, set := range pairSets {
		t.Run(set.String(), func(t *testing.T) {
			pairs := set.load(t)
			// The test halves of pairs_heldout2 and pairs_heldout3 are measured blind: its failures are not
			// listed, so no rule is written for one of its sentences.
			blind := set.split == "test" || set.file == "pairs_heldout5"
			var tp, fp, fn int
			for _, p := range pairs {
				got := Check(Statement{Text: p.A, Event: p.AKind == "episode"}, Statement{Text: p.B, Event: p.BKind == "episode"})
				switch {
				case got.Contradicts && p.Conflict:
					tp++
				case got.Contradicts:
					fp++
					if !blind {
						t.Logf("false positive %s (%s): %s", p.ID, p.Category, got.Reason)
					}
				case p.Conflict:
					fn++
					if !blind {
						t.Logf("missed %s (%s): %q vs %q", p.ID, p.Category, p.A, p.B)
					}
				}
			}
			precision, recall := float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1))
			t.Logf("%s: judge alone: precision %.3f recall %.3f (tp %d fp %d fn %d of %d pairs)", set,
				precision, recall, tp, fp, fn, len(pairs))
			if precision < set.minP || recall < set.minR {
				t.Errorf("precision %.3f / recall %.3f below the required %.2f / %.2f", precision, recall, set.minP, set.minR)
			}
		})
	}
}
