package pg

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNotFound is returned when a looked-up row does not exist (in this tenant).
var ErrNotFound = errors.New("not found")

// Repository is a registered repository (also the project that memories belong to).
type Repository struct {
	ID             int64      `json:"id"`
	Name           string     `json:"name"`
	Root           string     `json:"root"`
	DefaultBranch  string     `json:"default_branch,omitempty"`
	LastCommit     string     `json:"last_commit,omitempty"`
	WorkingTree    bool       `json:"working_tree"`
	EmbeddingModel string     `json:"embedding_model,omitempty"`
	LastIndexedAt  *time.Time `json:"last_indexed_at,omitempty"`
	// IndexingStarted is set while a run writes, and stays set when the run
	// was stopped or failed before it finished.
	IndexingStarted *time.Time `json:"indexing_started,omitempty"`
}

const repoColumns = `id, name, root, coalesce(default_branch, ''), coalesce(last_commit, ''), working_tree,
	coalesce(embedding_model, ''), last_indexed_at, indexing_started`

func scanRepo(row pgx.Row) (Repository, error) {
	var r Repository
	err := row.Scan(&r.ID, &r.Name, &r.Root, &r.DefaultBranch, &r.LastCommit, &r.WorkingTree, &r.EmbeddingModel,
		&r.LastIndexedAt, &r.IndexingStarted)
	return r, err
}

// Incomplete says why answers read from the repository's index may be
// missing results, "" when its last run finished: the one warning every
// reader (CLI, TUI, MCP) gives, so that an empty answer from an index that
// never finished does not read as "no such code" (issue 36, 5).
func (r Repository) Incomplete() string {
	switch {
	case r.LastIndexedAt == nil && r.IndexingStarted != nil:
		return fmt.Sprintf("index incomplete: no run has finished (the last started %s and stopped or is still running); results may be missing: run `spelunk index`",
			r.IndexingStarted.Local().Format(time.DateTime))
	case r.LastIndexedAt == nil:
		return "index incomplete: no run has finished; results may be missing: run `spelunk index`"
	case r.IndexingStarted != nil:
		return fmt.Sprintf("index incomplete: the last run, started %s, stopped before it finished or is still running; results may be missing",
			r.IndexingStarted.Local().Format(time.DateTime))
	}
	return ""
}

// EnsureRepository returns the repository registered for root in this tenant,
// registering it (named after the directory) on first use.
func (db *DB) EnsureRepository(ctx context.Context, root string) (Repository, error) {
	name := filepath.Base(root)
	r, err := scanRepo(db.Pool.QueryRow(ctx, `
		INSERT INTO repositories (name, root) VALUES ($1, $2)
		ON CONFLICT (tenant_id, root) DO UPDATE SET root = EXCLUDED.root
		RETURNING `+repoColumns, name, root))
	if err != nil {
		return r, fmt.Errorf("register repository %s: %w", root, err)
	}
	return r, nil
}

// RepositoryByRoot looks a repository up without registering it.
func (db *DB) RepositoryByRoot(ctx context.Context, root string) (Repository, error) {
	r, err := scanRepo(db.Pool.QueryRow(ctx, `SELECT `+repoColumns+` FROM repositories WHERE root = $1`, root))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("repository %s: %w", root, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("look up repository %s: %w", root, err)
	}
	return r, nil
}

// Repositories lists this tenant's repositories.
func (db *DB) Repositories(ctx context.Context) ([]Repository, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+repoColumns+` FROM repositories ORDER BY name, id`)
	if err != nil {
		return nil, fmt.Errorf("list repositories: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Repository, error) { return scanRepo(r) })
}
