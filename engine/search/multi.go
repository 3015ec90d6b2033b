package search

import "sort"

// Pick is one entry of a merged ranking: the Index-th result of list List.
type Pick struct {
	List  int
	Index int
}

// Interleave merges the ranked lists of several repositories into one ranking of
// at most limit entries, rank-major: every list's first result, then every list's
// second, and so on; within one rank, the higher score first.
//
// Why by rank and not by score: scores are not comparable across repositories.
// The fused score is mostly a function of rank (RRF), but the exact-name boost
// and the channel lists are per repository, so a large repository that defines a
// name fifty times (Run, New, Handler) fills the whole top with boosted exact
// matches and the small repository's one exact match never shows. Normalising
// by each list's top score has the same flaw one level down. Round-robin by rank
// guarantees each repository its best results in the first places, and the
// score still orders results of the same rank, so a strong match still leads.
func Interleave[T any](lists [][]T, score func(T) float64, limit int) []Pick {
	var out []Pick
	for rank := 0; len(out) < limit; rank++ {
		var row []Pick
		for i, l := range lists {
			if rank < len(l) {
				row = append(row, Pick{List: i, Index: rank})
			}
		}
		if len(row) == 0 {
			break
		}
		sort.SliceStable(row, func(a, b int) bool {
			return score(lists[row[a].List][rank]) > score(lists[row[b].List][rank])
		})
		out = append(out, row[:min(len(row), limit-len(out))]...)
	}
	return out
}
