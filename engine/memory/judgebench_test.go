package memory

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkJudgeCandidates measures the judge's share of one add: a new memory
// against maxCandidates stored ones. "each pair" analyses both sides of every
// pair (the single add before issue 17's third round); "memo" analyses the new
// memory once and the candidates through the shared cache, first seen ("cold")
// and met again by a later add ("warm").
func BenchmarkJudgeCandidates(b *testing.B) {
	ctx := context.Background()
	newClaim := Claim{Kind: KindFact, Text: "The payments service retries failed webhooks 5 times with exponential backoff."}
	cands := make([]Claim, maxCandidates)
	for i := range cands {
		cands[i] = Claim{Kind: KindFact, Text: fmt.Sprintf("The payments service %d retries failed webhooks %d times, then alerts the on-call engineer.", i, i+1)}
	}
	b.Run("each pair", func(b *testing.B) {
		for b.Loop() {
			for _, c := range cands {
				if _, err := (HeuristicJudge{}).Judge(ctx, newClaim, c); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("memo cold", func(b *testing.B) {
		n := 0
		for b.Loop() {
			j := newMemoJudge(HeuristicJudge{})
			for _, c := range cands {
				c.Text += fmt.Sprint(" ", n) // unseen: the cache misses
				if _, err := j.Judge(ctx, newClaim, c); err != nil {
					b.Fatal(err)
				}
			}
			n++
		}
	})
	b.Run("memo warm", func(b *testing.B) {
		for b.Loop() {
			j := newMemoJudge(HeuristicJudge{})
			for _, c := range cands {
				if _, err := j.Judge(ctx, newClaim, c); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
