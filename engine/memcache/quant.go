package memcache

import (
	"math"
	"math/bits"
)

// A ternary sketch of a vector: two bit planes, one bit per dimension set in
// "pos" when the component is clearly positive and in "neg" when clearly
// negative (beyond a fraction of the vector's mean magnitude; small components
// and the zeros of sparse vectors, such as the hashing embedder's, set
// neither). The sketch similarity of two vectors, agreements minus
// disagreements, is a few popcounts per 64 dimensions: it ranks candidates
// that are then scored exactly. (A one-bit sign sketch is half the size, but
// it gives every zero of a sparse vector a sign, and the hashing embedder's
// vectors are mostly zeros.)
const (
	// exactBelow is the largest index scanned exactly.
	exactBelow = 2048
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

// sketchAll sketches the n = len(flat)/dims vectors of flat, one after another,
// into one contiguous slab (a pass over it reads memory in order).
func sketchAll(flat []float32, dims int) []uint64 {
	w := 2 * sketchWords(dims)
	n := len(flat) / dims
	out := make([]uint64, n*w)
	for i := range n {
		putSketch(out[i*w:(i+1)*w], flat[i*dims:(i+1)*dims])
	}
	return out
}

// sketchSim is the sketch similarity of q with the sketch s (both pos words,
// then neg words). A vector's pos and neg bits are disjoint, so the two kinds
// of agreement (and of disagreement) never share a bit and one popcount of
// their union counts both: two popcounts per word pair, not four.
func sketchSim(q, s []uint64) int {
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

// sketchSim6 is sketchSim for 384-dim vectors (six words a plane, the
// embedders' usual size) with the loop unrolled and the bounds checked once:
// it runs once per cached vector and query.
func sketchSim6(q *[12]uint64, s *[12]uint64) int {
	n := 0
	for k := range 6 {
		a, b, p, m := s[k], s[6+k], q[k], q[6+k]
		n += bits.OnesCount64(p&a|m&b) - bits.OnesCount64(p&b|m&a)
	}
	return n
}

// sketchTop is the index positions of the k vectors with the best sketch similarity to q times their
// weight, in no order: one pass over the slab keeping a bounded min-heap of the best so far.
// Most vectors fail the comparison with its root, inline, and cost nothing more.
// The index is in order of weight, lowest first (oldest first), and the pass
// runs from the end; no sketch similarity exceeds best, the query's own bit
// count: once best × weight is below the root's score, no vector left can
// enter the heap, and the pass stops there. The candidates are those of a pass over every
// vector; with a 30-day half-life a read rarely looks past the last few weeks.
func (x *vecIndex) sketchTop(q []uint64, k int) []int {
	h := scoredHeap{x: x, s: make([]scored, 0, k)}
	w, n := len(q), len(x.ids)
	weight := x.weight[:n]
	var q6 *[12]uint64
	if w == 12 {
		q6 = (*[12]uint64)(q)
	}
	best := 0.0
	for _, word := range q {
		best += float64(bits.OnesCount64(word))
	}
	floor := math.Inf(-1) // the root's score once the heap is full
	for i := n - 1; i >= 0; i-- {
		if best*weight[i] < floor {
			break
		}
		var sim int
		if q6 != nil {
			sim = sketchSim6(q6, (*[12]uint64)(x.sketch[i*12:i*12+12]))
		} else {
			sim = sketchSim(q, x.sketch[i*w:(i+1)*w])
		}
		v := float64(sim)
		if s := v * weight[i]; s >= floor {
			h.offer(scored{i: i, sim: v, score: s}, k)
			if len(h.s) == k {
				floor = h.s[0].score
			}
		}
	}
	out := make([]int, len(h.s))
	for j, c := range h.s {
		out[j] = c.i
	}
	return out // in no order: the caller scores them exactly and ranks that
}

// scoredHeap is a min-heap by vecIndex.better: its root is the worst kept.
type scoredHeap struct {
	x *vecIndex
	s []scored
}

// offer keeps s when fewer than k are kept or it beats the worst kept.
func (h *scoredHeap) offer(s scored, k int) {
	if len(h.s) < k {
		h.s = append(h.s, s)
		h.up(len(h.s) - 1)
		return
	}
	if k == 0 || !h.x.better(s, h.s[0]) {
		return
	}
	h.s[0] = s
	h.down(0)
}

func (h *scoredHeap) up(j int) {
	for j > 0 {
		p := (j - 1) / 2
		if !h.x.better(h.s[p], h.s[j]) {
			return
		}
		h.s[p], h.s[j] = h.s[j], h.s[p]
		j = p
	}
}

func (h *scoredHeap) down(j int) {
	n := len(h.s)
	for {
		c := 2*j + 1
		if c >= n {
			return
		}
		if c+1 < n && h.x.better(h.s[c], h.s[c+1]) {
			c++ // the worse child
		}
		if !h.x.better(h.s[j], h.s[c]) {
			return
		}
		h.s[j], h.s[c] = h.s[c], h.s[j]
		j = c
	}
}
