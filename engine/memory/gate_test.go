package memory_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
)

// gateTuneSets are the halves the similarity gates are chosen on: the tune
// halves of the split sets (testdata/memory/README.md). The test halves and
// pairs_heldout5 (blind as a whole) are never read here.
var gateTuneSets = []struct{ file, split string }{
	{"pairs_heldout2", "tune"},
	{"pairs_heldout3", "tune"},
	{"pairs_heldout4", "tune"},
}

// scoredPair is a labelled pair with the embedder's similarity and the
// judge's verdict on it.
type scoredPair struct {
	labelledPair
	sim    float64
	judged bool // the heuristic judge alone flags it
}

// scorePairs embeds both sides of every pair and asks the judge.
func scorePairs(t *testing.T, emb memory.Embedder, pairs []labelledPair) []scoredPair {
	t.Helper()
	ctx := context.Background()
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.A, p.B)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]scoredPair, len(pairs))
	for i, p := range pairs {
		v, err := memory.HeuristicJudge{}.Judge(ctx,
			memory.Claim{Kind: kindOr(p.AKind), Text: p.A}, memory.Claim{Kind: kindOr(p.BKind), Text: p.B})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = scoredPair{labelledPair: p, sim: cosine(vecs[2*i], vecs[2*i+1]), judged: v.Contradicts}
	}
	return out
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// gateCounts is what a gate at one threshold lets through.
type gateCounts struct {
	conflicts, conflictsPassed int // labelled contradictions
	judged, judgedPassed       int // contradictions the judge alone flags
	negatives, negativesPassed int // labelled non-contradictions
	falseJudged, falsePassed   int // non-contradictions the judge alone flags
}

func countGate(ps []scoredPair, th float64) gateCounts {
	var c gateCounts
	for _, p := range ps {
		pass := p.sim >= th
		switch {
		case p.Conflict:
			c.conflicts++
			c.judged += b2i(p.judged)
			c.conflictsPassed += b2i(pass)
			c.judgedPassed += b2i(pass && p.judged)
		default:
			c.negatives++
			c.negativesPassed += b2i(pass)
			c.falseJudged += b2i(p.judged)
			c.falsePassed += b2i(pass && p.judged)
		}
	}
	return c
}

func (c gateCounts) String() string {
	return fmt.Sprintf("contradictions passed %d/%d (%.3f), judged ones %d/%d, non-contradictions passed %d/%d (%.3f), judged ones %d/%d",
		c.conflictsPassed, c.conflicts, ratio(c.conflictsPassed, c.conflicts), c.judgedPassed, c.judged,
		c.negativesPassed, c.negatives, ratio(c.negativesPassed, c.negatives), c.falsePassed, c.falseJudged)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(a, b int) float64 { return float64(a) / float64(max(b, 1)) }

// quantiles summarises sorted similarities: min, 10th, 25th, 50th, 75th,
// 90th percentile, max.
func quantiles(s []float64) string {
	if len(s) == 0 {
		return "none"
	}
	q := func(f float64) float64 { return s[int(math.Round(f*float64(len(s)-1)))] }
	return fmt.Sprintf("min %.2f p10 %.2f p25 %.2f p50 %.2f p75 %.2f p90 %.2f max %.2f",
		s[0], q(0.1), q(0.25), q(0.5), q(0.75), q(0.9), s[len(s)-1])
}

// TestGateOnTuneHalves measures each embedder's similarity gate on the tune
// halves: the similarity of contradicting and other pairs, and what the gate at
// DefaultThreshold lets through. The code model's gate must keep at least as
// many contradictions as GloVe's (all of them, and those the judge catches),
// the rule its threshold was chosen by; the highest threshold that does so is
// logged, so a retrained model shows whether its gate should move.
func TestGateOnTuneHalves(t *testing.T) {
	var pairs []labelledPair
	var sets []int // gateTuneSets index of each pair
	for i, s := range gateTuneSets {
		ps := readSplit(t, s.file, s.split)
		pairs = append(pairs, ps...)
		for range ps {
			sets = append(sets, i)
		}
	}
	if len(pairs) < 300 {
		t.Fatalf("only %d tune pairs, want at least 300", len(pairs))
	}
	type measured struct {
		name string
		ps   []scoredPair
		at   gateCounts // at DefaultThreshold
	}
	var runs []measured
	embedders := []memory.Embedder{embed.NewHashing(0)}
	if g, err := embed.FromConfig(embed.Config{Provider: embed.ProviderGloVe}); err == nil {
		embedders = append(embedders, g)
	} else {
		t.Logf("GloVe data not installed (%v)", err)
	}
	if c, ok := codeModel(t); ok {
		embedders = append(embedders, c)
	}
	for _, emb := range embedders {
		ps := scorePairs(t, emb, pairs)
		var pos, neg []float64
		for _, p := range ps {
			if p.Conflict {
				pos = append(pos, p.sim)
			} else {
				neg = append(neg, p.sim)
			}
		}
		slices.Sort(pos)
		slices.Sort(neg)
		th := memory.DefaultThreshold(emb.Name())
		at := countGate(ps, th)
		t.Logf("%s: contradictions %s", emb.Name(), quantiles(pos))
		t.Logf("%s: non-contradictions %s", emb.Name(), quantiles(neg))
		t.Logf("%s @%.2f: %v", emb.Name(), th, at)
		for i, s := range gateTuneSets {
			var sub []scoredPair
			for j, p := range ps {
				if sets[j] == i {
					sub = append(sub, p)
				}
			}
			t.Logf("  %s/%s: %v", s.file, s.split, countGate(sub, th))
		}
		runs = append(runs, measured{emb.Name(), ps, at})
	}
	var glove *measured
	for i := range runs {
		if strings.HasPrefix(runs[i].name, "spelunk-glove-") {
			glove = &runs[i]
		}
	}
	if glove == nil {
		return
	}
	for _, r := range runs {
		if !strings.HasPrefix(r.name, "spelunk-code-") {
			continue
		}
		// The highest gate (by 0.01) that keeps GloVe's contradictions.
		best := 0.0
		for h := 99; h > 0; h-- {
			th := float64(h) / 100
			c := countGate(r.ps, th)
			if c.conflictsPassed >= glove.at.conflictsPassed && c.judgedPassed >= glove.at.judgedPassed {
				best = th
				for k := max(h-3, 1); k <= min(h+3, 99); k++ {
					t.Logf("  gate %.2f: %v", float64(k)/100, countGate(r.ps, float64(k)/100))
				}
				t.Logf("%s: highest gate keeping GloVe's %d contradictions (%d judged): %.2f, %v",
					r.name, glove.at.conflictsPassed, glove.at.judgedPassed, best, c)
				break
			}
		}
		if r.at.conflictsPassed < glove.at.conflictsPassed || r.at.judgedPassed < glove.at.judgedPassed {
			t.Errorf("%s @%.2f passes %d contradictions (%d the judge flags), GloVe @%.2f %d (%d): lower the gate to %.2f",
				r.name, memory.DefaultThreshold(r.name), r.at.conflictsPassed, r.at.judgedPassed,
				memory.DefaultThreshold(glove.name), glove.at.conflictsPassed, glove.at.judgedPassed, best)
		}
	}
}
