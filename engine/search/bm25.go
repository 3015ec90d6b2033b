package search

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/postings"
)

// DefaultLexical is the lexical scorer used when Options.Lexical is empty. It was
// chosen by `spelunk eval` and the benchmarks (see docs/BENCHMARKS.md and docs/EVALUATION.md).
const DefaultLexical = "bm25"

// BM25 parameters: the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25Channel scores with BM25F over the postings table: idf from document
// frequencies counted per query term, field-weighted term frequencies, length
// normalisation against the repository's average. Terms in more than commonFraction
// of the chunks are dropped unless every term is that common (then the two rarest
// are kept), which bounds the postings read.
func (s *Searcher) bm25Channel(ctx context.Context, p plan) ([]hit, error) {
	q := bm25Terms(p)
	if q.words == 0 {
		return nil, nil
	}
	terms, words, learned := q.terms, q.words, q.learned
	st, err := s.repoStats(ctx)
	if err != nil {
		return nil, err
	}
	n, avgdl := st.Docs, st.AvgLength
	if n == 0 {
		return nil, nil
	}
	// Document frequencies, each count stopping at the "common" limit: a common term
	// is dropped anyway, and counting its whole postings list is what made BM25
	// slow.
	limit := int(float64(n)*commonFraction) + 1
	if limit < 200 {
		limit = n + 1 // a small repository: count everything, drop nothing
	}
	// A row holds the postings of several files (migration 0021): the filter is
	// checked on the scored chunks, every condition of it.
	rows, err := s.db.Pool.Query(ctx, bm25SQL, s.repoID, terms, q.repeats, limit, float64(n), words, q.src)
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	scores := map[int64]float64{}
	var idf float64
	var term string
	var data []byte
	ev := queryEvidence{lexicalIDF: map[string]float64{}, lexicalTerms: words, docs: n}
	_, err = pgx.ForEachRow(rows, []any{&term, &idf, &data}, func() error {
		if data == nil { // a term the repository does not hold
			ev.lexicalMissing++
			return nil
		}
		e, isLearned := learned[term]
		if !isLearned {
			ev.lexicalIDF[term] = idf
		} else if !slices.Contains(ev.expandedTerms, e) {
			ev.expandedTerms = append(ev.expandedTerms, e)
		}
		return postings.Decode(data, func(p postings.Posting) {
			tf, dl := float64(p.TF), float64(p.DL)
			scores[p.Symbol] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avgdl))
			if isLearned {
				ev.addExpanded(p.Symbol, e)
			}
		})
	})
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	if p.evidence != nil {
		*p.evidence = ev
	}
	if p.filter.Empty() {
		return topHits(scores, channelDepth), nil
	}
	hits, err := s.keepBest(ctx, p.filter, topHits(scores, len(scores)), channelDepth)
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	return hits, nil
}

// keepBest is the first depth hits of ranked that f keeps, checked a slice
// at a time from the best (4 × depth first, then four times more each round):
// a common word scores tens of thousands of chunks, most of which a filter
// never needs to look at. The result is keepFiltered's over all of ranked, cut.
func (s *Searcher) keepBest(ctx context.Context, f Filter, ranked []hit, depth int) ([]hit, error) {
	var kept []hit
	for lo, step := 0, 4*depth; lo < len(ranked) && len(kept) < depth; lo, step = lo+step, step*4 {
		part, err := s.keepFiltered(ctx, f, ranked[lo:min(lo+step, len(ranked))])
		if err != nil {
			return nil, err
		}
		kept = append(kept, part...)
	}
	return kept[:min(len(kept), depth)], nil
}

// bm25Query is what the BM25 statement is sent: the query's words (the first
// words of terms), then its learned expansions, each with its repeat weight and
// (src) the position of the word it was learned from.
type bm25Query struct {
	terms   []string
	repeats []float64
	src     []int
	words   int
	learned map[string]Expansion
}

// bm25Terms builds the statement's terms from a plan.
func bm25Terms(p plan) bm25Query {
	seen := map[string]bool{}
	var q bm25Query
	for _, w := range p.words {
		if !seen[w] && len(w) <= 64 {
			seen[w] = true
			q.terms = append(q.terms, w)
			q.src = append(q.src, 0)
			q.repeats = append(q.repeats, 1)
			if c := p.weights[w]; c > 1 {
				// A long input repeats what it is about: a word said five times in
				// an issue weighs more than one said once (sublinearly).
				q.repeats[len(q.repeats)-1] = 1 + math.Log(float64(c))
			}
		}
	}
	q.words = len(q.terms)
	q.learned = map[string]Expansion{}
	for _, e := range p.expand {
		i := slices.Index(q.terms[:q.words], e.From)
		if i < 0 || seen[e.Term] {
			continue
		}
		seen[e.Term] = true
		q.terms = append(q.terms, e.Term)
		q.learned[e.Term] = e
		q.repeats = append(q.repeats, min(expandCap, expandScale*e.Weight))
		if expandAbsentOnly {
			q.src = append(q.src, i+1)
		} else {
			q.src = append(q.src, 0)
		}
	}
	return q
}

// topHits are the depth best of scores, ties by id.
func topHits(scores map[int64]float64, depth int) []hit {
	hits := make([]hit, 0, len(scores))
	for id, sc := range scores {
		hits = append(hits, hit{id: id, score: sc})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	return hits[:min(depth, len(hits))]
}

// termFrequency is the document frequency of the term q.term in repository
// $1, the sum of its rows' counts, reading at most limit (a parameter) rows
// and capped at limit: each row has one posting or more, so a term that
// common is known to be so without reading its whole list.
func termFrequency(limit string) string {
	return `(SELECT least(coalesce(sum(x.n), 0), ` + limit + `) FROM (SELECT p.n FROM postings p
			WHERE p.repository_id = $1 AND p.term = q.term LIMIT ` + limit + `) x)`
}

// bm25SQL finds the packed postings of the terms to score in one round trip
// ($2 the terms, $3 their repeat weights, $4 the "common" limit, $5 the chunk
// count, $6 how many of the terms are the query's own words: the rest are
// learned expansions, $7 the position of the word each expansion was learned
// from, 0 for a word), each with its idf. An expansion is counted (and
// scored) only when the repository lacks its word (when $7 names it). A term's document frequency is the
// sum of its rows' counts, reading at most $4 rows (each has one posting or
// more); terms that common are dropped unless all the query's words are, when
// the two rarest of those are kept, their frequency counted as $4; idf is the
// usual BM25 one, times the repeat weight. The scores are summed in Go, from
// the rows (engine/postings). Each word of the query the repository does not
// hold comes last as one row without data (the ranker's lexical_strength
// counts them); an expansion it does not hold is left out.
var bm25SQL = `
	WITH q AS (
		SELECT term, w, src, ord FROM unnest($2::text[], $3::float8[], $7::int8[]) WITH ORDINALITY AS q(term, w, src, ord)
	), words AS MATERIALIZED (
		SELECT q.term, q.w, q.ord, ` + termFrequency("$4") + ` AS df
		FROM q WHERE q.ord <= $6
	), learned AS MATERIALIZED (
		SELECT q.term, q.w, q.ord, ` + termFrequency("$4") + ` AS df
		FROM q WHERE q.ord > $6 AND (q.src = 0 OR EXISTS (SELECT 1 FROM words s WHERE s.ord = q.src AND s.df = 0))
	), kept AS (
		SELECT term, w, df FROM words WHERE df > 0 AND df < $4
		UNION ALL
		SELECT term, w, df FROM learned WHERE df > 0 AND df < $4
		UNION ALL
		SELECT term, w, df FROM (SELECT * FROM words WHERE df > 0 ORDER BY df, ord LIMIT 2) rare
		WHERE NOT EXISTS (SELECT 1 FROM words WHERE df > 0 AND df < $4)
	)
	SELECT t.term, t.w * ln(1 + ($5::float8 - t.df::float8 + 0.5) / (t.df::float8 + 0.5)), p.data
	FROM kept t JOIN postings p ON p.repository_id = $1 AND p.term = t.term
	UNION ALL
	SELECT term, 0, NULL FROM words WHERE df = 0`
