package embed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// DefaultHashDims is the dimension of [NewHashing] when none is given.
const DefaultHashDims = 384

// Hashing is a pure, deterministic embedder that needs no data: the fallback
// when the GloVe file is absent. It hashes identifier sub-tokens (stop words
// and keywords down-weighted), adjacent token pairs and character trigrams of
// each token into signed buckets (the "hashing trick"), with sublinear term
// frequency, then L2-normalises. It matches shared words, word order and
// spelling variants, but not synonyms.
type Hashing struct {
	dims int
}

// NewHashing returns a hashing embedder with dims dimensions (384 when
// dims <= 0).
func NewHashing(dims int) *Hashing {
	if dims <= 0 {
		dims = DefaultHashDims
	}
	return &Hashing{dims: dims}
}

// Name returns "spelunk-hash-<dims>-v1".
func (h *Hashing) Name() string { return fmt.Sprintf("spelunk-hash-%d-v1", h.dims) }

// Dims returns the vector length.
func (h *Hashing) Dims() int { return h.dims }

// Embed returns one unit vector per text. It never fails except when ctx is
// done; an empty or punctuation-only text still gets a (fixed) unit vector.
func (h *Hashing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := alloc(len(texts), h.dims)
	sc := getScratch()
	defer putScratch(sc)
	for i, text := range texts {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("hashing embed: %w", err)
			}
		}
		sc.feats = hashFeatures(sc, text, sc.feats[:0])
		scatter(out[i], sc.feats)
	}
	return out, nil
}

// Feature kinds, kept in the low two bits of a feature hash.
const (
	kindToken   = 0
	kindStop    = 1
	kindPair    = 2
	kindTrigram = 3
)

// kindWeight is the weight of one occurrence of each feature kind.
var kindWeight = [4]float32{kindToken: 1, kindStop: 0.25, kindPair: 0.5, kindTrigram: 0.25}

// maxTrigramBytes bounds the trigrams taken from one token: a long token
// (a hash, a base64 blob) adds little beyond its first bytes.
const maxTrigramBytes = 64

func seed(kind int) uint64 { return (fnvOffset ^ uint64(kind+1)) * fnvPrime }

func feature(h uint64, kind int) uint64 { return mix64(h)&^3 | uint64(kind) }

// tokenFeature is the hash feature of a single token.
func tokenFeature(tok []byte) uint64 { return feature(fnvAdd(seed(kindToken), tok), kindToken) }

// hashFeatures appends the hashed features of text to feats: tokens (stop
// words as their own, lighter kind), adjacent token pairs and the character
// trigrams of each token padded with spaces.
func hashFeatures(sc *scratch, text string, feats []uint64) []uint64 {
	text = clip(text)
	sc.tok.reset(text)
	sc.prev = sc.prev[:0]
	for tok := sc.tok.next(); tok != nil; tok = sc.tok.next() {
		kind := kindToken
		if isStop(tok) {
			kind = kindStop
		}
		feats = append(feats, feature(fnvAdd(seed(kind), tok), kind))
		if len(sc.prev) > 0 {
			h := fnvAdd(seed(kindPair), sc.prev)
			h = (h ^ 0xff) * fnvPrime // 0xff never occurs in UTF-8: an unambiguous separator
			feats = append(feats, feature(fnvAdd(h, tok), kindPair))
		}
		sc.prev = append(sc.prev[:0], tok...)
		t := tok
		if len(t) > maxTrigramBytes {
			t = t[:maxTrigramBytes]
		}
		sc.pad = append(append(append(sc.pad[:0], ' '), t...), ' ')
		for i := 0; i+3 <= len(sc.pad); i++ {
			feats = append(feats, feature(fnvAdd(seed(kindTrigram), sc.pad[i:i+3]), kindTrigram))
		}
	}
	if len(feats) == 0 {
		feats = append(feats, emptyFeature(text))
	}
	return feats
}

// emptyFeature stands in for a text with no word at all ("", "==", "{}"), so
// that every text gets a unit vector and identical texts stay identical.
func emptyFeature(text string) uint64 {
	t := strings.TrimSpace(text)
	if len(t) > maxTrigramBytes {
		t = t[:maxTrigramBytes]
	}
	return feature(fnvAddString(seed(kindToken)^0x5bd1e995, t), kindToken)
}

// bucket maps a feature to a dimension in [0, n) and a sign.
func bucket(f uint64, n int) (int, float32) {
	b := int((f >> 2 & (1<<40 - 1)) % uint64(n))
	if f>>63 != 0 {
		return b, -1
	}
	return b, 1
}

// scatter sums the signed, sublinearly weighted features into out (which must
// be zero) and normalises it. feats is sorted in place.
func scatter(out []float32, feats []uint64) {
	slices.Sort(feats)
	for i := 0; i < len(feats); {
		j := i + 1
		for j < len(feats) && feats[j] == feats[i] {
			j++
		}
		b, sign := bucket(feats[i], len(out))
		out[b] += sign * kindWeight[feats[i]&3] * tfWeight(j-i)
		i = j
	}
	if !normalize(out) {
		// Every feature cancelled out (vanishingly rare): fall back to the
		// first feature alone so the result is still a unit vector.
		clear(out)
		b, sign := bucket(feats[0], len(out))
		out[b] = sign
	}
}

// scratch holds per-call buffers, pooled so steady-state embedding does not
// allocate beyond the result.
type scratch struct {
	tok   tokenizer
	prev  []byte
	pad   []byte
	feats []uint64
	ids   []int32
	stops []int32
	// stopFeats are the hashed stop words GloVe has no vector for.
	stopFeats []uint64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(sc *scratch) {
	// Do not keep the buffers of a pathological text alive in the pool.
	const keep = 1 << 16
	if cap(sc.feats) > keep || cap(sc.stopFeats) > keep || cap(sc.ids) > keep || cap(sc.stops) > keep || cap(sc.tok.buf) > keep {
		return
	}
	sc.tok.s = ""
	scratchPool.Put(sc)
}
