package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// The statements insertRun sends in one round trip.
const (
	// $1 project  $2 ids  $3 authors  $4 kinds  $5 texts  $6 content hashes
	// (created_at: the clock's, as insert's; a volatile output is computed after the sort.)
	insertRunSQL = `INSERT INTO memories AS m (repository_id, id, parent_ids, author, kind, content, content_hash, status, created_at)
		SELECT $1, u.id, '{}'::uuid[], u.author, u.kind, u.content, u.hash, 'ACTIVE', clock_timestamp()
		FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS u(id, author, kind, content, hash, ord)
		ORDER BY u.ord
		RETURNING ` + memoryColumns
	// $1 project  $2 ids  $3 authors
	insertRunEventsSQL = `INSERT INTO memory_events (repository_id, memory_id, action, from_status, to_status, actor, reason, conflict_id)
		SELECT $1, u.id, 'add', NULL, 'ACTIVE', u.author, NULL, NULL
		FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS u(id, author, ord) ORDER BY u.ord
		ON CONFLICT DO NOTHING` // citusInsertSelect (sql.go)
	// Unindexed: the run's vectors wait beside the HNSW index, read exactly by
	// every neighbour query, until Store.IndexDelta moves them in (delta.go).
	// The vectors go in binary (vector[]), the floats the caller holds: the
	// statement is prepared on the connection (insertRun), so the batch sends
	// it with its described types, where the store's default mode would send
	// every parameter as text (floats formatted and parsed again).
	//
	//	$1 project  $2 ids  $3 model  $4 vectors
	insertRunVectorsSQL = `INSERT INTO memory_embeddings (repository_id, memory_id, model, embedding, indexed)
		SELECT $1, u.id, $3, u.v, false FROM unnest($2::uuid[], $4::vector[]) AS u(id, v)
		ON CONFLICT (repository_id, memory_id, model) DO UPDATE SET embedding = EXCLUDED.embedding, indexed = false`
)

// insertRun stores a run's memories (ACTIVE: each has its vector), their "add"
// events and vectors, in one round trip, and returns the stored memories in
// order.
func (s *Store) insertRun(ctx context.Context, tx pgx.Tx, ins []NewMemory, vecs [][]float32, model string) ([]Memory, error) {
	n := len(ins)
	ids, authors, kinds, texts, hashes := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, in := range ins {
		ids[i] = in.ID
		if ids[i] == "" {
			ids[i] = newUUID()
		}
		authors[i], kinds[i], texts[i], hashes[i] = in.Author, string(in.Kind), in.Text, contentHash(in.Text)
	}
	ids = lowerAll(ids)
	// Once per connection (then pgx knows it by its text): a round trip.
	if _, err := tx.Prepare(ctx, insertRunVectorsSQL, insertRunVectorsSQL); err != nil {
		return nil, fmt.Errorf("prepare storing embeddings: %w", err)
	}
	b := &pgx.Batch{}
	b.Queue(insertRunSQL, s.project, ids, authors, kinds, texts, hashes)
	b.Queue(insertRunEventsSQL, s.project, ids, authors)
	b.Queue(insertRunVectorsSQL, s.project, ids, model, pg.Vectors(vecs))
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	if ms, err = inOrder(ms, ids); err != nil {
		return nil, fmt.Errorf("insert: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("store embeddings: %w", err)
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	if err := s.pinRun(ctx, tx, ms, ins); err != nil {
		return nil, err
	}
	return ms, nil
}

// inOrder puts the rows an INSERT returned in the order of ids (RETURNING does
// not promise one).
func inOrder(ms []Memory, ids []string) ([]Memory, error) {
	by := make(map[string]Memory, len(ms))
	for _, m := range ms {
		by[m.ID] = m
	}
	out := make([]Memory, len(ids))
	for i, id := range ids {
		m, ok := by[id]
		if !ok {
			return nil, fmt.Errorf("memory %s not stored (%d rows for %d memories)", id, len(ms), len(ids))
		}
		out[i] = m
	}
	return out, nil
}
