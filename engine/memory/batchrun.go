package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// addRun writes and checks a run of new memories without parents, each with its
// vector, as Add would one after another: the candidates of member i are the
// candidatePool nearest of the rows stored before the run (candidatesSQL's pool
// and filters; chosen in Go from the project's vectors, runpool.go) merged with
// the nearest members before i (chosen in Go from the run's vectors), both with
// PostgreSQL's similarities from one statement for the run (runpairs.go), cut
// to the pool, filtered, and cut to maxCandidates; then each member
// in order is judged against its candidates and disputes what it contradicts.
// That is Add's outcome because within such a run nothing changes a candidate's
// eligibility: a dispute leaves both sides live, and only a correction (a
// member with parents, never in a run) supersedes. (The stored rows' pools are
// read before the run's rows are stored; Add's HNSW walk is approximate, and
// past exactPoolMax rows so is the sketch's choice here, so at that size the two
// can pick a little differently, as an HNSW walk can between any two adds.)
func (s *Store) addRun(ctx context.Context, tx pgx.Tx, ins []NewMemory, vecs [][]float32, model string, judge Judge, out []Added) error {
	pools, earlier, sv, err := s.runPools(ctx, tx, ins, vecs, model)
	if err != nil {
		return err
	}
	ms, err := s.insertRun(ctx, tx, ins, vecs, model)
	if err != nil {
		return err
	}
	if err := s.keepRunVectors(ctx, tx, sv, ms, vecs); err != nil {
		return err
	}
	if mj, ok := judge.(*memoJudge); ok {
		mj.warm(runClaims(ms, pools, s.Threshold()))
	}
	for i, m := range ms {
		out[i] = Added{Memory: m}
		cands := mergePool(pools[i], earlier[i], ms, s.Threshold())
		var found []contradiction
		for _, c := range cands {
			v, err := judge.Judge(ctx, Claim{Kind: m.Kind, Text: m.Content}, Claim{Kind: c.Kind, Text: c.Content})
			if err != nil {
				return fmt.Errorf("judge %s against %s: %w", m.ID, c.ID, err)
			}
			if v.Contradicts {
				found = append(found, contradiction{other: c, similarity: c.Similarity, reason: v.Reason})
			}
		}
		if len(found) == 0 {
			continue
		}
		if out[i].ConflictID, out[i].Memory, err = s.dispute(ctx, tx, m, found, ins[i].Author); err != nil {
			return err
		}
	}
	return nil
}

// runClaims is every claim a run's judging can meet: its members and, of
// each pool (most similar first), the first maxCandidates rows mergePool
// could keep (kind and text never change within the run).
func runClaims(ms []Memory, pools [][]pooled, threshold float64) []Claim {
	var out []Claim
	for i, m := range ms {
		out = append(out, Claim{Kind: m.Kind, Text: m.Content})
		n := 0
		for _, p := range pools[i] {
			if p.eligible && p.Similarity >= threshold && n < maxCandidates {
				out = append(out, Claim{Kind: p.Kind, Text: p.Content})
				n++
			}
		}
	}
	return out
}

// pooled is one row of a member's pool: a stored memory near it, and whether
// candidatesSQL's filters (live, not exempt) let it through.
type pooled struct {
	candidate
	eligible bool
}

// mergePool is member i's candidates: its pool among the stored rows and the
// run's members before it (earlier: index into ms and similarity, those at or
// above the gate only; one below it can neither be a candidate nor push one out
// of the pool), cut as candidatesSQL cuts.
func mergePool(pool []pooled, earlier []similarTo, ms []Memory, threshold float64) []candidate {
	// Only the candidatePool best of the earlier members can be in the pool:
	// they are cut first, over the small pairs (in a long run most members are
	// near most others), and the merge's stable sort then orders as before.
	earlier = slices.Clone(earlier)
	slices.SortStableFunc(earlier, func(a, b similarTo) int { return higherFirst(a.sim, b.sim) })
	earlier = earlier[:min(len(earlier), candidatePool)]
	all := make([]pooled, len(pool), len(pool)+len(earlier))
	copy(all, pool)
	for _, e := range earlier {
		m := ms[e.j]
		all = append(all, pooled{candidate: candidate{ID: m.ID, Kind: m.Kind, Content: m.Content, Status: m.Status,
			CreatedAt: m.CreatedAt, Similarity: e.sim}, eligible: true})
	}
	slices.SortStableFunc(all, func(a, b pooled) int { return higherFirst(a.Similarity, b.Similarity) })
	all = all[:min(len(all), candidatePool)]
	var out []candidate
	for _, p := range all {
		if p.eligible && p.Similarity >= threshold && len(out) < maxCandidates {
			out = append(out, p.candidate)
		}
	}
	return out
}

// similarTo is an earlier member of a run (index j) and its similarity.
type similarTo struct {
	j   int
	sim float64
}

// lowerAll is ids in lower case, as the database prints uuids.
func lowerAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strings.ToLower(id)
	}
	return out
}

// higherFirst orders similarities from the highest (for a stable sort; equal,
// and incomparable, values keep their order).
func higherFirst(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
