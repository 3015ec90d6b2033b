package index

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/source"
)

// Status describes how a repository's index compares with the repository.
type Status struct {
	pg.Repository
	Files            int              `json:"files"`
	Symbols          int              `json:"symbols"`
	Edges            int              `json:"edges"`
	ResolvedEdges    int              `json:"resolved_edges"`
	PendingEmbedding int              `json:"pending_embedding"`
	Partial          int              `json:"partial_files"`
	Skipped          map[string]int   `json:"skipped"`
	Secrets          []FileSecretNote `json:"secrets_redacted,omitempty"`
	Head             string           `json:"head,omitempty"`
	Stale            bool             `json:"stale"`
	StaleReason      string           `json:"stale_reason,omitempty"`
	Interrupted      bool             `json:"interrupted"`
}

// FileSecretNote counts the secrets redacted in one file.
type FileSecretNote struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// RepoStatus reports on the repository registered for dir. Staleness compares the
// last indexed commit with HEAD and, when the index does not cover the working tree,
// looks for uncommitted changes.
func RepoStatus(ctx context.Context, db *pg.DB, rec pg.Repository) (Status, error) {
	st := Status{Repository: rec, Skipped: map[string]int{}}
	err := db.Pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM files WHERE repository_id = $1),
		(SELECT count(*) FROM symbols WHERE repository_id = $1 AND kind <> 'field'),
		(SELECT count(*) FROM edges WHERE repository_id = $1),
		(SELECT count(*) FROM edges WHERE repository_id = $1 AND (target_id IS NOT NULL OR target_file_id IS NOT NULL)),
		(SELECT count(*) FROM symbols WHERE repository_id = $1 AND embedding_state = 'pending'),
		(SELECT count(*) FROM files WHERE repository_id = $1 AND status = 'partial'),
		(SELECT indexing_started IS NOT NULL FROM repositories WHERE id = $1)`, rec.ID).
		Scan(&st.Files, &st.Symbols, &st.Edges, &st.ResolvedEdges, &st.PendingEmbedding, &st.Partial, &st.Interrupted)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	rows, err := db.Pool.Query(ctx, `SELECT coalesce(skip_reason, 'unknown'), count(*) FROM files
		WHERE repository_id = $1 AND status = 'skipped' GROUP BY 1 ORDER BY 1`, rec.ID)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	var reason string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&reason, &n}, func() error { st.Skipped[reason] = n; return nil })
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	rows, err = db.Pool.Query(ctx, `SELECT path, secrets_redacted FROM files
		WHERE repository_id = $1 AND secrets_redacted > 0 ORDER BY path`, rec.ID)
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}
	st.Secrets, err = pgx.CollectRows(rows, pgx.RowToStructByPos[FileSecretNote])
	if err != nil {
		return st, fmt.Errorf("repository status: %w", err)
	}

	// Indexed already: a system directory was forced, so reading its status is fine.
	repo, err := source.OpenWith(ctx, rec.Root, source.OpenOptions{AllowSystemDirs: true})
	if err != nil {
		st.Stale, st.StaleReason = true, err.Error()
		return st, nil
	}
	defer repo.Close()
	st.Head = repo.Head
	switch {
	case rec.LastIndexedAt == nil:
		st.Stale, st.StaleReason = true, "never indexed"
	case st.Interrupted:
		st.Stale, st.StaleReason = true, "the last run did not finish"
	case repo.IsGit && repo.Head != rec.LastCommit:
		st.Stale, st.StaleReason = true, fmt.Sprintf("HEAD is %s, index is at %s", short(repo.Head), short(rec.LastCommit))
	case repo.IsGit:
		dirty, err := repo.Dirty(ctx)
		switch {
		case err != nil: // not "clean": nobody can tell
			st.Stale, st.StaleReason = true, err.Error()
		case dirty && !rec.WorkingTree:
			st.Stale, st.StaleReason = true, "uncommitted changes not indexed (spelunk index --working-tree)"
		}
	}
	return st, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "(none)"
	}
	return sha
}
