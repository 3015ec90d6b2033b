package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// conflictColumns selects a Conflict from alias c.
const conflictColumns = `c.id::text AS id, c.memory_ids::text[] AS memory_ids, c.similarity::float8 AS similarity,
	c.reason, c.status, coalesce(c.resolution, '') AS resolution, coalesce(c.resolver, '') AS resolver,
	coalesce(c.note, '') AS note, c.created_at, c.resolved_at`

// Conflicts lists the project's conflicts with the given status ("" for all), open
// ones oldest first (the triage queue), the others newest first.
func (s *Store) Conflicts(ctx context.Context, status ConflictStatus) ([]Conflict, error) {
	if status != "" && status != ConflictOpen && status != ConflictResolved {
		return nil, fmt.Errorf("list conflicts: status %q is not open or resolved: %w", status, ErrInvalid)
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT `+conflictColumns+` FROM conflicts c
		WHERE c.repository_id = $1 AND ($2 = '' OR c.status = $2)
		ORDER BY c.status = 'open' DESC,
			CASE WHEN c.status = 'open' THEN c.created_at END ASC,
			c.created_at DESC, c.id`, s.project, string(status))
	if err != nil {
		return nil, fmt.Errorf("list conflicts: %w", err)
	}
	cs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Conflict])
	if err != nil {
		return nil, fmt.Errorf("list conflicts: %w", err)
	}
	return cs, nil
}

// Conflict returns a conflict (id or unique prefix) with its memories.
func (s *Store) Conflict(ctx context.Context, ref string) (ConflictDetail, error) {
	id, err := s.resolveID(ctx, s.db.Pool, "conflicts", "conflict", ref)
	if err != nil {
		return ConflictDetail{}, err
	}
	return s.conflictDetail(ctx, s.db.Pool, id, false)
}

func (s *Store) conflictDetail(ctx context.Context, q querier, id string, lock bool) (ConflictDetail, error) {
	sql := `SELECT ` + conflictColumns + ` FROM conflicts c WHERE c.repository_id = $1 AND c.id = $2::uuid`
	if lock {
		sql += ` FOR UPDATE`
	}
	rows, err := q.Query(ctx, sql, s.project, id)
	if err != nil {
		return ConflictDetail{}, fmt.Errorf("load conflict %s: %w", id, err)
	}
	cs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Conflict])
	if err != nil {
		return ConflictDetail{}, fmt.Errorf("load conflict %s: %w", id, err)
	}
	if len(cs) == 0 {
		return ConflictDetail{}, fmt.Errorf("conflict %s: %w", id, ErrNotFound)
	}
	d := ConflictDetail{Conflict: cs[0]}
	if lock {
		d.Memories, err = s.lockMemories(ctx, q, d.MemoryIDs)
	} else {
		rows, err = q.Query(ctx, `SELECT `+memoryColumns+` FROM memories m
			WHERE m.repository_id = $1 AND m.id = ANY($2::uuid[]) ORDER BY array_position($2::uuid[], m.id)`, s.project, d.MemoryIDs)
		if err == nil {
			d.Memories, err = pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
		}
	}
	if err != nil {
		return ConflictDetail{}, fmt.Errorf("load memories of conflict %s: %w", id, err)
	}
	return d, nil
}
