package memory_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// labelledPair is one line of testdata/memory/*.jsonl.
type labelledPair struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Conflict bool   `json:"conflict"`
	A        string `json:"a"`
	B        string `json:"b"`
	AKind    string `json:"a_kind"`
	BKind    string `json:"b_kind"`
	Split    string `json:"split"` // pairs_heldout2, 3 and 4: "tune" or "test"
}

func readPairs(t *testing.T, path string) []labelledPair {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelledPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p labelledPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readSplit reads one file, keeping only the pairs of one split ("" keeps all).
func readSplit(t *testing.T, file, split string) []labelledPair {
	t.Helper()
	var out []labelledPair
	for _, p := range readPairs(t, "../../testdata/memory/"+file+".jsonl") {
		if split == "" || p.Split == split {
			out = append(out, p)
		}
	}
	return out
}

func kindOr(k string) memory.Kind {
	if k == "" {
		return memory.KindFact
	}
	return memory.Kind(k)
}

// tuneFloors are the precision / recall floors on the tune half of
// pairs_heldout2 per embedder, just under what the judge reached when it was tuned
// on that half (testdata/memory/README.md); an embedder not listed gets 0.9 / 0.6.
var tuneFloors = map[string][2]float64{
	"spelunk-hash-384-v1":   {0.97, 0.87},
	"spelunk-glove-128d-v1": {0.97, 0.92},
	"spelunk-code-":         {0.97, 0.92}, // 1.000 / 0.947
}

// floorsFor is m's entry for the embedder name. The "spelunk-code-" entries
// serve every code model, since retrained weights get a new checksum suffix;
// they were measured (issue 35) with spelunk-code-256d-v1-8b446efc at its gate
// 0.37, the figures beside each, and a retrained model that falls below them
// should be looked at before it ships.
func floorsFor[F any](m map[string]F, name string) (F, bool) {
	if f, ok := m[name]; ok {
		return f, true
	}
	if strings.HasPrefix(name, "spelunk-code-") {
		f, ok := m["spelunk-code-"]
		return f, ok
	}
	var zero F
	return zero, false
}

// heldout3Floors are the precision / recall floors on pairs_heldout3 per
// embedder, tune half then test half, just under what the frozen judge reached
// (tune 1.000 / 0.679 hashing, 1.000 / 0.661 GloVe; test, measured once, 0.846 /
// 0.485 hashing, 0.844 / 0.559 GloVe; after the sixth round, session i17judge2:
// tune 1.000 / 0.732 with both, test measured once 0.846 / 0.485 hashing, 0.848 /
// 0.574 GloVe); an embedder not listed gets 0.9 / 0.5 and 0.8 / 0.4.
var heldout3Floors = map[string][4]float64{
	"spelunk-hash-384-v1":   {0.97, 0.73, 0.84, 0.48},
	"spelunk-glove-128d-v1": {0.97, 0.73, 0.84, 0.57},
	"spelunk-code-":         {0.97, 0.73, 0.84, 0.52}, // tune 1.000 / 0.750, test 0.857 / 0.529
}

// heldout4Floors are the floors on pairs_heldout4 per embedder, tune half then
// test half, just under what the judge frozen at f97fd50 reached (tune 1.000 /
// 0.435 hashing, 1.000 / 0.522 GloVe; test, measured once, 1.000 / 0.157
// hashing, 0.909 / 0.196 GloVe); an embedder not listed gets 0.9 / 0.4 and
// 0.8 / 0.1.
var heldout4Floors = map[string][4]float64{
	"spelunk-hash-384-v1":   {0.97, 0.43, 0.9, 0.15},
	"spelunk-glove-128d-v1": {0.97, 0.52, 0.9, 0.19},
	"spelunk-code-":         {0.97, 0.52, 0.9, 0.21}, // tune 1.000 / 0.522, test 0.917 / 0.216
}

// heldout5Floors are the floors on pairs_heldout5 (a second blind set, never
// tuned on), just under its one measurement with the judge frozen at f97fd50:
// tune 0.833 / 0.319 hashing, 0.900 / 0.383 GloVe; test 1.000 / 0.132
// hashing, 1.000 / 0.113 GloVe.
var heldout5Floors = map[string][4]float64{
	"spelunk-hash-384-v1":   {0.8, 0.31, 0.95, 0.13},
	"spelunk-glove-128d-v1": {0.85, 0.38, 0.95, 0.11},
	"spelunk-code-":         {0.8, 0.38, 0.95, 0.18}, // tune 0.818 / 0.383, test 1.000 / 0.189
}

// TestConflictDetectionOnLabelledPairs runs the whole write path on the labelled
// pairs: for each pair a fresh project, both memories added through Store.Add (so
// the HNSW gate at the embedder's default threshold and the heuristic judge both
// decide), and a conflict predicted when the second write opens one. It measures
// hashing, GloVe when installed and the code model when there is one
// (codeModel), reports precision and recall per embedder and fails below 0.9 / 0.8 on pairs.jsonl and
// below tuneFloors on the tune half of pairs_heldout2, below 0.95 / 0.80 on its
// blind test half (a regression floor), below 0.95 / 0.79 on pairs_dev2 and
// below 0.95 / 0.73 on pairs_dev3 and below heldout3Floors and heldout4Floors
// on both halves of pairs_heldout3 and pairs_heldout4; the old held-out set is
// reported only.
func TestConflictDetectionOnLabelledPairs(t *testing.T) {
	embedders := map[string]memory.Embedder{"hashing": embed.NewHashing(0)}
	if g, err := embed.FromConfig(embed.Config{Provider: embed.ProviderGloVe}); err == nil {
		embedders["glove (default)"] = g
	} else {
		t.Logf("GloVe data not installed (%v)", err)
	}
	if c, ok := codeModel(t); ok {
		embedders["code"] = c
	}
	db := pgtest.Open(t)
	ctx := context.Background()
	for embName, emb := range embedders {
		def := memory.DefaultThreshold(emb.Name())
		tune, ok := floorsFor(tuneFloors, emb.Name())
		if !ok {
			tune = [2]float64{0.9, 0.6}
		}
		heldout3, ok := floorsFor(heldout3Floors, emb.Name())
		if !ok {
			heldout3 = [4]float64{0.9, 0.5, 0.8, 0.4}
		}
		heldout4, ok := floorsFor(heldout4Floors, emb.Name())
		if !ok {
			heldout4 = [4]float64{0.9, 0.4, 0.8, 0.1}
		}
		heldout5, ok := floorsFor(heldout5Floors, emb.Name())
		if !ok {
			heldout5 = [4]float64{0.8, 0.3, 0.9, 0.1}
		}
		// minP / minR are the enforced floors (0: reported only).
		runs := []struct {
			file, split string
			threshold   float64
			minP, minR  float64
		}{
			{"pairs", "", def, 0.9, 0.8},
			{"holdout", "", def, 0, 0},
			{"pairs_heldout2", "tune", def, tune[0], tune[1]},
			// Blind: failures are not listed (see testdata/memory/README.md).
			// Measured blind after each round of judge changes (0.969 / 0.705 with
			// both embedders when first frozen; 0.970 / 0.727 with both after the
			// second, with the gates of DefaultThreshold; 1.000 / 0.773 with both
			// after the third; 1.000 / 0.818 with both after the fourth); a
			// regression floor, not a target.
			{"pairs_heldout2", "test", def, 0.95, 0.80},
			// The third and fourth rounds' development sets (after the fourth:
			// pairs_dev2 0.979 / 0.825 hashing, 0.979 / 0.807 GloVe; pairs_dev3
			// 0.990 / 0.782 hashing, 0.990 / 0.774 GloVe).
			{"pairs_dev2", "", def, 0.95, 0.79},
			{"pairs_dev3", "", def, 0.95, 0.73},
			// The fifth round's blind set: tuned on the tune half only; the test half
			// measured once with the judge frozen (its failures are not listed), a
			// regression floor just under that run.
			{"pairs_heldout3", "tune", def, heldout3[0], heldout3[1]},
			{"pairs_heldout3", "test", def, heldout3[2], heldout3[3]},
			// The seventh round's blind set (helper h4blind): tuned on the tune
			// half only, the test half measured once with the judge frozen.
			{"pairs_heldout4", "tune", def, heldout4[0], heldout4[1]},
			{"pairs_heldout4", "test", def, heldout4[2], heldout4[3]},
			// A second blind set, measured once with the frozen judge, not tuned on.
			{"pairs_heldout5", "tune", def, heldout5[0], heldout5[1]},
			{"pairs_heldout5", "test", def, heldout5[2], heldout5[3]},
			// The generic 0.85 gate, reported to show why the built-in embedders get
			// a default of their own.
			{"pairs", "", 0.85, 0, 0},
		}
		for _, run := range runs {
			file, th := run.file, run.threshold
			name := file
			if run.split != "" {
				name += "/" + run.split
			}
			blind := run.split == "test" || run.file == "pairs_heldout5"
			t.Run(fmt.Sprintf("%s/%s@%.2f", embName, name, th), func(t *testing.T) {
				pairs := readSplit(t, file, run.split)
				if len(pairs) < 40 {
					t.Fatalf("only %d labelled pairs in %s, want at least 40", len(pairs), name)
				}
				var tp, fp, fn int
				for _, p := range pairs {
					s := newProject(t, db, memory.Options{Embedder: emb, Threshold: th})
					mustAdd(t, s, kindOr(p.AKind), "agent-a", p.A)
					b, err := s.Add(ctx, memory.NewMemory{Kind: kindOr(p.BKind), Author: "agent-b", Text: p.B})
					if err != nil {
						t.Fatalf("%s: %v", p.ID, err)
					}
					got := b.ConflictID != ""
					switch {
					case got && p.Conflict:
						tp++
					case got:
						fp++
						if blind {
							continue
						}
						c, _ := s.Conflict(ctx, b.ConflictID)
						t.Logf("false positive %s (%s, similarity %.2f): %s", p.ID, p.Category, c.Similarity, c.Reason)
					case p.Conflict:
						fn++
						if blind {
							continue
						}
						t.Logf("missed %s (%s)", p.ID, p.Category)
					}
				}
				precision := float64(tp) / float64(max(tp+fp, 1))
				recall := float64(tp) / float64(max(tp+fn, 1))
				t.Logf("%s on %s (%d pairs, gate %.2f): precision %.3f recall %.3f (tp %d, fp %d, fn %d)",
					emb.Name(), name, len(pairs), th, precision, recall, tp, fp, fn)
				if precision < run.minP || recall < run.minR {
					t.Errorf("precision %.3f / recall %.3f below the required %.2f / %.2f", precision, recall, run.minP, run.minR)
				}
			})
		}
	}
}
