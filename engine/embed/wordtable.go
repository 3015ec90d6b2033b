package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// stopNotInVocab marks a stop word with no vector in a word table's index.
const stopNotInVocab = math.MinInt32

// vectorBlock is how many word vectors are decoded together on first use.
// Words are stored by frequency, so one block of frequent words serves most
// texts; but a search's soft matching looks up rare identifiers all over the
// vocabulary, and blocks of 1024 had it decode most of the file (30 ms a
// process).
const vectorBlock = 32

// wordTable is what the word-vector embedders ([GloVe], [Static]) share: a
// vocabulary with its index, one unit vector and one weight per word, and the
// way a text becomes a vector (see embedText).
//
// The unit vectors are decoded (and allocated) by blocks of vectorBlock words
// on first use, so a process that embeds one query decodes a few blocks
// instead of the whole table.
type wordTable struct {
	wordDims int
	words    []string
	// decoded holds the decoded blocks; ReleaseVectors swaps in an empty set.
	decoded *atomic.Pointer[decodedRows]
	// weight is each word's weight in a text vector. decode may return it (a
	// block's weights are then valid once vector has returned for that block,
	// and written once: weighed).
	// A weight of 0 means the word has no usable vector.
	weight  []float32
	weighed []sync.Once
	// index maps a word to its id (>= 0); stop words map to ^id, or to
	// stopNotInVocab when the table has no vector for them.
	index *wordIndex
	// unknownWeight is the weight of a token the table does not know, hashed
	// into the dimensions after wordDims.
	unknownWeight float32
	// decode writes the unit vectors of words [lo, hi) into dst, row by row,
	// and returns the words' weights when it is what computes them (nil
	// otherwise).
	decode func(dst []float32, lo, hi int) []float32
}

// decodedRows is one set of decoded blocks: vecs[b] is block b's unit
// vectors, filled under blocks[b].
type decodedRows struct {
	vecs   [][]float32
	blocks []sync.Once
}

func newDecodedRows(blocks int) *decodedRows {
	return &decodedRows{vecs: make([][]float32, blocks), blocks: make([]sync.Once, blocks)}
}

// newWordTable indexes words (which must be distinct) and marks the stop words.
// The caller fills weight and decode.
func newWordTable(words []string, wordDims int, unknownWeight float32) (wordTable, error) {
	count := len(words)
	nb := (count + vectorBlock - 1) / vectorBlock
	t := wordTable{
		wordDims:      wordDims,
		words:         words,
		decoded:       &atomic.Pointer[decodedRows]{},
		weight:        make([]float32, count),
		weighed:       make([]sync.Once, nb),
		index:         newWordIndex(count + len(stopWords)),
		unknownWeight: unknownWeight,
	}
	t.decoded.Store(newDecodedRows(nb))
	for id, w := range words {
		if !t.index.add(w, int32(id)) {
			return wordTable{}, fmt.Errorf("duplicate word %q", w)
		}
	}
	// Stop words are marked afterwards: a few hundred lookups instead of a
	// stop-set lookup for each of the vocabulary's words.
	for _, w := range stopWords {
		if e := t.index.entry(w); e < 0 {
			t.index.add(w, stopNotInVocab)
		} else if v := t.index.vals[e]; v >= 0 { // a repeated stop word stays marked
			t.index.vals[e] = ^v
		}
	}
	return t, nil
}

// vector returns word id's unit vector, decoding its block the first time.
func (t *wordTable) vector(id int) []float32 {
	d := t.wordDims
	b := id / vectorBlock
	rows := t.decoded.Load()
	rows.blocks[b].Do(func() {
		lo, hi := b*vectorBlock, min((b+1)*vectorBlock, len(t.words))
		v := make([]float32, (hi-lo)*d)
		if w := t.decode(v, lo, hi); w != nil {
			// Decoded again after ReleaseVectors, the weights are the same:
			// written once, they are never written while read.
			t.weighed[b].Do(func() { copy(t.weight[lo:hi], w) })
		}
		rows.vecs[b] = v
	})
	k := id % vectorBlock
	return rows.vecs[b][k*d : (k+1)*d]
}

// ReleaseVectors lets go of the unit vectors decoded so far (the whole
// table, ~97 MB for the built-in model, once a large repository is
// embedded); they are decoded again by blocks as they are needed. Safe
// while other goroutines embed: they finish with the vectors they hold.
func (t *wordTable) ReleaseVectors() {
	t.decoded.Store(newDecodedRows(len(t.weighed)))
}

// wordVector returns the unit vector of word (a lower-case token as produced
// by [Tokenize]) and whether the table has one. The slice is shared and must
// not be written to (its capacity ends at its length, so an append copies).
func (t *wordTable) wordVector(word string) ([]float32, bool) {
	id, ok := t.index.get(word)
	switch {
	case !ok || id == stopNotInVocab:
		return nil, false
	case id < 0:
		id = ^id
	}
	v := t.vector(int(id))
	if t.weight[id] == 0 {
		return nil, false
	}
	return v[:len(v):len(v)], true
}

// embedTexts returns one unit vector of dims (wordDims plus the hashed
// dimensions) per text; label names the embedder in errors. It fails only when
// ctx is done.
func (t *wordTable) embedTexts(ctx context.Context, label string, dims int, texts []string) ([][]float32, error) {
	out := alloc(len(texts), dims)
	sc := getScratch()
	defer putScratch(sc)
	for i, text := range texts {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s embed: %w", label, err)
			}
		}
		t.embedText(sc, text, out[i])
	}
	return out, nil
}

// embedText writes the vector of text into out, which must be zero:
//
//   - known words: the sum of their unit vectors, each weighted by the word's
//     weight times the sublinear term frequency 1+ln(tf);
//   - unknown tokens: signed feature hashing into the dimensions after
//     wordDims, weight unknownWeight × (1+ln tf);
//   - stop words are dropped, unless the text has nothing else;
//   - a text with no word at all gets a fixed unit vector.
//
// The whole vector is L2-normalised; it is never zero.
func (t *wordTable) embedText(sc *scratch, text string, out []float32) {
	text = clip(text)
	ids, feats := t.tokens(sc, text)
	wv, hv := out[:t.wordDims], out[t.wordDims:]
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		id := int(ids[i])
		vec := t.vector(id) // before the weight, which decode may set
		w := t.weight[id] * tfWeight(j-i)
		wv := wv[:len(vec)]
		for k, x := range vec {
			wv[k] += w * x
		}
		i = j
	}
	for i := 0; i < len(feats); {
		j := i + 1
		for j < len(feats) && feats[j] == feats[i] {
			j++
		}
		b, sign := bucket(feats[i], len(hv))
		hv[b] += sign * t.unknownWeight * tfWeight(j-i)
		i = j
	}
	if !normalize(out) {
		// Everything cancelled out, or every word had a zero weight: keep a
		// unit vector.
		clear(out)
		b, sign := bucket(emptyFeature(text), len(hv))
		hv[b] = sign
	}
}

// tokens sorts the tokens of text (already clipped) as embedText reads them:
// the ids of the words the table knows and the hashed features of the tokens
// it does not, each sorted so that repeats are adjacent. Stop words are
// dropped unless the text has nothing else; a text without any word gets one
// fixed feature. The slices are sc's.
func (t *wordTable) tokens(sc *scratch, text string) (ids []int32, feats []uint64) {
	sc.tok.reset(text)
	ids, stops, feats, stopFeats := sc.ids[:0], sc.stops[:0], sc.feats[:0], sc.stopFeats[:0]
	for tok := sc.tok.next(); tok != nil; tok = sc.tok.next() {
		id, ok := t.index.getBytes(tok)
		switch {
		case !ok:
			feats = append(feats, tokenFeature(tok))
		case id >= 0:
			ids = append(ids, id)
		case id != stopNotInVocab:
			stops = append(stops, ^id)
		default:
			stopFeats = append(stopFeats, tokenFeature(tok))
		}
	}
	sc.ids, sc.stops, sc.feats, sc.stopFeats = ids, stops, feats, stopFeats
	if len(ids) == 0 && len(feats) == 0 {
		// Only stop words: they are all the meaning there is.
		ids, feats = stops, stopFeats
		if len(ids) == 0 && len(feats) == 0 {
			feats = append(feats, emptyFeature(text))
			sc.feats = feats
		}
	}
	slices.Sort(ids)
	slices.Sort(feats)
	return ids, feats
}

// unitRows scales each row of d values in dst to unit length in place and
// returns the norms it divided by (zero and non-finite rows are left as they
// are, with norm 0) through norms, which must have one entry per row.
func unitRows(dst []float32, d int, norms []float32) {
	for r := range norms {
		row := dst[r*d : (r+1)*d]
		var ss float64
		for _, x := range row {
			ss += float64(x) * float64(x)
		}
		norms[r] = 0
		if ss == 0 || math.IsInf(ss, 0) || math.IsNaN(ss) {
			continue
		}
		n := math.Sqrt(ss)
		inv := float32(1 / n)
		for k := range row {
			row[k] *= inv
		}
		norms[r] = float32(n)
	}
}
