package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/jackc/pgx/v5"
)

// ReviewAnchor is an anchor as the review queue shows it: with, for a changed or
// renamed definition, the diff from what the memory was pinned to.
type ReviewAnchor struct {
	Anchor
	// Diff is a unified diff of the definition, pinned → now ("" when current,
	// removed, or a file anchor, whose content is not kept).
	Diff string `json:"diff,omitempty"`
}

// ReviewItem is a memory waiting for a person because code it is about changed.
type ReviewItem struct {
	ID      string         `json:"id"`
	Status  Status         `json:"status"`
	Reason  string         `json:"reason"`
	Kind    Kind           `json:"kind"`
	Author  string         `json:"author"`
	Content string         `json:"content"`
	At      *time.Time     `json:"at,omitempty"`
	Anchors []ReviewAnchor `json:"anchors"`
}

// maxReview bounds one read of the review queue.
const maxReview = 500

// reviewAnchorRow is an anchor with its pinned and current definition text.
type reviewAnchorRow struct {
	MemoryID string      `db:"memory_id"`
	Path     string      `db:"path"`
	Name     string      `db:"name"`
	Kind     string      `db:"kind"`
	State    AnchorState `db:"state"`
	OldPath  string      `db:"old_path"`
	Pinned   string      `db:"content"`
	Now      *string     `db:"now"`
}

// anchoredFirst ends a subquery over the definitions y of an anchor a's name
// in its file with the one the anchor is pinned to: the one with the pinned
// hash, else the one sharing the most non-blank lines with the pinned text,
// else the first. Of several (overloads before the definition, a
// redefinition), the first is not the anchored one: the review's diff and a
// confirm's re-pin read the definition that changed (the anchor side:
// stale.go's anchorsToCheck).
const anchoredFirst = `ORDER BY y.content_hash = a.content_hash DESC,
	(SELECT count(*) FROM unnest(string_to_array(y.content, E'\n')) AS l(line)
		WHERE btrim(l.line) <> '' AND l.line = ANY (string_to_array(a.content, E'\n'))) DESC,
	y.start_line LIMIT 1`

// Subqueries here name the repository as $1, as their outer query does: Citus
// routes a statement to one shard only when each table is filtered by a
// constant key (a correlated a.repository_id runs on every shard).

// Review lists the review queue, oldest change first: live memories in
// NEEDS_REVIEW, and live memories of another status (DISPUTED, ...) with an
// anchor that is no longer current, each with its anchors and their diffs.
func (s *Store) Review(ctx context.Context) ([]ReviewItem, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT `+memoryColumns+` FROM memories m
		WHERE m.repository_id = $1 AND m.status IN `+liveStatuses+`
			AND (m.status = 'NEEDS_REVIEW' OR EXISTS (SELECT 1 FROM memory_anchors a
				WHERE a.repository_id = $1 AND a.memory_id = m.id AND a.state <> 'current'))
		ORDER BY m.status_at NULLS LAST, m.created_at, m.id LIMIT $2`, s.project, maxReview)
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", err)
	}
	ms, err := pgx.CollectRows(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", err)
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	anchors, err := s.reviewAnchors(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ReviewItem, 0, len(ms))
	for _, m := range ms {
		out = append(out, ReviewItem{ID: m.ID, Status: m.Status, Reason: m.StatusReason, Kind: m.Kind, Author: m.Author,
			Content: m.Content, At: m.StatusAt, Anchors: anchors[m.ID]})
	}
	return out, nil
}

func (s *Store) reviewAnchors(ctx context.Context, ids []string) (map[string][]ReviewAnchor, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT a.memory_id::text AS memory_id, a.path, a.name, a.kind, a.state,
			coalesce(a.old_path, '') AS old_path, a.content,
			(SELECT y.content FROM symbols y WHERE y.repository_id = $1 AND a.name <> ''
				AND y.path = a.path AND y.qualified_name = a.name AND y.kind = a.kind `+anchoredFirst+`) AS now
		FROM memory_anchors a WHERE a.repository_id = $1 AND a.memory_id = ANY($2::uuid[])
		ORDER BY a.memory_id, a.path, a.name`, s.project, ids)
	if err != nil {
		return nil, fmt.Errorf("review anchors: %w", err)
	}
	as, err := pgx.CollectRows(rows, pgx.RowToStructByName[reviewAnchorRow])
	if err != nil {
		return nil, fmt.Errorf("review anchors: %w", err)
	}
	out := map[string][]ReviewAnchor{}
	for _, a := range as {
		ra := ReviewAnchor{Anchor: Anchor{Path: a.Path, Name: a.Name, Kind: a.Kind, State: a.State, OldPath: a.OldPath}}
		if a.Now != nil && a.Pinned != "" && *a.Now != a.Pinned {
			from := a.Path
			if a.OldPath != "" {
				from = a.OldPath
			}
			ra.Diff = udiff.Unified("pinned: "+anchorLabel(a.Name, from), "now: "+anchorLabel(a.Name, a.Path), a.Pinned, *a.Now)
		}
		out[a.MemoryID] = append(out[a.MemoryID], ra)
	}
	return out, nil
}

// Confirm says a memory still holds for the code as it is now: its anchors are
// re-pinned to the current definitions (a removed one is dropped, a renamed one
// stays at its new path) and a NEEDS_REVIEW memory is ACTIVE again.
func (s *Store) Confirm(ctx context.Context, ref, actor, reason string) (Memory, error) {
	if err := checkActor(actor); err != nil {
		return Memory{}, fmt.Errorf("confirm: %w", err)
	}
	var out Memory
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		m, err := s.lockOne(ctx, tx, ref)
		if err != nil {
			return err
		}
		id := m.ID
		if m.Status == StatusSuperseded || m.Status == StatusInvalidated {
			return fmt.Errorf("memory %s is %s; only a live memory is confirmed: %w", id, m.Status, ErrNotLive)
		}
		if err := s.repin(ctx, tx, id); err != nil {
			return err
		}
		if reason == "" {
			reason = "confirmed against the current code"
		}
		to := m.Status
		if m.Status == StatusNeedsReview {
			to = StatusActive
		}
		if err := s.apply(ctx, tx, transition{id: id, from: m.Status, to: to, action: ActionConfirm, actor: actor, reason: reason}); err != nil {
			return err
		}
		out, err = s.get(ctx, tx, id)
		return err
	})
	if err != nil {
		return Memory{}, fmt.Errorf("confirm %s: %w", ref, err)
	}
	return out, nil
}

// repin drops a memory's removed anchors and pins the rest to the index as it is.
func (s *Store) repin(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM memory_anchors WHERE repository_id = $1 AND memory_id = $2::uuid AND state = 'removed'`,
		s.project, id); err != nil {
		return fmt.Errorf("re-pin anchors: %w", err)
	}
	_, err := tx.Exec(ctx, `UPDATE memory_anchors a SET state = 'current', old_path = NULL, pinned_at = now(), changed_at = NULL,
			content_hash = coalesce(CASE WHEN a.name = '' THEN
					(SELECT coalesce(f.content_hash, f.blob_sha) FROM files f WHERE f.repository_id = $1 AND f.path = a.path)
				ELSE (SELECT y.content_hash FROM symbols y WHERE y.repository_id = $1 AND y.path = a.path
					AND y.qualified_name = a.name AND y.kind = a.kind `+anchoredFirst+`) END, a.content_hash),
			content = coalesce((SELECT left(y.content, $3) FROM symbols y WHERE y.repository_id = $1 AND a.name <> ''
				AND y.path = a.path AND y.qualified_name = a.name AND y.kind = a.kind `+anchoredFirst+`), a.content)
		WHERE a.repository_id = $1 AND a.memory_id = $2::uuid`, s.project, id, maxPinnedContent)
	if err != nil {
		return fmt.Errorf("re-pin anchors: %w", err)
	}
	return nil
}

// Edit replaces a memory under review with a corrected text, in one
// transaction: the new memory (a child of the old one, its anchors found
// afresh and pinned to the code as it is, checked for conflicts like any
// other) supersedes the old one.
func (s *Store) Edit(ctx context.Context, ref, actor, text string) (Added, error) {
	if err := checkActor(actor); err != nil {
		return Added{}, fmt.Errorf("edit: %w", err)
	}
	if err := checkText("memory text", text, MaxContentBytes); err != nil {
		return Added{}, fmt.Errorf("edit %s: %w", ref, err)
	}
	vec, model, err := s.embedOne(ctx, text)
	if err != nil {
		return Added{}, fmt.Errorf("edit %s: %w", ref, err)
	}
	var out Added
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		m, err := s.lockOne(ctx, tx, ref)
		if err != nil {
			return err
		}
		id := m.ID
		if st := m.Status; st == StatusSuperseded || st == StatusInvalidated {
			return fmt.Errorf("memory %s is %s; only a live memory is edited: %w", id, st, ErrNotLive)
		}
		if out, err = s.add(ctx, tx, NewMemory{Kind: m.Kind, Author: actor, Text: text, Parents: []string{id}}, vec, model); err != nil {
			return err
		}
		if slices.Contains(out.Corrected, id) {
			return nil // the new text contradicted the old: the correction superseded it already
		}
		// The conflict check may have changed the old memory's status (DISPUTED).
		old, err := s.lockMemories(ctx, tx, []string{id})
		if err != nil {
			return err
		}
		return s.apply(ctx, tx, transition{id: id, from: old[0].Status, to: StatusSuperseded, action: ActionSupersede,
			actor: actor, reason: "edited after review: superseded by " + out.Memory.ID, supersededBy: out.Memory.ID})
	})
	if err != nil {
		return Added{}, fmt.Errorf("edit %s: %w", ref, err)
	}
	return out, nil
}

// AnchorsOf returns the anchors of memories by id (one query), for the reads
// that show them (briefing, recall, show).
func (s *Store) AnchorsOf(ctx context.Context, ids []string) (map[string][]Anchor, error) {
	out := map[string][]Anchor{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT memory_id::text, path, name, kind, state, coalesce(old_path, '')
		FROM memory_anchors WHERE repository_id = $1 AND memory_id = ANY($2::uuid[]) ORDER BY memory_id, path, name`, s.project, ids)
	if err != nil {
		return nil, fmt.Errorf("anchors: %w", err)
	}
	var id string
	var a Anchor
	_, err = pgx.ForEachRow(rows, []any{&id, &a.Path, &a.Name, &a.Kind, &a.State, &a.OldPath}, func() error {
		out[id] = append(out[id], a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("anchors: %w", err)
	}
	return out, nil
}

// anchorHits fills the anchors of search hits.
func (s *Store) anchorHits(ctx context.Context, hs []Hit) error {
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	as, err := s.AnchorsOf(ctx, ids)
	for i := range hs {
		hs[i].Anchors = as[hs[i].ID]
	}
	return err
}
