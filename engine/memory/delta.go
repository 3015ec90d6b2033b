package memory

import (
	"context"
	"fmt"
)

// A pushed run's vectors are stored unindexed (batchinsert.go): inserting into
// the model's HNSW graph costs ~2-4 ms a row on a 2-core machine, most of a
// 10k-write sync, and a sync must not wait for it. poolSQL compares them
// exactly beside the index walk, so they are neighbours at once; IndexDelta
// moves them into the index afterwards, off the sync's path. A single Add
// still indexes its vector as it writes it: one insertion is cheap, and a
// short-lived process (a CLI write) might never come back to move it.

// indexDeltaChunk is how many unindexed vectors one transaction moves into the
// index: each is an HNSW insertion, so a chunk commits within about a second,
// and a process killed mid-way loses that chunk's work, never a row.
const indexDeltaChunk = 128

// indexDeltaSQL marks up to $2 of project $1's unindexed vectors indexed (the
// update inserts each into its model's HNSW index). Rows another process is
// moving are skipped, not waited for, so two movers share the work and never
// block or fail each other; a writer replacing a vector being moved waits for
// that chunk's commit.
const indexDeltaSQL = `WITH d AS (
	SELECT memory_id, model FROM memory_embeddings
	WHERE repository_id = $1 AND NOT indexed
	LIMIT $2
	FOR UPDATE SKIP LOCKED)
UPDATE memory_embeddings e SET indexed = true
FROM d WHERE e.repository_id = $1 AND e.memory_id = d.memory_id AND e.model = d.model`

// IndexDelta moves the project's unindexed vectors into their HNSW indexes,
// a chunk per transaction, until none is left that no other process is
// moving, or ctx ends (what is committed stays). It returns how many it
// moved. Recall and conflict checks are the same before and after: it only
// makes the next ones cheaper.
func (s *Store) IndexDelta(ctx context.Context) (int, error) {
	moved := 0
	for ctx.Err() == nil {
		tag, err := s.db.Pool.Exec(ctx, indexDeltaSQL, s.project, indexDeltaChunk)
		if err != nil {
			return moved, fmt.Errorf("index pushed memory vectors: %w", err)
		}
		moved += int(tag.RowsAffected())
		if tag.RowsAffected() == 0 {
			break
		}
	}
	return moved, nil
}

// Unindexed is how many of the project's vectors wait for IndexDelta.
func (s *Store) Unindexed(ctx context.Context) (int, error) {
	var n int
	err := s.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_embeddings WHERE repository_id = $1 AND NOT indexed`,
		s.project).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count unindexed memory vectors: %w", err)
	}
	return n, nil
}
