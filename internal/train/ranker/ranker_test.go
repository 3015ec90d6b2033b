package main

import (
	"math/rand/v2"
	"testing"

	"github.com/spelunkhq/spelunk/engine/search"
)

// TestFitLearnsTheInformativeFeature: on synthetic queries whose relevant
// candidate is the one with the highest cosine while the RRF order (the
// list's order) is random, the fit puts weight on the cosine and ranks the
// relevant candidate first far more often than the list's order does.
func TestFitLearnsTheInformativeFeature(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var qs []query
	for range 200 {
		q := query{repo: "synthetic", weight: 1}
		rel := rng.IntN(20)
		for i := range 20 {
			in := make([]float64, search.LearnedInputCount())
			for j := range in {
				in[j] = rng.Float64()
			}
			in[5] = rng.Float64() * 0.5 // dense_cos
			label := 0
			if i == rel {
				in[5], label = 0.6+rng.Float64()*0.4, 2
			}
			q.x = append(q.x, search.ExpandLearned(in))
			q.label, q.test, q.boost = append(q.label, label), append(q.test, false), append(q.boost, 0)
		}
		qs = append(qs, q)
	}
	w := fit(qs[:100], make([]float64, len(search.LearnedFeatures)), 200, penalty(1e-3, 1e-3))
	if w[5] <= 0 {
		t.Fatalf("weight on dense_cos %v, want positive", w[5])
	}
	before, after := summarize(evaluate(qs[100:], nil), false), summarize(evaluate(qs[100:], w), false)
	if after.hit1 < 0.9 || after.hit1 <= before.hit1 {
		t.Fatalf("held-out hit@1 %.2f with the fit, %.2f in list order", after.hit1, before.hit1)
	}
}
