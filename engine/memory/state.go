package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// NewState is a state compilation to record.
type NewState struct {
	Summary    string
	Blockers   []string
	Priorities []string
	Author     string
	// MutationID is a client-generated UUID ("" for none): a compilation replayed
	// with the same id is stored once and the stored one is returned.
	MutationID string
}

const stateColumns = `id, summary, blockers, priorities, author, compiled_at`

// SetState records a state compilation; the latest one is the project's state.
func (s *Store) SetState(ctx context.Context, in NewState) (State, error) {
	if err := checkText("summary", in.Summary, MaxValueBytes); err != nil {
		return State{}, fmt.Errorf("set state: %w", err)
	}
	if err := checkActor(in.Author); err != nil {
		return State{}, fmt.Errorf("set state: %w", err)
	}
	for _, l := range []struct {
		what  string
		items []string
	}{{"blocker", in.Blockers}, {"priority", in.Priorities}} {
		if len(l.items) > MaxListItems {
			return State{}, fmt.Errorf("set state: %d %s items; the limit is %d: %w", len(l.items), l.what, MaxListItems, ErrTooLarge)
		}
		for _, it := range l.items {
			if err := checkText(l.what, it, MaxValueBytes); err != nil {
				return State{}, fmt.Errorf("set state: %w", err)
			}
		}
	}
	blockers, priorities := in.Blockers, in.Priorities
	if blockers == nil {
		blockers = []string{}
	}
	if priorities == nil {
		priorities = []string{}
	}
	if in.MutationID != "" && !uuidRE.MatchString(in.MutationID) {
		return State{}, fmt.Errorf("set state: mutation id %q is not a UUID: %w", in.MutationID, ErrInvalid)
	}
	rows, err := s.db.Pool.Query(ctx, `WITH i AS (
		INSERT INTO state_compilations (repository_id, summary, blockers, priorities, author, mutation_id)
		VALUES ($1, $2, $3, $4, $5, nullif($6, '')::uuid)
		ON CONFLICT (repository_id, mutation_id) WHERE mutation_id IS NOT NULL DO NOTHING
		RETURNING `+stateColumns+`)
		SELECT * FROM i UNION ALL
		SELECT `+stateColumns+` FROM state_compilations
		WHERE repository_id = $1 AND mutation_id = nullif($6, '')::uuid AND NOT EXISTS (SELECT 1 FROM i)`,
		s.project, in.Summary, blockers, priorities, in.Author, in.MutationID)
	if err != nil {
		return State{}, fmt.Errorf("set state: %w", err)
	}
	st, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[State])
	if err != nil {
		return State{}, fmt.Errorf("set state: %w", err)
	}
	return st, nil
}

// LatestState returns the latest state compilation (ErrNotFound when none).
func (s *Store) LatestState(ctx context.Context) (State, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT `+stateColumns+` FROM state_compilations
		WHERE repository_id = $1 ORDER BY compiled_at DESC, id DESC LIMIT 1`, s.project)
	if err != nil {
		return State{}, fmt.Errorf("show state: %w", err)
	}
	st, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[State])
	if errors.Is(err, pgx.ErrNoRows) {
		return State{}, fmt.Errorf("no state compiled yet: %w", ErrNotFound)
	}
	if err != nil {
		return State{}, fmt.Errorf("show state: %w", err)
	}
	return st, nil
}
