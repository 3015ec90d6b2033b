package memory

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/vecsketch"
)

// runPools is, for each member of a run, its pool among the rows stored
// before the run (most similar first, cut at candidatePool, with PostgreSQL's
// similarities and eligibility) and the members before it at or above the
// gate (most similar first, earlier first among equals); and the project's
// vectors it chose them from (keepRunVectors keeps them for the next run).
//
// Go picks the pairs to ask about, by its own cosine, for both: a member's
// nearest stored rows (storedVectors.nearest) and its candidatePool+pickSlack
// nearest earlier members at or above gate - gateSlack; PostgreSQL computes
// those pairs' similarities in one statement, so its floats decide the cuts
// and the gate, as they do in Add's pool query. One round trip, after the
// vectors.
func (s *Store) runPools(ctx context.Context, tx pgx.Tx, ins []NewMemory, vecs [][]float32, model string) ([][]pooled, [][]similarTo, *storedVectors, error) {
	dims := len(vecs[0])
	sv, err := s.runVectors(ctx, tx, model, dims)
	if err != nil {
		return nil, nil, nil, err
	}
	gate := s.Threshold()
	pp := pickPairs(sv, vecs, gate)
	members, picks, distinct, others := pp.members, pp.picks, pp.distinct, pp.others
	pools, earlier := make([][]pooled, len(ins)), make([][]similarTo, len(ins))
	if len(members) == 0 {
		return pools, earlier, sv, nil
	}
	hashes := make([]string, len(ins))
	for i, in := range ins {
		hashes[i] = contentHash(in.Text)
	}
	b := &pgx.Batch{}
	b.Queue(pickedRowsSQL, s.project, distinct)
	// The pairs' joins hold a vector per stored row asked about (~6 MB for a
	// run of 256): the default work_mem spilled them to disk, and a merge join
	// sorted every pair with its vectors (~20 MB) where a hash join on the
	// stored rows needs no sort. For the rest of the run's transaction only.
	b.Queue(`SELECT set_config('work_mem', '64MB', true), set_config('enable_mergejoin', 'off', true)`)
	br := tx.SendBatch(ctx, b)
	picked, err := readPicked(br)
	if err == nil {
		_, err = br.Exec()
	}
	if err = closeBatch(br, err, "find conflict candidates"); err != nil {
		return nil, nil, nil, err
	}
	// Described first (a round trip more) so that the vectors go in binary:
	// the store's default mode sends every parameter as text, and formatting
	// and parsing ~3,700 vectors a run cost more than the similarities. The
	// vectors are the last parameters, the larger last: the parameter buffer
	// is grown to each when it is encoded, and copies what is before it.
	rows, err := tx.Query(ctx, pickedSimsSQL, pgx.QueryExecModeDescribeExec, members, picks, pg.Vectors(vecs), others)
	if err == nil {
		err = readPickedSims(rows, picked, distinct, hashes, gate, pools, earlier)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("find conflict candidates: %w", err)
	}
	for i := range pools {
		slices.SortStableFunc(pools[i], func(a, b pooled) int { return higherFirst(a.Similarity, b.Similarity) })
		pools[i] = pools[i][:min(len(pools[i]), candidatePool)]
		slices.SortFunc(earlier[i], func(a, b similarTo) int {
			if c := higherFirst(a.sim, b.sim); c != 0 {
				return c
			}
			return a.j - b.j
		})
	}
	return pools, earlier, sv, nil
}

// pairs are the (member, other) pairs a run asks PostgreSQL about: others
// holds the stored rows asked about (distinct, their ids), then the run's
// members (member j at len(distinct)+j).
type pairs struct {
	members, picks []int32
	distinct       []string
	others         pg.Vectors
}

// pickPairs is a run's pairs: each member's nearest stored rows and nearest
// earlier members by Go's cosine, picked over the cores.
func pickPairs(sv *storedVectors, vecs [][]float32, gate float64) pairs {
	dims := sv.dims
	near, before := make([][]int, len(vecs)), make([][]int, len(vecs))
	norms := make([]float64, len(vecs))
	for i, v := range vecs {
		norms[i] = math.Sqrt(vecsketch.Dot(v, v))
	}
	parallel(len(vecs), func(i int) {
		near[i] = sv.nearest(vecs[i], gate)
		before[i] = nearestEarlier(vecs, norms, i, gate)
	})
	var p pairs
	at := map[int]int32{} // a stored position's index in others
	for i := range vecs {
		for _, j := range near[i] {
			k, ok := at[j]
			if !ok {
				k = int32(len(p.distinct))
				at[j] = k
				p.distinct = append(p.distinct, sv.ids[j])
				p.others = append(p.others, sv.flat[j*dims:(j+1)*dims])
			}
			p.members, p.picks = append(p.members, int32(i)), append(p.picks, k)
		}
	}
	runAt := int32(len(p.distinct))
	p.others = append(p.others, vecs...)
	for i := range vecs {
		for _, j := range before[i] {
			p.members, p.picks = append(p.members, int32(i)), append(p.picks, runAt+int32(j))
		}
	}
	return p
}

// nearestEarlier is the positions of the members before i to ask about: the
// candidatePool+pickSlack most similar to member i by cosine at or above gate
// - gateSlack, the earlier first among equals (mergePool keeps no more).
func nearestEarlier(vecs [][]float32, norms []float64, i int, gate float64) []int {
	if norms[i] == 0 {
		return nil
	}
	var hits []poolHit
	for j := range i {
		if norms[j] == 0 {
			continue
		}
		if sim := vecsketch.Dot(vecs[i], vecs[j]) / (norms[i] * norms[j]); sim >= gate-gateSlack {
			hits = append(hits, poolHit{j, sim})
		}
	}
	return bestPositions(hits)
}

// poolHit is a position among vectors and its cosine to the one asked about.
type poolHit struct {
	pos int
	sim float64
}

// bestPositions is the positions of the candidatePool+pickSlack hits of
// highest similarity, the earlier first among equals.
func bestPositions(hits []poolHit) []int {
	hits = topK(hits, candidatePool+pickSlack, func(a, b poolHit) int {
		if c := higherFirst(a.sim, b.sim); c != 0 {
			return c
		}
		return a.pos - b.pos
	})
	out := make([]int, len(hits))
	for k, h := range hits {
		out[k] = h.pos
	}
	return out
}

// topK is the k first of items in cmp's order (a total order), sorted: a
// bounded heap, not a sort of them all (a member is compared with up to
// exactPoolMax stored vectors, and only a pool's worth is kept).
func topK[T any](items []T, k int, cmp func(a, b T) int) []T {
	if len(items) <= k {
		slices.SortFunc(items, cmp)
		return items
	}
	// heap[0] is the worst kept: a max-heap in cmp's order.
	heap := slices.Clone(items[:k])
	down := func(i int) {
		for {
			w, l, r := i, 2*i+1, 2*i+2
			if l < k && cmp(heap[l], heap[w]) > 0 {
				w = l
			}
			if r < k && cmp(heap[r], heap[w]) > 0 {
				w = r
			}
			if w == i {
				return
			}
			heap[i], heap[w] = heap[w], heap[i]
			i = w
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, it := range items[k:] {
		if cmp(it, heap[0]) < 0 {
			heap[0] = it
			down(0)
		}
	}
	slices.SortFunc(heap, cmp)
	return heap
}

// parallel runs fn(0) .. fn(n-1) over the cores (each call independent of the
// others) and returns when all are done.
func parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// pickedSimsSQL: for each (member, other) pair asked about, the similarity
// written as poolSQL writes it (the other's vector, the candidate's, first).
// Both sides are parameters in binary, each vector once: the members' floats,
// and the others' (the stored rows asked about as runVectors read them, the
// floats the table holds, then the members again), so no row is read again.
//
//	$1 member positions  $2 positions in $4 (parallel to $1)
//	$3 the members' vectors  $4 the others' vectors
const pickedSimsSQL = `SELECT p.i, p.k, 1 - (o.v <=> r.v)
FROM unnest($1::int[], $2::int[]) AS p(i, k)
JOIN unnest($3::vector[]) WITH ORDINALITY AS r(v, ord) ON r.ord = p.i + 1
JOIN unnest($4::vector[]) WITH ORDINALITY AS o(v, ord) ON o.ord = p.k + 1`

// readPickedSims adds each pair with a stored row to its member's pool,
// eligible when the row is live and no keep-both exempts it from the member's
// content; and each pair with an earlier member at or above the gate to the
// member's earlier.
func readPickedSims(rows pgx.Rows, picked map[string]*pickedRow, distinct, hashes []string, gate float64,
	pools [][]pooled, earlier [][]similarTo) error {
	defer rows.Close()
	var i, k int32
	var sim float64
	for rows.Next() {
		if err := rows.Scan(&i, &k, &sim); err != nil {
			return err
		}
		if i < 0 || int(i) >= len(pools) || k < 0 || int(k) >= len(distinct)+len(pools) {
			return fmt.Errorf("pair (%d, %d) out of range", i, k)
		}
		if int(k) >= len(distinct) {
			if j := int(k) - len(distinct); j < int(i) && sim >= gate {
				earlier[i] = append(earlier[i], similarTo{j: j, sim: sim})
			}
			continue
		}
		p, ok := picked[distinct[k]]
		if !ok {
			continue // no memory row: the pool's join drops it too
		}
		c := p.candidate
		c.Similarity = sim
		pools[i] = append(pools[i], pooled{candidate: c, eligible: p.live && !slices.Contains(p.exempt, hashes[i])})
	}
	return rows.Err()
}
