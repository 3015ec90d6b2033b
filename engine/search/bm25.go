package search

import (
	"context"
	"fmt"
	"math"
)

// DefaultLexical is the lexical scorer used when Options.Lexical is empty. It was
// chosen by `spelunk eval` and the benchmarks (see the README's lexical comparison).
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
	seen := map[string]bool{}
	var terms []string
	for _, w := range p.words {
		if !seen[w] && len(w) <= 64 {
			seen[w] = true
			terms = append(terms, w)
		}
	}
	if len(terms) == 0 {
		return nil, nil
	}
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
	repeats := make([]float64, len(terms))
	for i, t := range terms {
		repeats[i] = 1
		if c := p.weights[t]; c > 1 {
			// A long input repeats what it is about: a word said five times in
			// an issue weighs more than one said once (sublinearly).
			repeats[i] = 1 + math.Log(float64(c))
		}
	}
	rows, err := s.db.Pool.Query(ctx, bm25SQL, s.repoID, terms, repeats, limit, float64(n),
		bm25K1, bm25B, avgdl, channelDepth)
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	hits, err := collectHits(rows)
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	return hits, nil
}

// bm25SQL scores in one round trip ($2 the terms, $3 their repeat weights, $4 the
// "common" limit, $5 the chunk count, $6-$8 k1, b and the average length, $9 the
// depth). Each term's document frequency is counted from the primary key (index
// only) up to $4; terms that common are dropped unless all are, when the two
// rarest are kept; idf is the usual BM25 one, times the repeat weight.
const bm25SQL = `
	WITH q AS (
		SELECT term, w, ord FROM unnest($2::text[], $3::float8[]) WITH ORDINALITY AS q(term, w, ord)
	), df AS MATERIALIZED (
		SELECT q.term, q.w, q.ord, (SELECT count(*) FROM (SELECT 1 FROM postings p
			WHERE p.repository_id = $1 AND p.term = q.term LIMIT $4) x) AS df
		FROM q
	), kept AS (
		SELECT term, w, df FROM df WHERE df > 0 AND df < $4
		UNION ALL
		SELECT term, w, df FROM (SELECT * FROM df WHERE df > 0 ORDER BY df, ord LIMIT 2) rare
		WHERE NOT EXISTS (SELECT 1 FROM df WHERE df > 0 AND df < $4)
	), t AS (
		SELECT term, w * ln(1 + ($5::float8 - df::float8 + 0.5) / (df::float8 + 0.5)) AS idf FROM kept
	)
	SELECT p.symbol_id, sum(t.idf * p.tf * ($6::float8 + 1) / (p.tf + $6::float8 * (1 - $7::float8 + $7::float8 * p.dl / $8::float8))) AS score
	FROM t JOIN postings p ON p.repository_id = $1 AND p.term = t.term
	GROUP BY p.symbol_id
	ORDER BY score DESC, p.symbol_id
	LIMIT $9`
