package memcache

import (
	"math"
	"math/bits"

	"github.com/spelunkhq/spelunk/engine/vecsketch"
)

// The candidate search of a vector read past exactBelow: the ternary sketch of
// each cached vector (engine/vecsketch) ranks them all cheaply, and the best
// few are scored exactly.
const (
	// exactBelow is the largest index scanned exactly.
	exactBelow = 2048
	// minCandidates and candidatesPer size the candidate list the sketch picks:
	// at least minCandidates, else candidatesPer per memory asked for.
	minCandidates = 400
	candidatesPer = 40
)

// The sketch functions, under the names this package's code and tests use.
var (
	sketchWords = vecsketch.Words
	sketchOf    = vecsketch.Of
	sketchAll   = vecsketch.All
	sketchSim   = vecsketch.Sim
	sketchSim6  = vecsketch.Sim6
)

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
