package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
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
		FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS u(id, author, ord) ORDER BY u.ord`
	// Unindexed: the run's vectors wait beside the HNSW index, read exactly by
	// every neighbour query, until Store.IndexDelta moves them in (delta.go).
	//
	//	$1 project  $2 ids  $3 model  $4 vectors (text)
	insertRunVectorsSQL = `INSERT INTO memory_embeddings (repository_id, memory_id, model, embedding, indexed)
		SELECT $1, u.id, $3, u.v::vector, false FROM unnest($2::uuid[], $4::text[]) AS u(id, v)
		ON CONFLICT (repository_id, memory_id, model) DO UPDATE SET embedding = EXCLUDED.embedding, indexed = false`
	// runPairsSQL: the similarity of each member b of the run to each later
	// member a, written as the pool query writes it (the candidate's vector
	// first), at or above the gate. The run's vectors come from the statement's
	// own parameters, the text insertRunVectorsSQL stores (so the same floats),
	// read once: a self-join of memory_embeddings on the ids probed its primary
	// key once per pair, about half a second for a run of 256 under load.
	//
	//	$1 ids  $2 vectors (text)  $3 gate
	runPairsSQL = `WITH r AS MATERIALIZED (
			SELECT u.id::text AS id, u.v::vector AS embedding, u.ord
			FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS u(id, v, ord))
		SELECT a.id, b.id, 1 - (b.embedding <=> a.embedding) AS similarity
		FROM r a JOIN r b ON b.ord < a.ord
		WHERE 1 - (b.embedding <=> a.embedding) >= $3`
)

// insertRun stores a run's memories (ACTIVE: each has its vector), their "add"
// events and vectors, and reads the similarities among them, in one round trip.
// It returns the stored memories in order and, for each, the members before it
// at or above the gate.
func (s *Store) insertRun(ctx context.Context, tx pgx.Tx, ins []NewMemory, vecs [][]float32, model string) ([]Memory, [][]similarTo, error) {
	n := len(ins)
	ids, authors, kinds, texts, hashes, vtext := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, in := range ins {
		ids[i] = in.ID
		if ids[i] == "" {
			ids[i] = newUUID()
		}
		authors[i], kinds[i], texts[i], hashes[i], vtext[i] = in.Author, string(in.Kind), in.Text, contentHash(in.Text), vectorText(vecs[i])
	}
	ids = lowerAll(ids)
	b := &pgx.Batch{}
	b.Queue(insertRunSQL, s.project, ids, authors, kinds, texts, hashes)
	b.Queue(insertRunEventsSQL, s.project, ids, authors)
	b.Queue(insertRunVectorsSQL, s.project, ids, model, vtext)
	b.Queue(runPairsSQL, ids, vtext, s.Threshold())
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("insert: %w", err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return nil, nil, fmt.Errorf("insert: %w", err)
	}
	if ms, err = inOrder(ms, ids); err != nil {
		return nil, nil, fmt.Errorf("insert: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, nil, fmt.Errorf("audit: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, nil, fmt.Errorf("store embeddings: %w", err)
	}
	earlier, err := readRunPairs(br, ms)
	if err != nil {
		return nil, nil, err
	}
	if err := br.Close(); err != nil {
		return nil, nil, err
	}
	if err := s.pinRun(ctx, tx, ms, ins); err != nil {
		return nil, nil, err
	}
	return ms, earlier, nil
}

// readRunPairs reads runPairsSQL's rows into, per member, the members before it.
func readRunPairs(br pgx.BatchResults, ms []Memory) ([][]similarTo, error) {
	at := make(map[string]int, len(ms))
	for i, m := range ms {
		at[m.ID] = i
	}
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("compare the batch: %w", err)
	}
	defer rows.Close()
	earlier := make([][]similarTo, len(ms))
	for rows.Next() {
		var a, b string
		var sim float64
		if err := rows.Scan(&a, &b, &sim); err != nil {
			return nil, fmt.Errorf("compare the batch: %w", err)
		}
		if i, j := at[a], at[b]; j < i {
			earlier[i] = append(earlier[i], similarTo{j: j, sim: sim})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("compare the batch: %w", err)
	}
	return earlier, nil
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
