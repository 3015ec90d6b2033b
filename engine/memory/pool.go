package memory

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// candidatePool is how many nearest memories one similarity lookup takes from the
// model's HNSW index before any re-ranking: pgvector's default hnsw.ef_search, the
// most an index scan returns without iterative scans.
const candidatePool = 40

// poolSQL returns the CTEs "cfg" and "pool" (memory_id, similarity): the
// candidatePool memories of project $1 nearest to vector $2. The indexed
// vectors are walked through the model's partial HNSW index (same cast, the
// model as a literal so that the index predicate matches under any plan); the
// project's unindexed ones (a pushed run's, until Store.IndexDelta moves them
// in: delta.go) are compared exactly, through their own small partial index,
// and the two are cut together, so a vector is a neighbour from its commit on.
//
// The project and tenant filters apply to what the index returns, so in a database
// shared by many projects the nearest rows may all belong to others. With pgvector
// 0.8 or later (iterative) the statement turns on hnsw.iterative_scan for itself:
// cfg's set_config runs before the pool's index scan starts (the scan is a lateral
// subquery of cfg's row, and pgvector reads the setting on the first fetch), and
// the scan then continues until the pool is full of this project's rows.
func poolSQL(model string, dims int, iterative bool) string {
	v := fmt.Sprintf("(e.embedding::vector(%d))", dims)
	cfg := `SELECT 'off'::text AS v`
	if iterative {
		cfg = `SELECT set_config('hnsw.iterative_scan', 'strict_order', true) AS v`
	}
	of := `e.repository_id = $1 AND e.model = ` + pg.QuoteLiteral(model)
	limit := strconv.Itoa(candidatePool)
	return `cfg AS MATERIALIZED (` + cfg + `),
pool AS (
	SELECT n.memory_id, 1 - n.distance AS similarity FROM (
		SELECT p.memory_id, p.distance FROM cfg CROSS JOIN LATERAL (
			SELECT e.memory_id, ` + v + ` <=> $2 AS distance
			FROM memory_embeddings e
			WHERE ` + of + ` AND e.indexed AND cfg.v IS NOT NULL
			ORDER BY ` + v + ` <=> $2
			LIMIT ` + limit + `
		) p
		UNION ALL
		SELECT e.memory_id, ` + v + ` <=> $2
		FROM memory_embeddings e
		WHERE ` + of + ` AND NOT e.indexed
	) n
	ORDER BY n.distance
	LIMIT ` + limit + `
)`
}

// iterativeScan reports whether the server's pgvector has iterative index scans
// (pg.HasIterativeScan, asked once per database). q is the caller's connection or
// transaction: a caller inside a transaction must not wait for a second pooled
// connection.
func (s *Store) iterativeScan(ctx context.Context, q querier) (bool, error) {
	return s.db.IterativeScan(ctx, q)
}
