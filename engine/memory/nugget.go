package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// NuggetWrite is one write of a nugget.
type NuggetWrite struct {
	Key    string
	Value  string
	Author string
	// At is the write's timestamp; zero means the database clock. Last write wins
	// by this timestamp: a write older than the current value goes into the history
	// only.
	At time.Time
	// MutationID is a client-generated UUID ("" for none): a write replayed with
	// the same id is not recorded twice (Applied false the second time).
	MutationID string
}

// NuggetSet is the outcome of SetNugget.
type NuggetSet struct {
	// Nugget is the current value after the write.
	Nugget Nugget `json:"nugget"`
	// Applied reports whether this write became the current value.
	Applied bool `json:"applied"`
}

// setNuggetSQL appends the write to the history and makes it current unless a
// later write (by timestamp, then history id) is current, in one statement. A
// concurrent writer of the same key waits on the row lock and then re-checks the
// condition against the row as committed, so the latest timestamp always wins
// and no write is lost from the history.
const setNuggetSQL = `
WITH h AS (
	INSERT INTO nugget_history (repository_id, key, value, author, written_at, mutation_id)
	VALUES ($1, $2, $3, $4, coalesce($5, clock_timestamp()), nullif($6, '')::uuid)
	ON CONFLICT (repository_id, mutation_id) WHERE mutation_id IS NOT NULL DO NOTHING
	RETURNING id, written_at
), u AS (
	INSERT INTO nuggets (repository_id, key, value, author, updated_at, deleted, history_id)
	SELECT $1, $2, $3, $4, h.written_at, false, h.id FROM h
	ON CONFLICT (repository_id, key) DO UPDATE SET value = EXCLUDED.value, author = EXCLUDED.author,
		updated_at = EXCLUDED.updated_at, deleted = false, history_id = EXCLUDED.history_id
	WHERE (nuggets.updated_at, nuggets.history_id) < (EXCLUDED.updated_at, EXCLUDED.history_id)
	RETURNING key
)
SELECT EXISTS (SELECT 1 FROM u)`

// SetNugget writes a nugget: last write wins by timestamp, every write is kept in
// the history.
func (s *Store) SetNugget(ctx context.Context, w NuggetWrite) (NuggetSet, error) {
	if err := validateNugget(w); err != nil {
		return NuggetSet{}, err
	}
	var out NuggetSet
	if err := s.db.Pool.QueryRow(ctx, setNuggetSQL, nuggetArgs(s.project, w)...).Scan(&out.Applied); err != nil {
		return NuggetSet{}, fmt.Errorf("set nugget %s: %w", w.Key, err)
	}
	n, err := s.Nugget(ctx, w.Key)
	if err != nil {
		return NuggetSet{}, fmt.Errorf("set nugget %s: %w", w.Key, err)
	}
	out.Nugget = n
	return out, nil
}

// Nugget returns the current value of key.
func (s *Store) Nugget(ctx context.Context, key string) (Nugget, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT key, value, author, updated_at FROM nuggets
		WHERE repository_id = $1 AND key = $2 AND NOT deleted`, s.project, key)
	if err != nil {
		return Nugget{}, fmt.Errorf("get nugget %s: %w", key, err)
	}
	n, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Nugget])
	if errors.Is(err, pgx.ErrNoRows) {
		return Nugget{}, fmt.Errorf("nugget %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return Nugget{}, fmt.Errorf("get nugget %s: %w", key, err)
	}
	return n, nil
}

// Nuggets returns the project's current nuggets by key.
func (s *Store) Nuggets(ctx context.Context) ([]Nugget, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT key, value, author, updated_at FROM nuggets
		WHERE repository_id = $1 AND NOT deleted ORDER BY key`, s.project)
	if err != nil {
		return nil, fmt.Errorf("list nuggets: %w", err)
	}
	ns, err := pgx.CollectRows(rows, pgx.RowToStructByName[Nugget])
	if err != nil {
		return nil, fmt.Errorf("list nuggets: %w", err)
	}
	return ns, nil
}

// NuggetHistory returns every write of key, oldest first (by timestamp, then
// write order): the last one is the current value.
func (s *Store) NuggetHistory(ctx context.Context, key string) ([]NuggetVersion, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT id, key, value, author, written_at FROM nugget_history
		WHERE repository_id = $1 AND key = $2 ORDER BY written_at, id`, s.project, key)
	if err != nil {
		return nil, fmt.Errorf("nugget history %s: %w", key, err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowToStructByName[NuggetVersion])
	if err != nil {
		return nil, fmt.Errorf("nugget history %s: %w", key, err)
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("nugget %s: %w", key, ErrNotFound)
	}
	return vs, nil
}
