package search

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestBuiltinRankerMatchesThisBuild: the embedded ranker names this build's
// features and was trained (a file of zeros would rank every question by id).
func TestBuiltinRankerMatchesThisBuild(t *testing.T) {
	m, err := BuiltinRanker()
	if err != nil {
		t.Fatal(err)
	}
	nonzero := 0
	for _, w := range m.Weights {
		if w != 0 {
			nonzero++
		}
	}
	if nonzero < len(m.Weights)/2 || !strings.HasPrefix(m.Name, "spelunk-rank-") {
		t.Fatalf("ranker %q has %d non-zero weights of %d", m.Name, nonzero, len(m.Weights))
	}
	if _, err := ParseRankModel([]byte(`{"name":"x","features":["dense_rr"],"weights":[1]}`)); err == nil {
		t.Fatal("a model of other features was accepted")
	}
}

// TestLexicalStrength: the share of the question's idf mass the best lexical
// hit matched; a word the code never uses counts at the largest idf.
func TestLexicalStrength(t *testing.T) {
	ev := &queryEvidence{lexicalIDF: map[string]float64{"panic": 2, "recovery": 3}, lexicalTerms: 2, docs: 100}
	if got := ev.lexicalStrength(4); math.Abs(got-0.8) > 1e-9 {
		t.Fatalf("strength %v, want 0.8", got)
	}
	ev.lexicalMissing, ev.lexicalTerms = 1, 3
	if got := ev.lexicalStrength(4); got >= 0.5 {
		t.Fatalf("strength with a word the code lacks %v, want < 0.5", got)
	}
	if got := (*queryEvidence)(nil).lexicalStrength(4); got != 0 {
		t.Fatalf("no evidence gave %v", got)
	}
}

// TestLearnedFusionExplained: a question is fused by the ranker, its every
// term in explain, each channel's contribution its own terms' sum, and the
// order the same for every limit; a name is still fused by RRF, and
// Fusion "rrf" turns the ranker off.
func TestLearnedFusionExplained(t *testing.T) {
	s := recoveryRepo(t)
	ctx := context.Background()
	m, err := BuiltinRanker()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Search(ctx, "what writes the stack when a handler blows up", Options{Limit: 30, Fusion: FusionLearned})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Fusion != FusionLearned+":"+m.Name || len(resp.Results) == 0 {
		t.Fatalf("fusion %q with %d results", resp.Fusion, len(resp.Results))
	}
	for _, r := range resp.Results {
		l := r.Explain.Learned
		if l == nil || len(l.Terms) != len(LearnedFeatures) {
			t.Fatalf("%s: no learned terms in explain: %+v", r.Name, r.Explain)
		}
		sum := m.Bias
		for _, term := range l.Terms {
			sum += term.Contribution
		}
		if math.Abs(sum-l.Score) > 1e-9 || math.Abs(r.Explain.Fused-learnedScale/(1+math.Exp(-l.Score))) > 1e-12 {
			t.Fatalf("%s: score %v, terms sum %v, fused %v", r.Name, l.Score, sum, r.Explain.Fused)
		}
	}
	short, err := s.Search(ctx, "what writes the stack when a handler blows up", Options{Limit: 3, Fusion: FusionLearned})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range short.Results {
		if r.ID != resp.Results[i].ID {
			t.Fatalf("limit 3 rank %d is %s, limit 30 has %s", i+1, r.Name, resp.Results[i].Name)
		}
	}
	name, err := s.Search(ctx, "RecoveryWithWriter", Options{Fusion: FusionLearned})
	if err != nil {
		t.Fatal(err)
	}
	rrf, err := s.Search(ctx, "what writes the stack when a handler blows up", Options{Fusion: FusionRRF})
	if err != nil {
		t.Fatal(err)
	}
	if name.Fusion != FusionRRF || rrf.Fusion != FusionRRF || rrf.Results[0].Explain.Learned != nil {
		t.Fatalf("identifier fused by %q, --fusion rrf by %q", name.Fusion, rrf.Fusion)
	}
}
