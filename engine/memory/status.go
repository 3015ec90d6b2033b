package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// transition is one audited status change.
type transition struct {
	id           string
	from, to     Status
	action       string
	actor        string
	reason       string
	conflictID   string
	supersededBy string // when to is SUPERSEDED
}

// apply changes a memory's status if it is still t.from and records the event.
func (s *Store) apply(ctx context.Context, q querier, t transition) error {
	var id string
	err := q.QueryRow(ctx, transitionSQL, s.project, t.id, string(t.to), t.supersededBy, t.actor, t.reason,
		string(t.from), t.action, t.conflictID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("memory %s is no longer %s: %w", t.id, t.from, ErrChanged)
	}
	if err != nil {
		return fmt.Errorf("%s memory %s: %w", t.action, t.id, err)
	}
	return nil
}

// lockMemories loads memories of the project by id, locked for update, in the
// order of ids.
func (s *Store) lockMemories(ctx context.Context, q querier, ids []string) ([]Memory, error) {
	rows, err := q.Query(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.repository_id = $1 AND m.id = ANY($2::uuid[])
		ORDER BY array_position($2::uuid[], m.id) FOR UPDATE`, s.project, ids)
	if err != nil {
		return nil, fmt.Errorf("load memories: %w", err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return nil, fmt.Errorf("load memories: %w", err)
	}
	return ms, nil
}

// lockOne resolves ref (an id or a unique prefix) and loads that memory locked
// for update.
func (s *Store) lockOne(ctx context.Context, tx pgx.Tx, ref string) (Memory, error) {
	id, err := s.resolveMemory(ctx, tx, ref)
	if err != nil {
		return Memory{}, err
	}
	ms, err := s.lockMemories(ctx, tx, []string{id})
	if err != nil {
		return Memory{}, err
	}
	return ms[0], nil
}

// Supersede marks old as replaced by new. Both are ids or unique prefixes; new must
// be live, old must not be superseded already (ErrAlreadySuperseded) nor
// invalidated.
func (s *Store) Supersede(ctx context.Context, oldRef, newRef, actor, reason string) (Memory, error) {
	if err := checkActor(actor); err != nil {
		return Memory{}, fmt.Errorf("supersede: %w", err)
	}
	var out Memory
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		oldID, err := s.resolveMemory(ctx, tx, oldRef)
		if err != nil {
			return err
		}
		newID, err := s.resolveMemory(ctx, tx, newRef)
		if err != nil {
			return err
		}
		if oldID == newID {
			return fmt.Errorf("a memory cannot supersede itself: %w", ErrInvalid)
		}
		ms, err := s.lockMemories(ctx, tx, []string{oldID, newID})
		if err != nil {
			return err
		}
		old, nw := ms[0], ms[1]
		if err := s.refuseDisputed(ctx, tx, old, "supersede", actor); err != nil {
			return err
		}
		switch old.Status {
		case StatusSuperseded:
			return fmt.Errorf("memory %s was superseded by %s: %w", old.ID, old.SupersededBy, ErrAlreadySuperseded)
		case StatusInvalidated:
			return fmt.Errorf("memory %s is invalidated (%s): %w", old.ID, old.TombstoneReason, ErrAlreadyInvalidated)
		}
		if nw.Status == StatusSuperseded || nw.Status == StatusInvalidated {
			return fmt.Errorf("memory %s is %s and cannot supersede another: %w", nw.ID, nw.Status, ErrNotLive)
		}
		if reason == "" {
			reason = "superseded by " + nw.ID
		}
		if err := s.apply(ctx, tx, transition{id: old.ID, from: old.Status, to: StatusSuperseded, action: ActionSupersede,
			actor: actor, reason: reason, supersededBy: nw.ID}); err != nil {
			return err
		}
		out, err = s.get(ctx, tx, old.ID)
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("supersede %s by %s: %w", oldRef, newRef, err)
	}
	return out, nil
}

// Invalidate tombstones a memory: it stays for lineage and audit but no longer
// stands. The reason is required.
func (s *Store) Invalidate(ctx context.Context, ref, actor, reason string) (Memory, error) {
	if err := checkActor(actor); err != nil {
		return Memory{}, fmt.Errorf("invalidate: %w", err)
	}
	if err := checkReason(reason); err != nil {
		return Memory{}, fmt.Errorf("invalidate %s: %w", ref, err)
	}
	var out Memory
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		m, err := s.lockOne(ctx, tx, ref)
		if err != nil {
			return err
		}
		if err := s.refuseDisputed(ctx, tx, m, "invalidate", actor); err != nil {
			return err
		}
		if m.Status == StatusInvalidated {
			return fmt.Errorf("memory %s was invalidated at %s (%s): %w", m.ID, m.TombstonedAt, m.TombstoneReason, ErrAlreadyInvalidated)
		}
		if err := s.apply(ctx, tx, transition{id: m.ID, from: m.Status, to: StatusInvalidated, action: ActionInvalidate,
			actor: actor, reason: reason}); err != nil {
			return err
		}
		out, err = s.get(ctx, tx, m.ID)
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("invalidate %s: %w", ref, err)
	}
	return out, nil
}
