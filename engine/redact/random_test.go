package redact

import (
	"math/rand/v2"
	"testing"
)

// TestLooksRandomCatchesRandomKeys checks the high-entropy rule on what it
// is for: random base64 keys of the usual lengths.
func TestLooksRandomCatchesRandomKeys(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{20, 24, 32, 40, 64} {
		caught := 0
		const trials = 5000
		for range trials {
			v := make([]byte, n)
			for k := range v {
				v[k] = alphabet[rng.IntN(len(alphabet))]
			}
			if looksRandom(v) {
				caught++
			}
		}
		rate := float64(caught) / trials
		t.Logf("length %d: %.1f%% of random keys caught", n, 100*rate)
		if rate < 0.95 {
			t.Errorf("length %d: only %.1f%% of random base64 strings look random", n, 100*rate)
		}
	}
}
