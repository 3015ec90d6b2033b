// Package vecsketch is a ternary sketch of float vectors: a cheap similarity
// that ranks many vectors so that only the best few are scored exactly. The
// edge cache's local reads (memcache) and the core's set-wise conflict check of
// a pushed run (memory.AddMany) both use it.
package vecsketch

import "math/bits"

// A sketch has two bit planes, one bit per dimension set in "pos" when the
// component is clearly positive and in "neg" when clearly negative (beyond a
// fraction of the vector's mean magnitude; small components and the zeros of
// sparse vectors, such as the hashing embedder's, set neither). The sketch
// similarity of two vectors, agreements minus disagreements, is a few
// popcounts per 64 dimensions. (A one-bit sign sketch is half the size, but it
// gives every zero of a sparse vector a sign, and the hashing embedder's
// vectors are mostly zeros.)

// cut is the fraction of the mean absolute component below which a component
// is zero in the sketch.
const cut = 0.5

// Words is the uint64s per plane of a dims-long vector; a sketch is 2×Words.
func Words(dims int) int { return (dims + 63) / 64 }

// Of is the sketch of v: pos words, then neg words.
func Of(v []float32) []uint64 {
	out := make([]uint64, 2*Words(len(v)))
	Put(out, v)
	return out
}

// Put writes the sketch of v into out (2×Words(len(v)) zeroed words).
func Put(out []uint64, v []float32) {
	w := Words(len(v))
	var mean float32
	for _, x := range v {
		if x < 0 {
			mean -= x
		} else {
			mean += x
		}
	}
	c := cut * mean / float32(max(1, len(v)))
	for i, x := range v {
		switch {
		case x > c:
			out[i/64] |= 1 << (i % 64)
		case x < -c:
			out[w+i/64] |= 1 << (i % 64)
		}
	}
}

// All sketches the n = len(flat)/dims vectors of flat, one after another, into
// one contiguous slab (a pass over it reads memory in order).
func All(flat []float32, dims int) []uint64 {
	w := 2 * Words(dims)
	n := len(flat) / dims
	out := make([]uint64, n*w)
	for i := range n {
		Put(out[i*w:(i+1)*w], flat[i*dims:(i+1)*dims])
	}
	return out
}

// Sim is the sketch similarity of q with the sketch s (both pos words, then
// neg words). A vector's pos and neg bits are disjoint, so the two kinds of
// agreement (and of disagreement) never share a bit and one popcount of their
// union counts both: two popcounts per word pair, not four.
func Sim(q, s []uint64) int {
	w := len(q) / 2
	qp, qn := q[:w], q[w:2*w]
	sp, sn := s[:w:w], s[w:2*w:2*w]
	n := 0
	for k := range sp {
		a, b := sp[k], sn[k]
		n += bits.OnesCount64(qp[k]&a|qn[k]&b) - bits.OnesCount64(qp[k]&b|qn[k]&a)
	}
	return n
}

// Sim6 is Sim for 384-dim vectors (six words a plane, the embedders' usual
// size) with the loop unrolled and the bounds checked once: it runs once per
// stored vector and query.
func Sim6(q *[12]uint64, s *[12]uint64) int {
	n := 0
	for k := range 6 {
		a, b, p, m := s[k], s[6+k], q[k], q[6+k]
		n += bits.OnesCount64(p&a|m&b) - bits.OnesCount64(p&b|m&a)
	}
	return n
}

// Dot is the cosine similarity of two L2-normalised vectors (0 when their
// dimensions differ).
func Dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	// Four accumulators: the loop is the whole cost of a local recall, and
	// independent sums let the CPU overlap the multiplications. Four floats of
	// each a step, sliced once, so that no element is bounds-checked (the sums
	// are the same, in the same order).
	var s0, s1, s2, s3 float32
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64((s0 + s1) + (s2 + s3))
}
