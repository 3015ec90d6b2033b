package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// RepoStats are a repository's figures for ranking: its chunks (every symbol but
// fields: what "common" and "small" are measured against) and BM25's documents
// (chunks that are not parts) with their average weighted length, and the
// embedding model its vectors were made with ("" before any).
type RepoStats struct {
	Chunks    int
	Docs      int
	AvgLength float64
	Model     string
}

const countRepoStats = `SELECT count(*) FILTER (WHERE kind <> 'field'),
	count(*) FILTER (WHERE kind NOT IN ('part', 'field')),
	coalesce(avg(doc_length) FILTER (WHERE kind NOT IN ('part', 'field')), 0)
	FROM symbols WHERE repository_id = $1`

// ReadRepoStats returns the figures the last index run stored, or counts them
// when no run has yet (an index older than migration 0012).
func (db *DB) ReadRepoStats(ctx context.Context, repoID int64) (RepoStats, error) {
	var chunks, docs *int
	var avg *float64
	var model string
	err := db.Pool.QueryRow(ctx, `SELECT stat_chunks, stat_docs, stat_avg_length, coalesce(embedding_model, '')
		FROM repositories WHERE id = $1`, repoID).Scan(&chunks, &docs, &avg, &model)
	if errors.Is(err, pgx.ErrNoRows) {
		return RepoStats{}, fmt.Errorf("not indexed: no repository with id %d (run spelunk index)", repoID)
	}
	if err != nil {
		return RepoStats{}, fmt.Errorf("read the repository's statistics: %w", err)
	}
	if chunks != nil && docs != nil && avg != nil {
		return RepoStats{Chunks: *chunks, Docs: *docs, AvgLength: *avg, Model: model}, nil
	}
	s := RepoStats{Model: model}
	if err := db.Pool.QueryRow(ctx, countRepoStats, repoID).Scan(&s.Chunks, &s.Docs, &s.AvgLength); err != nil {
		return RepoStats{}, fmt.Errorf("count the repository's statistics: %w", err)
	}
	return s, nil
}

// RepoDelta is what an index run changed in a repository's totals: rows
// added minus rows removed, and the change of the sum of the documents'
// weighted lengths.
type RepoDelta struct {
	Files, Chunks, Docs, Edges int
	Length                     float64
}

// Add accumulates d into r.
func (r *RepoDelta) Add(d RepoDelta) {
	r.Files += d.Files
	r.Chunks += d.Chunks
	r.Docs += d.Docs
	r.Edges += d.Edges
	r.Length += d.Length
}

// RepoTotals are a repository's stored totals.
type RepoTotals struct {
	Files, Chunks, Edges int
}

// UpdateRepoStats records that a run wrote or deleted changedFiles files of a
// repository of files files and brings the stored statistics and totals up to
// date: by delta, which the run counted from the rows it replaced and wrote,
// or, when delta is nil, when none are stored yet, or when the files changed
// since the last count pass a tenth of the repository (at least 20; a safety
// net: the average length is kept in floating point), by counting every row.
func (db *DB) UpdateRepoStats(ctx context.Context, repoID int64, changedFiles, files int, delta *RepoDelta) (RepoTotals, error) {
	var stored bool
	var drift int
	var t RepoTotals
	d := RepoDelta{}
	if delta != nil {
		d = *delta
	}
	// Every right-hand side reads the row as it was: the average is rescaled
	// by the old document count.
	err := db.Pool.QueryRow(ctx, `UPDATE repositories SET stat_drift = stat_drift + $2,
			stat_files = stat_files + $3, stat_chunks = stat_chunks + $4, stat_edges = stat_edges + $6,
			stat_avg_length = CASE WHEN stat_docs + $5 > 0
				THEN greatest((stat_avg_length::float8 * stat_docs + $7) / (stat_docs + $5), 0) ELSE 0 END,
			stat_docs = stat_docs + $5
		WHERE id = $1
		RETURNING stat_chunks IS NOT NULL AND stat_docs IS NOT NULL AND stat_avg_length IS NOT NULL
			AND stat_files IS NOT NULL AND stat_edges IS NOT NULL,
			stat_drift, coalesce(stat_files, 0), coalesce(stat_chunks, 0), coalesce(stat_edges, 0)`,
		repoID, changedFiles, d.Files, d.Chunks, d.Docs, d.Edges, d.Length).
		Scan(&stored, &drift, &t.Files, &t.Chunks, &t.Edges)
	if err != nil {
		return t, fmt.Errorf("record the repository's changes: %w", err)
	}
	if stored && delta != nil && drift <= max(files/10, 20) {
		return t, nil
	}
	// Counted first, then stored: Citus refuses one statement that reads the
	// distributed tables and writes repositories, a reference table.
	var chunks, docs int
	var avg float64
	err = db.Pool.QueryRow(ctx, `SELECT s.chunks, s.docs, s.avg,
		(SELECT count(*) FROM files WHERE repository_id = $1),
		(SELECT count(*) FROM edges WHERE repository_id = $1)
		FROM (`+countRepoStats+`) s(chunks, docs, avg)`, repoID).Scan(&chunks, &docs, &avg, &t.Files, &t.Edges)
	if err != nil {
		return t, fmt.Errorf("count the repository's statistics: %w", err)
	}
	t.Chunks = chunks
	_, err = db.Pool.Exec(ctx, `UPDATE repositories SET stat_chunks = $2, stat_docs = $3,
		stat_avg_length = $4, stat_drift = 0, stat_files = $5, stat_edges = $6 WHERE id = $1`,
		repoID, chunks, docs, avg, t.Files, t.Edges)
	if err != nil {
		return t, fmt.Errorf("store the repository's statistics: %w", err)
	}
	return t, nil
}

// ReadRepoTotals returns the stored totals, ok false when no run stored them.
func (db *DB) ReadRepoTotals(ctx context.Context, repoID int64) (t RepoTotals, ok bool, err error) {
	var files, chunks, edges *int
	err = db.Pool.QueryRow(ctx, `SELECT stat_files, stat_chunks, stat_edges FROM repositories WHERE id = $1`, repoID).
		Scan(&files, &chunks, &edges)
	if err != nil {
		return t, false, fmt.Errorf("read the repository's totals: %w", err)
	}
	if files == nil || chunks == nil || edges == nil {
		return t, false, nil
	}
	return RepoTotals{Files: *files, Chunks: *chunks, Edges: *edges}, true, nil
}
