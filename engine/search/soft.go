package search

import (
	"sort"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// wordVectors is implemented by embedders built on word vectors. With it the dense channel adds soft term matching: for each
// query word, its best similarity to a word of the candidate's name, doc comment
// and signature. One mean vector per text blurs a question; per-word maxima keep
// "money back" close to "refunded" (docs/ARCHITECTURE.md §6 measured this beats
// plain averaging).
type wordVectors interface {
	WordVector(word string) ([]float32, bool)
}

// softMatched says which embedders get soft matching: GloVe, whose word vectors
// were never trained for retrieval. The code model's text vector was trained
// end to end on (text, code) pairs; on the tuning half of the real-code set,
// soft matching over its word vectors lowered lay questions' hit@5 (dense alone
// 0.41 -> 0.37, hybrid 0.54 -> 0.49).
func softMatched(e Embedder) (wordVectors, bool) {
	g, ok := e.(*embed.GloVe)
	return g, ok
}

// softWeight is the share of the soft term score in the dense channel's score.
const softWeight = 0.6

// softLongWords bounds the query words soft matching compares for a long input
// (the cost is words x pool x candidate words).
const softLongWords = 12

// softRerank rescores the dense pool; texts holds each hit's name, signature and
// doc words. Query words the embedder does not know count only through exact
// matches.
func softRerank(wv wordVectors, p plan, pool []hit, texts map[int64]string) []hit {
	var qwords []string
	for _, w := range p.words {
		if !embed.IsStopWord(w) {
			qwords = append(qwords, w)
		}
	}
	if len(qwords) == 0 || len(pool) == 0 {
		return pool
	}
	if p.long && len(qwords) > softLongWords {
		qwords = qwords[:softLongWords] // a long input's words come most frequent first
	}
	qvecs := make([][]float32, len(qwords))
	for i, w := range qwords {
		qvecs[i], _ = wv.WordVector(w)
	}
	// Each distinct word of the pool is compared with the query words once: a
	// pool's texts share most of their words (names, "returns", "value").
	sims := map[string][]float64{}
	simsOf := func(dw string) []float64 {
		if v, ok := sims[dw]; ok {
			return v
		}
		v := make([]float64, len(qwords))
		dv, _ := wv.WordVector(dw)
		for qi, qw := range qwords {
			switch {
			case qw == dw:
				v[qi] = 1
			case qvecs[qi] != nil && dv != nil:
				v[qi] = cosine(qvecs[qi], dv)
			}
		}
		sims[dw] = v
		return v
	}
	out := make([]hit, len(pool))
	seen := map[string]bool{}
	best := make([]float64, len(qwords))
	for i, h := range pool {
		clear(seen)
		clear(best)
		for _, dw := range embed.Tokenize(texts[h.id]) {
			if seen[dw] || embed.IsStopWord(dw) {
				continue
			}
			seen[dw] = true
			for qi, c := range simsOf(dw) {
				best[qi] = max(best[qi], c)
			}
		}
		soft := 0.0
		for _, b := range best {
			soft += b
		}
		soft /= float64(len(best))
		out[i] = hit{id: h.id, score: (1-softWeight)*h.score + softWeight*soft}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].score > out[b].score })
	return out
}

// cosine of two unit vectors (WordVector returns unit vectors).
func cosine(a, b []float32) float64 {
	var dot float32
	for i := range a {
		dot += a[i] * b[i]
	}
	return float64(dot)
}
