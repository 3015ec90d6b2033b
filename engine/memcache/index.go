package memcache

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/vecsketch"
)

// vecIndex is the cached vectors of the live memories held in memory: a recall
// is a brute-force scan of one contiguous slice, loaded from the file on first
// use and dropped whenever a pull or a tombstone changes the memories; a local
// add appends its vector. The vectors are in order of creation, oldest first,
// so of weight, lowest first: the scans run from the end and stop where the
// weight alone rules the rest out, and the newest memory is an append.
type vecIndex struct {
	mu      sync.Mutex
	loaded  bool
	dims    int
	ids     []string
	created []int64
	flat    []float32 // len(ids) * dims
	// weight is each memory's recency decay relative to the load time: the
	// decay at any later now is weight times one factor common to all, so the
	// ranking by similarity × weight is the ranking by similarity × decay
	// without a math.Pow per memory and query.
	weight  []float64
	ref     time.Time // the time weight is relative to
	sketch  []uint64  // per vector, its ternary sketch (quant.go); nil below exactBelow
	maxNorm float64   // the largest norm of a vector (mostSim)
}

func (x *vecIndex) invalidate() {
	x.mu.Lock()
	x.loaded, x.ids, x.created, x.flat, x.weight, x.sketch = false, nil, nil, nil, nil, nil
	x.mu.Unlock()
}

func (c *Cache) loadIndex(ctx context.Context, dims int) error {
	x := &c.vecs
	if x.loaded && x.dims == dims {
		return nil
	}
	rows, err := c.db().QueryContext(ctx, `SELECT id, created_at, embedding FROM memories
		WHERE status IN ('ACTIVE', 'DISPUTED', 'NEEDS_REVIEW') AND embedding IS NOT NULL AND length(embedding) = ?`, 4*dims)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	defer rows.Close()
	x.ids, x.created, x.flat, x.weight = x.ids[:0], x.created[:0], x.flat[:0], x.weight[:0]
	ref := c.opts.Now()
	for rows.Next() {
		var id string
		var at int64
		var blob []byte
		if err := rows.Scan(&id, &at, &blob); err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		x.ids = append(x.ids, id)
		x.created = append(x.created, at)
		x.flat = appendVector(x.flat, blob)
		x.weight = append(x.weight, c.decayAt(ref, at))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	x.dims, x.ref = dims, ref
	x.oldestFirst()
	x.measure()
	x.loaded = true
	x.sketch = nil
	if len(x.ids) > exactBelow {
		x.sketch = sketchAll(x.flat, dims)
	}
	return nil
}

// indexAdded puts a memory just added locally, with its vector, into a loaded
// index instead of dropping the index: reloading 50k vectors costs 0.7 s of
// CPU, and a local add is the newest memory, an append. A memory that is not
// the newest (another clock's) drops the index, whose order must hold; one a
// concurrent load already read is not added twice.
func (c *Cache) indexAdded(id string, created time.Time, vec []float32) {
	x := &c.vecs
	x.mu.Lock()
	defer x.mu.Unlock()
	at, n := micros(created), len(x.ids)
	if !x.loaded {
		return // the next read loads it with the rest
	}
	if len(vec) != x.dims || (n > 0 && at < x.created[n-1]) {
		x.loaded, x.ids, x.created, x.flat, x.weight, x.sketch = false, nil, nil, nil, nil, nil
		return
	}
	for k := n - 1; k >= 0 && x.created[k] == at; k-- {
		if x.ids[k] == id {
			return
		}
	}
	x.ids = append(x.ids, id)
	x.created = append(x.created, at)
	x.weight = append(x.weight, c.decayAt(x.ref, at))
	x.flat = append(x.flat, vec...)
	x.maxNorm = max(x.maxNorm, math.Sqrt(vecsketch.Dot(vec, vec)))
	switch {
	case x.sketch != nil:
		x.sketch = append(x.sketch, sketchOf(vec)...)
	case len(x.ids) > exactBelow:
		x.sketch = sketchAll(x.flat, x.dims)
	}
}

// oldestFirst puts the loaded vectors in order of creation, oldest first (ties
// by id): the order the scans' early stop needs. Sorting here costs a few
// milliseconds at 50k vectors; an ORDER BY in the load made SQLite sort the
// rows, blobs and all, and cost half as much again as the load itself.
func (x *vecIndex) oldestFirst() {
	n, d := len(x.ids), x.dims
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, b int) int {
		if c := cmp.Compare(x.created[a], x.created[b]); c != 0 {
			return c
		}
		return strings.Compare(x.ids[b], x.ids[a])
	})
	ids, created, weight := make([]string, n), make([]int64, n), make([]float64, n)
	flat := make([]float32, len(x.flat))
	for k, i := range perm {
		ids[k], created[k], weight[k] = x.ids[i], x.created[i], x.weight[i]
		copy(flat[k*d:(k+1)*d], x.flat[i*d:(i+1)*d])
	}
	x.ids, x.created, x.weight, x.flat = ids, created, weight, flat
}

type scored struct {
	i          int
	sim, score float64
}

// similar ranks the live memories with a cached vector by similarity times
// recency decay, and loads the top limit.
func (c *Cache) similar(ctx context.Context, qv []float32, limit int) ([]memory.BriefMemory, error) {
	x := &c.vecs
	x.mu.Lock()
	if err := c.loadIndex(ctx, len(qv)); err != nil {
		x.mu.Unlock()
		return nil, fmt.Errorf("similar memories: %w", err)
	}
	top := x.scan(qv, limit)
	ids := make([]string, len(top))
	for k, s := range top {
		ids[k] = x.ids[s.i]
	}
	x.mu.Unlock()
	ms, err := c.briefMemories(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("similar memories: %w", err)
	}
	out := make([]memory.BriefMemory, 0, len(top))
	for k, s := range top {
		m, ok := ms[ids[k]]
		if !ok {
			continue // evicted since the index was read
		}
		sim := s.sim
		m.Similarity, m.Decay = &sim, c.decay(m.CreatedAt)
		m.Score = sim * m.Decay
		out = append(out, m)
	}
	return out, nil
}

// scan ranks every vector against qv by similarity × recency. Up to
// exactBelow vectors every one is scored exactly; past that a ternary sketch of
// each vector (quant.go) picks the candidates, cheaply, and only they are scored
// exactly: at 50k cached memories the exact scan alone is several times the 5 ms
// budget of a local read, the sketch pass and the re-scoring a third of a
// millisecond of CPU.
func (x *vecIndex) scan(qv []float32, limit int) []scored {
	d := x.dims
	exact := func(i int) float64 { return vecsketch.Dot(qv, x.flat[i*d:(i+1)*d]) }
	if len(x.ids) <= exactBelow || x.sketch == nil {
		return x.top(limit, exact, x.mostSim(qv), nil)
	}
	cands := x.sketchTop(sketchOf(qv), max(minCandidates, limit*candidatesPer))
	slices.Sort(cands) // into the index's order, for top's early stop
	return x.top(limit, exact, x.mostSim(qv), cands)
}

// top is the limit best vectors by sim × weight, best first, where no sim
// exceeds most: of every vector, or of those in only (index positions,
// ascending). The vectors are in order of weight (the index's order): the
// scan runs from the end and stops where most × weight falls below the
// limit-th best score. One goroutine: a split over the cores does not lower
// the CPU per call, which is what the wall time follows on a shared machine.
func (x *vecIndex) top(limit int, sim func(int) float64, most float64, only []int) []scored {
	h := scoredHeap{x: x, s: make([]scored, 0, limit)}
	floor := math.Inf(-1)
	n := len(x.ids)
	if only != nil {
		n = len(only)
	}
	for k := n - 1; k >= 0; k-- {
		i := k
		if only != nil {
			i = only[k]
		}
		if most*x.weight[i] < floor {
			break
		}
		v := sim(i)
		h.offer(scored{i: i, sim: v, score: v * x.weight[i]}, limit)
		if len(h.s) == limit {
			floor = h.s[0].score
		}
	}
	slices.SortFunc(h.s, func(a, b scored) int {
		if x.better(a, b) {
			return -1
		}
		if x.better(b, a) {
			return 1
		}
		return 0
	})
	return h.s
}

// mostSim bounds the dot product of qv and v over the index's vectors: |qv| times the largest
// |v| (1 for unit vectors, the embedders' output, but an embedder that does not
// normalise must not make the early stop drop results), with room for the
// rounding of float32 sums.
func (x *vecIndex) mostSim(qv []float32) float64 {
	return math.Sqrt(vecsketch.Dot(qv, qv)) * x.maxNorm * 1.001
}

// measure records the largest norm of the index's vectors (mostSim).
func (x *vecIndex) measure() {
	d, most := x.dims, 0.0
	for i := range x.ids {
		v := x.flat[i*d : (i+1)*d]
		most = max(most, vecsketch.Dot(v, v))
	}
	x.maxNorm = math.Sqrt(most)
}

// better orders by score, then the newer first.
func (x *vecIndex) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return x.created[a.i] > x.created[b.i]
}

// briefMemories loads memories by id.
func (c *Cache) briefMemories(ctx context.Context, ids []string) (map[string]memory.BriefMemory, error) {
	out := make(map[string]memory.BriefMemory, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := c.db().QueryContext(ctx, `SELECT id, kind, author, content, status, created_at FROM memories
		WHERE id IN (?`+strings.Repeat(",?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var m memory.BriefMemory
		var at int64
		if err := rows.Scan(&m.ID, &m.Kind, &m.Author, &m.Content, &m.Status, &at); err != nil {
			return nil, err
		}
		m.CreatedAt = fromMicros(at)
		out[m.ID] = m
	}
	return out, rows.Err()
}
