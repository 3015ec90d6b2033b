package memcache

import "math/bits"

// A ternary sketch of a vector: two bit planes, one bit per dimension set in
// "pos" when the component is clearly positive and in "neg" when clearly
// negative (beyond a fraction of the vector's mean magnitude; small components
// and the zeros of sparse vectors, such as the hashing embedder's, set
// neither). The sketch similarity of two vectors, agreements minus
// disagreements, is a few popcounts per 64 dimensions: it ranks candidates
// that are then scored exactly.
const (
	// exactBelow is the largest index scanned exactly.
	exactBelow = 8192
	// minCandidates and candidatesPer size the candidate list the sketch picks:
	// at least minCandidates, else candidatesPer per memory asked for.
	minCandidates = 400
	candidatesPer = 40
	// sketchCut is the fraction of the mean absolute component below which a
	// component is zero in the sketch.
	sketchCut = 0.5
)

// sketchWords is the uint64s per plane of a dims-long vector.
func sketchWords(dims int) int { return (dims + 63) / 64 }

// sketchOf is the sketch of v: pos words, then neg words.
func sketchOf(v []float32) []uint64 {
	w := sketchWords(len(v))
	out := make([]uint64, 2*w)
	putSketch(out, v)
	return out
}

func putSketch(out []uint64, v []float32) {
	w := sketchWords(len(v))
	var mean float32
	for _, x := range v {
		if x < 0 {
			mean -= x
		} else {
			mean += x
		}
	}
	cut := sketchCut * mean / float32(max(1, len(v)))
	for i, x := range v {
		switch {
		case x > cut:
			out[i/64] |= 1 << (i % 64)
		case x < -cut:
			out[w+i/64] |= 1 << (i % 64)
		}
	}
}

// sketchAll sketches the n = len(flat)/dims vectors of flat, one after another.
func sketchAll(flat []float32, dims int) []uint64 {
	w := 2 * sketchWords(dims)
	n := len(flat) / dims
	out := make([]uint64, n*w)
	for i := range n {
		putSketch(out[i*w:(i+1)*w], flat[i*dims:(i+1)*dims])
	}
	return out
}

// sketchSim is the sketch similarity of the query's sketch q with vector i.
// It is the inner loop of a recall past exactBelow (once per cached vector):
// one pass over the four planes with the bounds checked once.
func (x *vecIndex) sketchSim(q []uint64, i int) float64 {
	w := len(q) / 2
	s := x.sketch[i*2*w : (i+1)*2*w]
	qp, qn, sp, sn := q[:w], q[w:2*w], s[:w], s[w:2*w]
	n := 0
	for k, p := range qp {
		a, b, c := sp[k], sn[k], qn[k]
		n += bits.OnesCount64(p&a) + bits.OnesCount64(c&b) - bits.OnesCount64(p&b) - bits.OnesCount64(c&a)
	}
	return float64(n)
}
