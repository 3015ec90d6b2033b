package memcache

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// anchorSchema caches the anchors of cached memories (issue 17): the briefing
// and recall served from the cache say, per memory, which definitions it is
// about and whether they are current. A table of its own, so that cache files
// written before it keep working (CREATE ... IF NOT EXISTS).
const anchorSchema = `
CREATE TABLE IF NOT EXISTS anchors (
	memory_id TEXT NOT NULL,
	path TEXT NOT NULL,
	name TEXT NOT NULL,
	kind TEXT NOT NULL,
	state TEXT NOT NULL,
	old_path TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (memory_id, path, name)
);
CREATE TRIGGER IF NOT EXISTS anchors_of_evicted AFTER DELETE ON memories BEGIN
	DELETE FROM anchors WHERE memory_id = old.id;
END;`

// readAnchors reads the anchors of the pulled memories. The core touches a
// memory's sync_at whenever its anchors change state, so they come with it.
func readAnchors(ctx context.Context, tx pgx.Tx, project int64, since time.Time, p *pulled) error {
	p.anchors = map[string][]memory.Anchor{}
	if len(p.memories) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT a.memory_id::text, a.path, a.name, a.kind, a.state, coalesce(a.old_path, '')
		FROM memory_anchors a JOIN memories m ON m.repository_id = a.repository_id AND m.id = a.memory_id
		WHERE a.repository_id = $1 AND m.sync_at > $2 ORDER BY a.memory_id, a.path, a.name`, project, since)
	if err != nil {
		return fmt.Errorf("anchors: %w", err)
	}
	var id string
	var a memory.Anchor
	_, err = pgx.ForEachRow(rows, []any{&id, &a.Path, &a.Name, &a.Kind, &a.State, &a.OldPath}, func() error {
		p.anchors[id] = append(p.anchors[id], a)
		return nil
	})
	if err != nil {
		return fmt.Errorf("anchors: %w", err)
	}
	return nil
}

// putAnchors replaces the cached anchors of each pulled memory with the core's.
func putAnchors(ctx context.Context, tx *sql.Tx, p pulled) error {
	for _, m := range p.memories {
		if _, err := tx.ExecContext(ctx, `DELETE FROM anchors WHERE memory_id = ?`, m.ID); err != nil {
			return fmt.Errorf("anchors of %s: %w", m.ID, err)
		}
		if m.Status == memory.StatusSuperseded || m.Status == memory.StatusInvalidated {
			continue
		}
		for _, a := range p.anchors[m.ID] {
			if _, err := tx.ExecContext(ctx, `INSERT INTO anchors (memory_id, path, name, kind, state, old_path) VALUES (?, ?, ?, ?, ?, ?)`,
				m.ID, a.Path, a.Name, a.Kind, string(a.State), a.OldPath); err != nil {
				return fmt.Errorf("anchors of %s: %w", m.ID, err)
			}
		}
	}
	return nil
}

// withAnchors fills the anchors of memories read from the cache.
func (c *Cache) withAnchors(ctx context.Context, ms []memory.BriefMemory) error {
	if len(ms) == 0 {
		return nil
	}
	idx := map[string]int{}
	args := make([]any, len(ms))
	for i, m := range ms {
		idx[m.ID], args[i] = i, m.ID
	}
	rows, err := c.db().QueryContext(ctx, `SELECT memory_id, path, name, kind, state, old_path FROM anchors
		WHERE memory_id IN (?`+strings.Repeat(", ?", len(ms)-1)+`) ORDER BY memory_id, path, name`, args...)
	if err != nil {
		return fmt.Errorf("anchors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a memory.Anchor
		if err := rows.Scan(&id, &a.Path, &a.Name, &a.Kind, &a.State, &a.OldPath); err != nil {
			return fmt.Errorf("anchors: %w", err)
		}
		ms[idx[id]].Anchors = append(ms[idx[id]].Anchors, a)
	}
	return rows.Err()
}

// Review is the core's review queue: the diffs of anchored definitions need the
// code, which the cache never holds.
func (cl *Client) Review(ctx context.Context) ([]memory.ReviewItem, error) {
	var out []memory.ReviewItem
	err := cl.onCore(ctx, func(s *memory.Store) error {
		var err error
		out, err = s.Review(ctx)
		return err
	})
	return out, err
}

// Confirm re-pins a memory's anchors on the core, then pulls the outcome.
func (cl *Client) Confirm(ctx context.Context, ref, actor, reason string) (memory.Memory, error) {
	var out memory.Memory
	err := cl.onCore(ctx, func(s *memory.Store) error {
		var err error
		out, err = s.Confirm(ctx, ref, actor, reason)
		return err
	})
	return out, err
}

// Edit supersedes a memory under review with a corrected one on the core.
func (cl *Client) Edit(ctx context.Context, ref, actor, text string) (memory.Added, error) {
	var out memory.Added
	err := cl.onCore(ctx, func(s *memory.Store) error {
		var err error
		out, err = s.Edit(ctx, ref, actor, text)
		return err
	})
	return out, err
}
