package search

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// tableVectors is a small word-vector table: unit vectors keyed by word.
type tableVectors map[string][]float32

func (t tableVectors) WordVector(w string) ([]float32, bool) {
	v, ok := t[w]
	return v, ok
}

func unit(v ...float32) []float32 {
	var n float32
	for _, x := range v {
		n += x * x
	}
	n = float32(math.Sqrt(float64(n)))
	for i := range v {
		v[i] /= n
	}
	return v
}

// TestSoftRerankLiftsCloseWords: a candidate whose words are near the query's
// words ("refunded" for "refund") overtakes one the walk ranked higher whose
// words are not, and an exact word counts fully even without a vector.
func TestSoftRerankLiftsCloseWords(t *testing.T) {
	wv := tableVectors{
		"refund":   unit(1, 0.1, 0),
		"refunded": unit(0.95, 0.2, 0),
		"money":    unit(0.6, 0.8, 0),
		"banner":   unit(0, 0, 1),
		"colour":   unit(0, 0.1, 1),
	}
	p := analyze("refund money", "")
	pool := []hit{{id: 1, score: 0.9}, {id: 2, score: 0.7}, {id: 3, score: 0.5}}
	texts := map[int64]string{1: "banner colour", 2: "refunded money", 3: "xyzzy refund"}
	got := softRerank(wv, p, pool, texts)
	if got[0].id != 2 {
		t.Fatalf("close words did not lift candidate 2 first: %+v", got)
	}
	for _, h := range got {
		if h.id == 3 && h.score < (1-softWeight)*0.5+softWeight*0.5 {
			t.Fatalf("the exact word refund did not count fully: %+v", h)
		}
	}
}

// TestSoftRerankMatchesPerCandidateScoring checks the pool-wide memo of word
// similarities against scoring each candidate's words afresh.
func TestSoftRerankMatchesPerCandidateScoring(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("open close read write server client idle timeout connection socket buffer the of stream")
	wv := tableVectors{}
	for _, w := range vocab[:12] { // two words without a vector
		wv[w] = unit(rng.Float32()-0.5, rng.Float32()-0.5, rng.Float32()-0.5, rng.Float32()-0.5)
	}
	p := analyze("how does the server close an idle connection after a timeout stream", "")
	pool := make([]hit, 40)
	texts := map[int64]string{}
	for i := range pool {
		words := make([]string, 12)
		for j := range words {
			words[j] = vocab[rng.IntN(len(vocab))]
		}
		pool[i] = hit{id: int64(i), score: rng.Float64()}
		texts[int64(i)] = strings.Join(words, " ")
	}
	want := map[int64]float64{}
	var qwords []string
	for _, w := range p.words {
		if !embed.IsStopWord(w) {
			qwords = append(qwords, w)
		}
	}
	for _, h := range pool {
		soft := 0.0
		for _, qw := range qwords {
			best := 0.0
			qv, _ := wv.WordVector(qw)
			for _, dw := range embed.Tokenize(texts[h.id]) {
				dv, _ := wv.WordVector(dw)
				switch {
				case embed.IsStopWord(dw):
				case qw == dw:
					best = 1
				case qv != nil && dv != nil:
					best = max(best, cosine(qv, dv))
				}
			}
			soft += best
		}
		want[h.id] = (1-softWeight)*h.score + softWeight*soft/float64(len(qwords))
	}
	for _, h := range softRerank(wv, p, pool, texts) {
		if math.Abs(h.score-want[h.id]) > 1e-9 {
			t.Fatalf("candidate %d: %v, want %v", h.id, h.score, want[h.id])
		}
	}
}
