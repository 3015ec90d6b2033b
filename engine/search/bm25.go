package search

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"
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
	n, avgdl, err := s.corpusStats(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	// Document frequencies, each count stopping at the "common" limit: a common term
	// is dropped anyway, and counting its whole postings list is what made BM25
	// slow. One statement per term in one round trip.
	limit := int(float64(n)*commonFraction) + 1
	if limit < 200 {
		limit = n + 1 // a small repository: count everything, drop nothing
	}
	df, err := s.documentFrequencies(ctx, terms, limit)
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	type termStat struct {
		term string
		df   int
	}
	var present []termStat
	for _, t := range terms {
		if df[t] > 0 {
			present = append(present, termStat{t, df[t]})
		}
	}
	if len(present) == 0 {
		return nil, nil
	}
	var kept []termStat
	for _, ts := range present {
		if ts.df < limit {
			kept = append(kept, ts)
		}
	}
	if len(kept) == 0 {
		sort.Slice(present, func(i, j int) bool { return present[i].df < present[j].df })
		kept = present[:min(2, len(present))]
	}
	names := make([]string, len(kept))
	idfs := make([]float64, len(kept))
	for i, ts := range kept {
		names[i] = ts.term
		idfs[i] = math.Log(1 + (float64(n)-float64(ts.df)+0.5)/(float64(ts.df)+0.5))
		if c := p.weights[ts.term]; c > 1 {
			// A long input repeats what it is about: a word said five times in
			// an issue weighs more than one said once (sublinearly).
			idfs[i] *= 1 + math.Log(float64(c))
		}
	}
	rows, err := s.db.Pool.Query(ctx, `
		SELECT p.symbol_id, sum(t.idf * p.tf * ($4::float8 + 1) / (p.tf + $4::float8 * (1 - $5::float8 + $5::float8 * p.dl / $6::float8))) AS score
		FROM unnest($2::text[], $3::float8[]) AS t(term, idf)
		JOIN postings p ON p.repository_id = $1 AND p.term = t.term
		GROUP BY p.symbol_id
		ORDER BY score DESC, p.symbol_id
		LIMIT $7`, s.repoID, names, idfs, bm25K1, bm25B, avgdl, channelDepth)
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	hits, err := collectHits(rows)
	if err != nil {
		return nil, fmt.Errorf("lexical channel (bm25): %w", err)
	}
	return hits, nil
}

// corpusStats returns the number of chunks with postings and their average
// weighted length, cached for a minute.
func (s *Searcher) corpusStats(ctx context.Context) (int, float64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.statsAt.IsZero() && time.Since(s.statsAt) < time.Minute {
		return s.statsN, s.statsAvgDL, nil
	}
	var n int
	var avg float64
	err := s.db.Pool.QueryRow(ctx, `SELECT count(*), coalesce(avg(doc_length), 0) FROM symbols
		WHERE repository_id = $1 AND kind NOT IN ('part', 'field')`, s.repoID).Scan(&n, &avg)
	if err != nil {
		return 0, 0, fmt.Errorf("corpus statistics: %w", err)
	}
	if avg <= 0 {
		avg = 1
	}
	s.statsN, s.statsAvgDL, s.statsAt = n, avg, time.Now()
	return n, avg, nil
}

// documentFrequencies counts each term's postings, each count stopping at
// limit (a common term is as good as useless, however common). One statement
// for all terms.
func (s *Searcher) documentFrequencies(ctx context.Context, terms []string, limit int) (map[string]int, error) {
	df := make(map[string]int, len(terms))
	if len(terms) == 0 {
		return df, nil
	}
	rows, err := s.db.Pool.Query(ctx, `
		SELECT t.term, (SELECT count(*) FROM (SELECT 1 FROM postings p
			WHERE p.repository_id = $1 AND p.term = t.term LIMIT $3) x)
		FROM unnest($2::text[]) AS t(term)`, s.repoID, terms, limit)
	if err != nil {
		return nil, fmt.Errorf("term statistics: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, fmt.Errorf("term statistics: %w", err)
		}
		df[t] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("term statistics: %w", err)
	}
	return df, nil
}
