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

// UpdateRepoStats records that a run wrote or deleted changedFiles files, and
// recounts the statistics when recount is set, when none are stored, or when the
// files changed since the last count pass a tenth of the repository's files
// (at least 20).
func (db *DB) UpdateRepoStats(ctx context.Context, repoID int64, changedFiles, files int, recount bool) error {
	var stored bool
	var drift int
	err := db.Pool.QueryRow(ctx, `UPDATE repositories SET stat_drift = stat_drift + $2 WHERE id = $1
		RETURNING stat_chunks IS NOT NULL, stat_drift`, repoID, changedFiles).Scan(&stored, &drift)
	if err != nil {
		return fmt.Errorf("record the repository's changes: %w", err)
	}
	if stored && !recount && drift <= max(files/10, 20) {
		return nil
	}
	_, err = db.Pool.Exec(ctx, `UPDATE repositories r SET stat_chunks = s.chunks, stat_docs = s.docs,
		stat_avg_length = s.avg, stat_drift = 0
		FROM (`+countRepoStats+`) s(chunks, docs, avg) WHERE r.id = $1`, repoID)
	if err != nil {
		return fmt.Errorf("count the repository's statistics: %w", err)
	}
	return nil
}
