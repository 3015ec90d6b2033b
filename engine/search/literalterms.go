package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/postings"
)

// The literal channel's candidates are the chunks holding every word of the
// phrase: the intersection of the words' postings (migration 0018: the postings
// are the one lexical structure). Each list is decoded and intersected here;
// the phrase itself is then checked against the candidates' content in SQL.
//
// A word in more than commonFraction of the chunks ("the", "err") is left out
// of the intersection while the phrase's other words narrow it enough: leaving
// a word out only widens the candidates, which the content check filters, and
// reading its list costs more than it narrows. When all of a phrase's words are
// common, or its rarer words leave more candidates than will be checked, up to
// literalForcedTerms common ones are read too, the longest first (the shortest
// are the stop words that narrow least).

// literalForcedTerms bounds the common words read to narrow one phrase.
const literalForcedTerms = 2

// literalTermsSQL reads the postings of the words $2 for intersection, each
// word's document frequency counted up to $3 (as bm25SQL counts it); a word
// that common returns its frequency and no data (the one-time filter in the
// lateral join keeps its list unread).
const literalTermsSQL = `
	WITH df AS MATERIALIZED (
		SELECT q.term, (SELECT least(coalesce(sum(x.n), 0), $3) FROM (SELECT p.n FROM postings p
			WHERE p.repository_id = $1 AND p.term = q.term LIMIT $3) x) AS df
		FROM unnest($2::text[]) AS q(term))
	SELECT d.term, d.df, l.data FROM df d
	LEFT JOIN LATERAL (SELECT p.data FROM postings p
		WHERE d.df < $3 AND p.repository_id = $1 AND p.term = d.term) l ON true`

// literalTermsForcedSQL reads the postings of common words $2 whole.
const literalTermsForcedSQL = `SELECT term, data FROM postings WHERE repository_id = $1 AND term = ANY($2::text[])`

// termLists are the decoded postings of a query's words: each word's symbol
// ids in ascending order, and its document frequency (capped).
type termLists struct {
	ids map[string][]int64
	df  map[string]int
}

// literalCandidates returns, per check, the ids (ascending) of at most limit
// chunks holding all of its words; nil for a phrase no chunk can hold.
func (s *Searcher) literalCandidates(ctx context.Context, checks []literalCheck, limit int) ([][]int64, error) {
	st, err := s.repoStats(ctx)
	if err != nil || st.Docs == 0 {
		return make([][]int64, len(checks)), err
	}
	common := int(float64(st.Docs)*commonFraction) + 1
	if common < 200 {
		common = st.Docs + 1 // a small repository: read every list
	}
	var words []string
	for _, c := range checks {
		words = append(words, c.terms...)
	}
	slices.Sort(words)
	lists, err := s.readTermLists(ctx, literalTermsSQL, slices.Compact(words), common)
	if err != nil {
		return nil, err
	}
	out := make([][]int64, len(checks))
	var forced []string
	for i, c := range checks {
		out[i] = lists.intersect(c.terms)
		if out[i] != nil && len(out[i]) <= limit {
			continue // narrow enough (or empty)
		}
		forced = append(forced, lists.commonTerms(c.terms)...)
	}
	if len(forced) > 0 {
		slices.Sort(forced)
		more, err := s.readTermLists(ctx, literalTermsForcedSQL, slices.Compact(forced), 0)
		if err != nil {
			return nil, err
		}
		for t, ids := range more.ids {
			lists.ids[t] = ids
		}
		for i, c := range checks {
			out[i] = lists.intersect(c.terms)
		}
	}
	for i := range out {
		out[i] = out[i][:min(len(out[i]), limit)]
	}
	return out, nil
}

// readTermLists runs one of the statements above over words (common the cap
// of literalTermsSQL; literalTermsForcedSQL takes none) and decodes the lists.
func (s *Searcher) readTermLists(ctx context.Context, sql string, words []string, common int) (termLists, error) {
	args := []any{s.repoID, words}
	if common > 0 {
		args = append(args, common)
	}
	rows, err := s.db.Pool.Query(ctx, sql, args...)
	if err != nil {
		return termLists{}, fmt.Errorf("literal channel: %w", err)
	}
	l := termLists{ids: map[string][]int64{}, df: map[string]int{}}
	var term string
	var df int
	var data []byte
	dest := []any{&term, &df, &data}
	if common == 0 {
		dest = []any{&term, &data}
	}
	_, err = pgx.ForEachRow(rows, dest, func() error {
		if common > 0 {
			l.df[term] = df
		}
		if data == nil {
			return nil
		}
		ids := l.ids[term]
		if ids == nil {
			ids = []int64{} // read, even if a later row of it were empty
		}
		err := postings.Decode(data, func(p postings.Posting) { ids = append(ids, p.Symbol) })
		l.ids[term] = ids
		return err
	})
	if err != nil {
		return termLists{}, fmt.Errorf("literal channel: %w", err)
	}
	for _, ids := range l.ids {
		slices.Sort(ids) // each row is in order; the rows (files) are not
	}
	return l, nil
}

// intersect is the ascending ids holding every read word of terms: nil when a
// word is in no chunk or none was read (nothing to narrow by), else a slice,
// empty when no chunk holds them all.
func (l termLists) intersect(terms []string) []int64 {
	var read [][]int64
	for _, t := range terms {
		if l.df[t] == 0 && l.ids[t] == nil {
			return nil // in no chunk: no chunk holds the phrase
		}
		if ids, ok := l.ids[t]; ok {
			read = append(read, ids)
		}
	}
	if len(read) == 0 {
		return nil
	}
	slices.SortFunc(read, func(a, b []int64) int { return cmp.Compare(len(a), len(b)) })
	out := slices.Clone(read[0])
	for _, ids := range read[1:] {
		out = intersectSorted(out, ids)
	}
	return out
}

// commonTerms are up to literalForcedTerms words of terms whose lists were
// left unread, the longest first; none when a word is in no chunk at all.
func (l termLists) commonTerms(terms []string) []string {
	var out []string
	for _, t := range terms {
		if l.df[t] == 0 && l.ids[t] == nil {
			return nil
		}
		if _, ok := l.ids[t]; !ok {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out[:min(len(out), literalForcedTerms)]
}

// intersectSorted keeps the ids of a (ascending) also in b (ascending), in place.
func intersectSorted(a, b []int64) []int64 {
	out := a[:0]
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			out = append(out, x)
		}
	}
	return out
}
