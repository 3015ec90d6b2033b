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
}

const repoColumns = `id, name, root, coalesce(default_branch, ''), coalesce(last_commit, ''), working_tree,
	coalesce(embedding_model, ''), last_indexed_at`

func scanRepo(row pgx.Row) (Repository, error) {
	var r Repository
	err := row.Scan(&r.ID, &r.Name, &r.Root, &r.DefaultBranch, &r.LastCommit, &r.WorkingTree, &r.EmbeddingModel, &r.LastIndexedAt)
	return r, err
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
