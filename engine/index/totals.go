package index

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// The repository's totals (files, chunks, BM25's documents and their length,
// edges) are kept by delta: a run that changes a few files counts the rows of
// those files before it replaces them and after, so neither its summary nor a
// status refresh counts every row of the repository (engine/pg repostats.go).
// A bulk run leaves tracking off and the totals are counted once at its end.

// fileTotals counts the rows of the stored files at paths, in the terms of
// pg.UpdateRepoStats's count (chunks: every symbol but fields; documents:
// chunks that are not parts).
const fileTotals = `
	WITH f AS (SELECT id FROM files WHERE repository_id = $1 AND path = ANY ($2))
	SELECT (SELECT count(*) FROM f), s.chunks, s.docs, s.len,
		(SELECT count(*) FROM edges e WHERE e.repository_id = $1 AND e.file_id IN (SELECT id FROM f))
	FROM (SELECT count(*) FILTER (WHERE kind <> 'field') AS chunks,
		count(*) FILTER (WHERE kind NOT IN ('part', 'field')) AS docs,
		coalesce(sum(doc_length) FILTER (WHERE kind NOT IN ('part', 'field')), 0)::float8 AS len
		FROM symbols WHERE repository_id = $1 AND file_id IN (SELECT id FROM f)) s`

// countFiles returns the totals of the stored files at paths, or nothing when
// the run does not track them.
func (w *writer) countFiles(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, paths []string) (pg.RepoDelta, error) {
	var d pg.RepoDelta
	if !w.track {
		return d, nil
	}
	if err := q.QueryRow(ctx, fileTotals, w.repoID, paths).Scan(&d.Files, &d.Chunks, &d.Docs, &d.Length, &d.Edges); err != nil {
		return d, fmt.Errorf("count the rows of %d files: %w", len(paths), err)
	}
	return d, nil
}

// addTotals records a committed change of the totals: after minus before.
func (w *writer) addTotals(before, after pg.RepoDelta) {
	if !w.track {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.delta.Add(after)
	w.delta.Add(pg.RepoDelta{Files: -before.Files, Chunks: -before.Chunks, Docs: -before.Docs,
		Edges: -before.Edges, Length: -before.Length})
}

// addEdges records edges added (or removed, n < 0) outside the files' writes.
func (w *writer) addEdges(n int) {
	w.addTotals(pg.RepoDelta{}, pg.RepoDelta{Edges: n})
}

// totalsDelta is the change this run made, or nil when it did not track it
// (the totals are then counted).
func (w *writer) totalsDelta() *pg.RepoDelta {
	if !w.track {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.delta
	return &d
}

// pendingCount counts the symbols waiting for a vector (a partial index).
func (w *writer) pendingCount(ctx context.Context) (int, error) {
	var n int
	if err := w.db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE repository_id = $1 AND embedding_state = 'pending'`,
		w.repoID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count symbols waiting for a vector: %w", err)
	}
	return n, nil
}

// skippedCount counts the files of the repository the index keeps no content
// for (too large, binary, generated...): the files status lists as skipped.
func (w *writer) skippedCount(ctx context.Context) (int, error) {
	var n int
	if err := w.db.Pool.QueryRow(ctx, `SELECT count(*) FROM files WHERE repository_id = $1 AND status = 'skipped'`,
		w.repoID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count skipped files: %w", err)
	}
	return n, nil
}
