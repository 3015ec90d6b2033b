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

// TestJudgeOnLabelledPairs measures the heuristic alone (no similarity gate) on the
// labelled pairs; the end-to-end figure with the embedder is in engine/memory.
func TestJudgeOnLabelledPairs(t *testing.T) {
	for _, file := range []string{"pairs", "holdout"} {
		t.Run(file, func(t *testing.T) {
			pairs := loadPairs(t, "../../../testdata/memory/"+file+".jsonl")
			var tp, fp, fn int
			for _, p := range pairs {
				got := Check(Statement{Text: p.A, Event: p.AKind == "episode"}, Statement{Text: p.B, Event: p.BKind == "episode"})
				switch {
				case got.Contradicts && p.Conflict:
					tp++
				case got.Contradicts:
					fp++
					t.Logf("false positive %s: %s", p.ID, got.Reason)
				case p.Conflict:
					fn++
					t.Logf("missed %s (%s)", p.ID, p.Category)
				}
			}
			t.Logf("%s: judge alone: precision %.3f recall %.3f (tp %d fp %d fn %d of %d pairs)", file,
				float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1)), tp, fp, fn, len(pairs))
		})
	}
}
