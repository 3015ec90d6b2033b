package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// get loads one memory by full id.
func (s *Store) get(ctx context.Context, q querier, id string) (Memory, error) {
	rows, err := q.Query(ctx, `SELECT `+memoryColumns+` FROM memories m WHERE m.repository_id = $1 AND m.id = $2::uuid`, s.project, id)
	if err != nil {
		return Memory{}, fmt.Errorf("load memory %s: %w", id, err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return Memory{}, fmt.Errorf("load memory %s: %w", id, err)
	}
	if len(ms) == 0 {
		return Memory{}, fmt.Errorf("memory %s: %w", id, ErrNotFound)
	}
	return ms[0], nil
}

// Get returns a memory by id or unique prefix.
func (s *Store) Get(ctx context.Context, ref string) (Memory, error) {
	id, err := s.resolveMemory(ctx, s.db.Pool, ref)
	if err != nil {
		return Memory{}, err
	}
	m, err := s.get(ctx, s.db.Pool, id)
	if err != nil {
		return Memory{}, err
	}
	as, err := s.AnchorsOf(ctx, []string{id})
	m.Anchors = as[id]
	return m, err
}

// Filter selects memories for List. Zero fields do not filter.
type Filter struct {
	Status Status
	Author string
	Kind   Kind
	// Limit caps the result (default 100, at most 10000).
	Limit int
}

// List returns the project's memories, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Memory, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, fmt.Errorf("list memories: status %q is not one of %v: %w", f.Status, Statuses, ErrInvalid)
	}
	if f.Kind != "" && !f.Kind.Valid() {
		return nil, fmt.Errorf("list memories: kind %q is not one of %v: %w", f.Kind, Kinds, ErrInvalid)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 10000)
	rows, err := s.db.Pool.Query(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.repository_id = $1
			AND ($2 = '' OR m.status = $2)
			AND ($3 = '' OR m.author = $3)
			AND ($4 = '' OR m.kind = $4)
		ORDER BY m.created_at DESC, m.id
		LIMIT $5`, s.project, string(f.Status), f.Author, string(f.Kind), limit)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	return ms, nil
}

// maxLineageDepth bounds the walks over parents and successors.
const maxLineageDepth = 100

// Lineage returns a memory with its ancestors, the chain of memories that
// superseded it, the memories that name it as a parent, and its audit events.
func (s *Store) Lineage(ctx context.Context, ref string) (Lineage, error) {
	var l Lineage
	id, err := s.resolveMemory(ctx, s.db.Pool, ref)
	if err != nil {
		return l, err
	}
	if l.Memory, err = s.Get(ctx, id); err != nil {
		return l, err
	}
	rows, err := s.db.Pool.Query(ctx, `
WITH RECURSIVE anc(id, depth) AS (
	SELECT p.id, 1 FROM memories m CROSS JOIN LATERAL unnest(m.parent_ids) AS p(id)
	WHERE m.repository_id = $1 AND m.id = $2::uuid
	UNION
	SELECT p.id, a.depth + 1 FROM anc a
	JOIN memories m ON m.repository_id = $1 AND m.id = a.id
	CROSS JOIN LATERAL unnest(m.parent_ids) AS p(id)
	WHERE a.depth < $3
), nearest AS (
	SELECT id, min(depth) AS depth FROM anc GROUP BY id
)
SELECT `+memoryColumns+`, n.depth FROM nearest n JOIN memories m ON m.repository_id = $1 AND m.id = n.id
ORDER BY n.depth, m.created_at`, s.project, id, maxLineageDepth)
	if err != nil {
		return l, fmt.Errorf("lineage of %s: %w", id, err)
	}
	if l.Ancestors, err = pgx.CollectRows(rows, pgx.RowToStructByName[Ancestor]); err != nil {
		return l, fmt.Errorf("lineage of %s: %w", id, err)
	}

	rows, err = s.db.Pool.Query(ctx, `
WITH RECURSIVE succ(id, n) AS (
	SELECT superseded_by, 1 FROM memories WHERE repository_id = $1 AND id = $2::uuid AND superseded_by IS NOT NULL
	UNION
	SELECT m.superseded_by, s.n + 1 FROM succ s JOIN memories m ON m.repository_id = $1 AND m.id = s.id
	WHERE m.superseded_by IS NOT NULL AND s.n < $3
)
SELECT `+memoryColumns+` FROM succ s JOIN memories m ON m.repository_id = $1 AND m.id = s.id ORDER BY s.n`,
		s.project, id, maxLineageDepth)
	if err != nil {
		return l, fmt.Errorf("successors of %s: %w", id, err)
	}
	if l.Successors, err = pgx.CollectRows(rows, pgx.RowToStructByName[Memory]); err != nil {
		return l, fmt.Errorf("successors of %s: %w", id, err)
	}

	rows, err = s.db.Pool.Query(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.repository_id = $1 AND m.parent_ids @> ARRAY[$2::uuid] ORDER BY m.created_at`, s.project, id)
	if err != nil {
		return l, fmt.Errorf("children of %s: %w", id, err)
	}
	if l.Children, err = pgx.CollectRows(rows, pgx.RowToStructByName[Memory]); err != nil {
		return l, fmt.Errorf("children of %s: %w", id, err)
	}

	l.Events, err = s.Events(ctx, id)
	return l, err
}

// Events returns the audit trail of a memory (id or unique prefix), oldest first.
func (s *Store) Events(ctx context.Context, ref string) ([]Event, error) {
	id, err := s.resolveMemory(ctx, s.db.Pool, ref)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT id, memory_id::text AS memory_id, action,
		coalesce(from_status, '') AS from_status, coalesce(to_status, '') AS to_status, actor,
		coalesce(reason, '') AS reason, coalesce(conflict_id::text, '') AS conflict_id, at
		FROM memory_events WHERE repository_id = $1 AND memory_id = $2::uuid ORDER BY id`, s.project, id)
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", id, err)
	}
	evs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Event])
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", id, err)
	}
	return evs, nil
}
