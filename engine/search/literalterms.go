package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/postings"
)

// The literal channel's candidates are chunks holding the phrase's words: the
// intersection of the words' postings (migration 0018: the postings are the one
// lexical structure), decoded and intersected here; the phrase itself is then
// checked against the candidates' content in SQL, so reading fewer of the
// words' lists only widens the candidates (until they are cut at the limit).
//
// Which lists are read: the phrase's rarest word's always; when even that one
// is in more than literalNarrow chunks, the next two rarest too, unless they
// are common (in more than commonFraction of the chunks: "the", "err", lists
// that cost more to read than they narrow). A phrase whose intersection still
// holds more candidates than are checked has more of its words read (a
// second round trip: unread); past that the candidates are cut at the limit,
// in id order.

// literalNarrow is the most chunks the rarest word may be in for its list
// alone to give the candidates: checking a candidate's content costs about
// as much as reading and decoding a few dozen postings rows.
const literalNarrow = 32

// literalMoreTerms bounds the words that are not common read in the second
// round trip, per phrase (one common word may join them: unread).
const literalMoreTerms = 3

// literalTermsSQL gives each word of $2 (the phrases' words; $4 the phrase
// each belongs to) its document frequency, counted up to $3 as bm25SQL counts
// it, in rows with no data; then the postings rows of the words picked as
// above ($5 literalNarrow), in rows with no frequency.
var literalTermsSQL = `
	WITH w AS (
		SELECT term, phrase FROM unnest($2::text[], $4::int[]) AS w(term, phrase)
	), df AS MATERIALIZED (
		SELECT q.term, ` + termFrequency("$3") + ` AS df
		FROM (SELECT DISTINCT term FROM w) q
	), ranked AS (
		SELECT w.term, d.df, row_number() OVER (PARTITION BY w.phrase ORDER BY d.df, w.term) AS r,
			min(d.df) OVER (PARTITION BY w.phrase) AS rarest
		FROM w JOIN df d USING (term)
	), pick AS (
		SELECT DISTINCT term FROM ranked
		WHERE rarest > 0 AND (r = 1 OR (r <= 3 AND rarest > $5 AND df < $3))
	)
	SELECT term, df, NULL::bytea FROM df
	UNION ALL
	SELECT p.term, NULL, p.data FROM pick JOIN postings p ON p.repository_id = $1 AND p.term = pick.term`

// literalTermsMoreSQL reads the postings of the words $2 whole.
const literalTermsMoreSQL = `SELECT term, NULL::int, data FROM postings WHERE repository_id = $1 AND term = ANY($2::text[])`

// termLists are the decoded postings of a query's words: the symbol ids of
// each word read, ascending, and each word's document frequency (capped).
type termLists struct {
	ids map[string][]int64
	df  map[string]int
}

// literalCandidates returns, per check, the ids (ascending) of at most limit
// chunks holding its words; empty for a phrase no chunk can hold.
func (s *Searcher) literalCandidates(ctx context.Context, checks []literalCheck, limit int) ([][]int64, error) {
	out := make([][]int64, len(checks))
	st, err := s.repoStats(ctx)
	if err != nil || st.Docs == 0 {
		return out, err
	}
	common := int(float64(st.Docs)*commonFraction) + 1
	if common < 200 {
		common = st.Docs + 1 // a small repository: no word is too common to read
	}
	var words []string
	var phrases []int32
	for i, c := range checks {
		for _, t := range c.terms {
			words, phrases = append(words, t), append(phrases, int32(i))
		}
	}
	lists := termLists{ids: map[string][]int64{}, df: map[string]int{}}
	if err := s.readTermLists(ctx, lists, literalTermsSQL, words, common, phrases, literalNarrow); err != nil {
		return nil, err
	}
	var more []string
	for i, c := range checks {
		out[i] = lists.intersect(c.terms)
		if len(out[i]) > limit {
			more = append(more, lists.unread(c.terms, common)...)
		}
	}
	if len(more) > 0 {
		slices.Sort(more)
		if err := s.readTermLists(ctx, lists, literalTermsMoreSQL, slices.Compact(more)); err != nil {
			return nil, err
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

// readTermLists runs one of the statements above and adds what it returns
// (frequencies, decoded lists) to l.
func (s *Searcher) readTermLists(ctx context.Context, l termLists, sql string, args ...any) error {
	rows, err := s.db.Pool.Query(ctx, sql, append([]any{s.repoID}, args...)...)
	if err != nil {
		return fmt.Errorf("literal channel: %w", err)
	}
	var term string
	var df *int
	var data []byte
	read := map[string]bool{}
	_, err = pgx.ForEachRow(rows, []any{&term, &df, &data}, func() error {
		if df != nil {
			l.df[term] = *df
			return nil
		}
		read[term] = true
		ids := l.ids[term]
		err := postings.Decode(data, func(p postings.Posting) { ids = append(ids, p.Symbol) })
		l.ids[term] = ids
		return err
	})
	if err != nil {
		return fmt.Errorf("literal channel: %w", err)
	}
	for t := range read {
		slices.Sort(l.ids[t]) // each row is in order; the rows (files) are not
	}
	return nil
}

// intersect is the ascending ids holding every read word of terms: nil when a
// word is in no chunk (or none was read).
func (l termLists) intersect(terms []string) []int64 {
	var read [][]int64
	for _, t := range terms {
		if l.df[t] == 0 {
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

// unread are the words of terms whose lists were not read: up to
// literalMoreTerms that are not common, the rarer first, and the longest
// common one (the shortest are the stop words that narrow least). One common
// list, not three: at 303k chunks reading two or three of them took 30-58 ms
// of a question's literal search, while one is what a pasted message such as
// "invalid argument" needs ("argument" alone left 1,253 candidates at 101k
// chunks, past the limit; with "invalid" 188, all of the phrase's holders).
func (l termLists) unread(terms []string, common int) []string {
	var rare []string
	longest := ""
	for _, t := range terms {
		switch _, read := l.ids[t]; {
		case read:
		case l.df[t] < common:
			rare = append(rare, t)
		case len(t) > len(longest):
			longest = t
		}
	}
	slices.SortStableFunc(rare, func(a, b string) int { return cmp.Compare(l.df[a], l.df[b]) })
	out := rare[:min(len(rare), literalMoreTerms)]
	if longest != "" {
		out = append(out, longest)
	}
	return out
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
