package memory

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// Hit is one search result.
type Hit struct {
	Memory
	// Score is the reciprocal-rank fusion of the dense and lexical ranks.
	Score float64 `json:"score" db:"score"`
	// Similarity is the cosine similarity to the query (0 when the dense channel
	// did not return the memory).
	Similarity float64 `json:"similarity" db:"similarity"`
	// DenseRank and LexicalRank are the ranks in each channel (0: not returned).
	DenseRank   int `json:"dense_rank,omitempty" db:"dense_rank"`
	LexicalRank int `json:"lexical_rank,omitempty" db:"lexical_rank"`
}

// SearchResult is the answer to Search.
type SearchResult struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
	// Dense reports whether the dense channel ran (false: the embedder was
	// unavailable and the results are lexical only).
	Dense bool `json:"dense"`
}

// rrfK is the reciprocal-rank fusion constant.
const rrfK = 60

// lexicalSQL is the lexical channel: the query's words OR-ed (plainto_tsquery ANDs
// them, which loses most questions), ranked by cover density. $1 project, $3 query.
var lexicalSQL = `
lexq AS (
	SELECT (SELECT string_agg(quote_literal(l), ' | ')
		FROM unnest(tsvector_to_array(to_tsvector('english', $3))) l)::tsquery AS q
), lex AS (
	SELECT m.id AS memory_id, row_number() OVER (ORDER BY ts_rank_cd(m.tsv, lexq.q) DESC, m.created_at DESC) AS rank
	FROM memories m, lexq
	WHERE m.repository_id = $1 AND m.tsv @@ lexq.q AND m.status IN ` + liveStatuses + `
	ORDER BY rank LIMIT ` + strconv.Itoa(candidatePool) + `
)`

var searchSelect = `
SELECT ` + memoryColumns + `, coalesce(d.similarity, 0) AS similarity,
	coalesce(d.rank, 0)::int AS dense_rank, coalesce(l.rank, 0)::int AS lexical_rank,
	coalesce(1.0 / (` + strconv.Itoa(rrfK) + ` + d.rank), 0)::float8 + coalesce(1.0 / (` + strconv.Itoa(rrfK) + ` + l.rank), 0)::float8 AS score
FROM ids
LEFT JOIN dense d USING (memory_id)
LEFT JOIN lex l USING (memory_id)
JOIN memories m ON m.repository_id = $1 AND m.id = ids.memory_id
ORDER BY score DESC, m.created_at DESC
LIMIT $4`

func searchSQL(model string, dims int, iterative bool) string {
	if model == "" {
		return `WITH dense AS (SELECT NULL::uuid AS memory_id, NULL::float8 AS similarity, NULL::bigint AS rank
			WHERE $2::text IS NULL AND false),` + lexicalSQL + `,
		ids AS (SELECT memory_id FROM lex)` + searchSelect
	}
	return `WITH ` + poolSQL(model, dims, iterative) + `,
dense AS (
	SELECT p.memory_id, p.similarity, row_number() OVER (ORDER BY p.similarity DESC) AS rank
	FROM pool p JOIN memories m ON m.repository_id = $1 AND m.id = p.memory_id
	WHERE m.status IN ` + liveStatuses + `
),` + lexicalSQL + `,
ids AS (SELECT memory_id FROM dense UNION SELECT memory_id FROM lex)` + searchSelect
}

// Search finds live memories for a query: dense similarity through the HNSW index
// fused with a lexical channel, which also carries the search alone when the
// embedder is unavailable.
func (s *Store) Search(ctx context.Context, query string, limit int) (SearchResult, error) {
	if err := checkText("query", query, MaxContentBytes); err != nil {
		return SearchResult{}, fmt.Errorf("search memories: %w", err)
	}
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, candidatePool)
	vec, model, err := s.embedOne(ctx, query)
	if err != nil {
		return SearchResult{}, fmt.Errorf("search memories: %w", err)
	}
	res := SearchResult{Query: query, Dense: vec != nil}
	var arg any
	iterative := false
	if vec != nil {
		arg = pgvector.NewVector(vec)
		if iterative, err = s.iterativeScan(ctx, s.db.Pool); err != nil {
			return SearchResult{}, fmt.Errorf("search memories: %w", err)
		}
	}
	rows, err := s.db.Pool.Query(ctx, searchSQL(model, len(vec), iterative), s.project, arg, query, limit)
	if err != nil {
		return SearchResult{}, fmt.Errorf("search memories: %w", err)
	}
	if res.Hits, err = pgx.CollectRows(rows, pgx.RowToStructByName[Hit]); err != nil {
		return SearchResult{}, fmt.Errorf("search memories: %w", err)
	}
	if err := s.anchorHits(ctx, res.Hits); err != nil {
		return SearchResult{}, fmt.Errorf("search memories: %w", err)
	}
	return res, nil
}
