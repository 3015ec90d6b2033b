package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Action is how a person settles a conflict.
type Action string

// The resolutions of docs/ARCHITECTURE.md §8.
const (
	// ResolveKeep keeps one memory; the others are SUPERSEDED by it.
	ResolveKeep Action = "keep"
	// ResolveKeepAll keeps every memory: they stand together and the pairs are
	// never flagged again.
	ResolveKeepAll Action = "both"
	// ResolveMerge records a new memory, authored by the resolver with the members
	// as parents, that supersedes them all.
	ResolveMerge Action = "merge"
	// ResolveInvalidate tombstones one memory; the others stand.
	ResolveInvalidate Action = "invalidate"
)

// Resolution is a person's decision on a conflict.
type Resolution struct {
	Action Action
	// Memory names the memory to keep or invalidate: its id, a unique prefix, or its
	// side in the conflict ("a" is the first memory, "b" the second, ...).
	Memory string
	// Text is the merged statement (ResolveMerge).
	Text string
	// Kind of the merged memory; default the kind of side a.
	Kind     Kind
	Resolver string
	Note     string
}

// Resolved is the outcome of Resolve.
type Resolved struct {
	Conflict Conflict `json:"conflict"`
	// Merged is the memory a merge created.
	Merged *Memory `json:"merged,omitempty"`
	// MergedConflictID is set when the merged memory contradicts another memory.
	MergedConflictID string `json:"merged_conflict_id,omitempty"`
}

// Resolve settles an open conflict (id or unique prefix). Every memory touched gets
// a "resolve" event with the resolver and the note; Undo reverts it. Resolving a
// resolved conflict fails with ErrAlreadyResolved.
func (s *Store) Resolve(ctx context.Context, ref string, r Resolution) (Resolved, error) {
	if err := checkActor(r.Resolver); err != nil {
		return Resolved{}, fmt.Errorf("resolve conflict %s: resolver: %w", ref, err)
	}
	if err := checkBytes("note", r.Note, MaxValueBytes); err != nil {
		return Resolved{}, fmt.Errorf("resolve conflict %s: %w", ref, err)
	}
	var vec []float32
	var model string
	switch r.Action {
	case ResolveKeep, ResolveInvalidate:
		if strings.TrimSpace(r.Memory) == "" {
			return Resolved{}, fmt.Errorf("resolve conflict %s: %s needs the memory: %w", ref, r.Action, ErrInvalid)
		}
	case ResolveKeepAll:
	case ResolveMerge:
		if r.Kind != "" && !r.Kind.Valid() {
			return Resolved{}, fmt.Errorf("resolve conflict %s: kind %q: %w", ref, r.Kind, ErrInvalid)
		}
		if err := checkText("merged text", r.Text, MaxContentBytes); err != nil {
			return Resolved{}, fmt.Errorf("resolve conflict %s: %w", ref, err)
		}
		var err error
		if vec, model, err = s.embedOne(ctx, r.Text); err != nil {
			return Resolved{}, fmt.Errorf("resolve conflict %s: %w", ref, err)
		}
	default:
		return Resolved{}, fmt.Errorf("resolve conflict %s: action %q is not keep, both, merge or invalidate: %w", ref, r.Action, ErrInvalid)
	}
	var out Resolved
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = s.resolve(ctx, tx, ref, r, vec, model)
		return err
	})
	if err != nil {
		return Resolved{}, fmt.Errorf("resolve conflict %s: %w", ref, err)
	}
	return out, nil
}

func (s *Store) resolve(ctx context.Context, tx pgx.Tx, ref string, r Resolution, vec []float32, model string) (Resolved, error) {
	var out Resolved
	id, err := s.resolveID(ctx, tx, "conflicts", "conflict", ref)
	if err != nil {
		return out, err
	}
	d, err := s.conflictDetail(ctx, tx, id, true)
	if err != nil {
		return out, err
	}
	if d.Status != ConflictOpen {
		at := ""
		if d.ResolvedAt != nil {
			at = " at " + d.ResolvedAt.Format("2006-01-02 15:04:05Z07:00")
		}
		return out, fmt.Errorf("conflict %s was resolved (%s) by %s%s: %w", id, d.Resolution, d.Resolver, at, ErrAlreadyResolved)
	}
	if len(d.Memories) == 0 {
		return out, fmt.Errorf("conflict %s has no memories left: %w", id, ErrNotFound)
	}
	var target Memory
	if r.Action == ResolveKeep || r.Action == ResolveInvalidate {
		if target, err = s.member(ctx, tx, d, r.Memory); err != nil {
			return out, err
		}
	}
	var merged Memory
	if r.Action == ResolveMerge {
		kind := r.Kind
		if kind == "" {
			kind = d.Memories[0].Kind
		}
		if merged, err = s.insert(ctx, tx, NewMemory{Kind: kind, Author: r.Resolver, Text: r.Text, Parents: d.MemoryIDs}, vec, model); err != nil {
			return out, fmt.Errorf("merged memory: %w", err)
		}
	}

	resolution := string(r.Action)
	switch r.Action {
	case ResolveKeep, ResolveInvalidate:
		resolution += ":" + target.ID
	case ResolveMerge:
		resolution += ":" + merged.ID
	}
	reason := resolution
	if r.Note != "" {
		reason += ": " + r.Note
	}
	for _, m := range d.Memories {
		t := transition{id: m.ID, from: m.Status, to: m.Status, action: ActionResolve, actor: r.Resolver,
			reason: memberReason(reason, m.ID, d.MemoryIDs), conflictID: id}
		live := m.Status == StatusActive || m.Status == StatusDisputed || m.Status == StatusPendingEmbedding ||
			m.Status == StatusNeedsReview
		if !live {
			continue // settled elsewhere since the conflict opened
		}
		switch {
		case r.Action == ResolveKeep && m.ID == target.ID, r.Action == ResolveKeepAll,
			r.Action == ResolveInvalidate && m.ID != target.ID:
			if m.Status == StatusDisputed {
				t.to = StatusActive
			}
		case r.Action == ResolveKeep:
			t.to, t.supersededBy = StatusSuperseded, target.ID
		case r.Action == ResolveMerge:
			t.to, t.supersededBy = StatusSuperseded, merged.ID
		case r.Action == ResolveInvalidate:
			t.to = StatusInvalidated
		}
		if err := s.apply(ctx, tx, t); err != nil {
			return out, err
		}
	}
	if r.Action == ResolveKeepAll {
		if _, err := tx.Exec(ctx, `INSERT INTO conflict_exemptions (repository_id, memory_a, memory_b, conflict_id)
			SELECT $1, a, b, $3::uuid FROM unnest($2::uuid[]) a, unnest($2::uuid[]) b WHERE a < b
			ON CONFLICT DO NOTHING`, s.project, d.MemoryIDs, id); err != nil {
			return out, fmt.Errorf("record exemptions: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE conflicts SET status = 'resolved', resolution = $3, resolver = $4,
		note = nullif($5, ''), resolved_at = now() WHERE repository_id = $1 AND id = $2::uuid`,
		s.project, id, resolution, r.Resolver, r.Note); err != nil {
		return out, fmt.Errorf("close conflict: %w", err)
	}
	if r.Action == ResolveMerge {
		if vec != nil {
			det, err := s.detect(ctx, tx, merged, vec, model, r.Resolver)
			if err != nil {
				return out, err
			}
			out.MergedConflictID = det.conflictID
		}
		if merged, err = s.get(ctx, tx, merged.ID); err != nil {
			return out, err
		}
		out.Merged = &merged
	}
	d2, err := s.conflictDetail(ctx, tx, id, false)
	out.Conflict = d2.Conflict
	return out, err
}

// member finds the memory of a conflict named by side letter, id or prefix.
func (s *Store) member(ctx context.Context, q querier, d ConflictDetail, ref string) (Memory, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if len(ref) == 1 && ref[0] >= 'a' && ref[0] <= 'z' {
		i := int(ref[0] - 'a')
		if i >= len(d.Memories) {
			return Memory{}, fmt.Errorf("conflict %s has %d sides (a-%c), not %s: %w", d.ID, len(d.Memories), 'a'+len(d.Memories)-1, ref, ErrNotMember)
		}
		return d.Memories[i], nil
	}
	id, err := s.resolveMemory(ctx, q, ref)
	if err != nil {
		return Memory{}, err
	}
	for _, m := range d.Memories {
		if m.ID == id {
			return m, nil
		}
	}
	return Memory{}, fmt.Errorf("memory %s in conflict %s: %w", id, d.ID, ErrNotMember)
}

// Undo reverts the resolution of a conflict: the memories get back the statuses
// they had, a merged memory is invalidated, "keep both" exemptions are dropped, and
// the conflict reopens. It fails with ErrChanged when a memory changed since.
func (s *Store) Undo(ctx context.Context, ref, actor string) (Conflict, error) {
	if err := checkActor(actor); err != nil {
		return Conflict{}, fmt.Errorf("undo conflict %s: %w", ref, err)
	}
	var out Conflict
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = s.undo(ctx, tx, ref, actor)
		return err
	})
	if err != nil {
		return Conflict{}, fmt.Errorf("undo conflict %s: %w", ref, err)
	}
	return out, nil
}

// resolveEvent is a status change made by the latest resolution of a conflict.
type resolveEvent struct {
	MemoryID   string `db:"memory_id"`
	FromStatus Status `db:"from_status"`
	ToStatus   Status `db:"to_status"`
}

func (s *Store) undo(ctx context.Context, tx pgx.Tx, ref, actor string) (Conflict, error) {
	id, err := s.resolveID(ctx, tx, "conflicts", "conflict", ref)
	if err != nil {
		return Conflict{}, err
	}
	d, err := s.conflictDetail(ctx, tx, id, true)
	if err != nil {
		return Conflict{}, err
	}
	if d.Status != ConflictResolved {
		return Conflict{}, fmt.Errorf("conflict %s is open: %w", id, ErrNotResolved)
	}
	action, arg, _ := strings.Cut(d.Resolution, ":")
	if action == "merged" {
		return Conflict{}, fmt.Errorf("conflict %s was merged into conflict %s; undo that one instead: %w", id, arg, ErrInvalid)
	}
	reason := "undo " + d.Resolution
	// The events of the latest resolution: those after the latest undo.
	rows, err := tx.Query(ctx, `SELECT memory_id::text AS memory_id, from_status, to_status FROM memory_events
		WHERE repository_id = $1 AND conflict_id = $2::uuid AND action = 'resolve'
			AND id > coalesce((SELECT max(id) FROM memory_events
				WHERE repository_id = $1 AND conflict_id = $2::uuid AND action = 'undo'), 0)
		ORDER BY id DESC`, s.project, id)
	if err != nil {
		return Conflict{}, fmt.Errorf("read resolution events: %w", err)
	}
	evs, err := pgx.CollectRows(rows, pgx.RowToStructByName[resolveEvent])
	if err != nil {
		return Conflict{}, fmt.Errorf("read resolution events: %w", err)
	}
	if Action(action) == ResolveMerge {
		ms, err := s.lockMemories(ctx, tx, []string{arg})
		if err != nil {
			return Conflict{}, err
		}
		if len(ms) == 1 && ms[0].Status != StatusInvalidated {
			if ms[0].Status == StatusSuperseded {
				return Conflict{}, fmt.Errorf("merged memory %s was superseded by %s since: %w", arg, ms[0].SupersededBy, ErrChanged)
			}
			if err := s.apply(ctx, tx, transition{id: arg, from: ms[0].Status, to: StatusInvalidated, action: ActionUndo,
				actor: actor, reason: memberReason(reason, arg, d.MemoryIDs), conflictID: id}); err != nil {
				return Conflict{}, err
			}
		}
	}
	for _, e := range evs {
		err := s.apply(ctx, tx, transition{id: e.MemoryID, from: e.ToStatus, to: e.FromStatus, action: ActionUndo,
			actor: actor, reason: memberReason(reason, e.MemoryID, d.MemoryIDs), conflictID: id})
		if err != nil {
			return Conflict{}, fmt.Errorf("memory %s changed since the resolution: %w", e.MemoryID, ErrChanged)
		}
	}
	if Action(action) == ResolveKeepAll {
		if _, err := tx.Exec(ctx, `DELETE FROM conflict_exemptions WHERE repository_id = $1 AND conflict_id = $2::uuid`,
			s.project, id); err != nil {
			return Conflict{}, fmt.Errorf("drop exemptions: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE conflicts SET status = 'open', resolution = NULL, resolver = NULL, note = NULL,
		resolved_at = NULL WHERE repository_id = $1 AND id = $2::uuid`, s.project, id); err != nil {
		return Conflict{}, fmt.Errorf("reopen conflict: %w", err)
	}
	d2, err := s.conflictDetail(ctx, tx, id, false)
	return d2.Conflict, err
}
