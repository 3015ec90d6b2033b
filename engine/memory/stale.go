package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Touched is what an index run wrote: the paths it rewrote or deleted, and the
// renames git reported between the commit indexed before and the new one.
type Touched struct {
	Paths []string
	// All checks every anchor of the project (a full run, or one after an
	// interrupted run, which may have written anything).
	All bool
	// Renames maps an old path to its new one.
	Renames map[string]string
}

// IndexActor is who sends memories to review after an index run.
const IndexActor = "spelunk:index"

// staleAnchor is one anchor whose state an index run changes.
type staleAnchor struct {
	MemoryID string      `db:"memory_id"`
	Status   Status      `db:"status"`
	Path     string      `db:"path"`
	Name     string      `db:"name"`
	Kind     string      `db:"kind"`
	Pinned   string      `db:"content_hash"`
	State    AnchorState `db:"state"`
	NowHash  *string     `db:"now_hash"`
}

// CheckAnchors compares the anchors on what an index run touched with the
// index as it now is. An anchor whose definition is gone becomes removed, one
// whose content hash differs changed, one whose file git reports renamed moves
// to the new path as renamed; an ACTIVE memory with such an anchor goes to
// NEEDS_REVIEW with the reason. An anchor whose definition is unchanged stays
// current, so an unrelated edit (another definition in the same file) leaves
// the memory as it is. It returns how many memories went to review.
func (s *Store) CheckAnchors(ctx context.Context, t Touched) (int, error) {
	if !t.All && len(t.Paths) == 0 {
		return 0, nil
	}
	n := 0
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		newPaths, moved, err := s.followRenames(ctx, tx, t.Renames)
		if err != nil {
			return err
		}
		paths := append(append([]string{}, t.Paths...), newPaths...)
		stale, err := s.anchorsToCheck(ctx, tx, paths, t.All)
		if err != nil {
			return err
		}
		n, err = s.markStale(ctx, tx, stale, moved)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("check memory anchors: %w", err)
	}
	return n, nil
}

// followRenames moves the anchors of renamed files to the new paths (state
// renamed; old_path keeps where they were pinned). It returns the new paths and
// the anchors it moved (anchorKey), which go to review in this run.
func (s *Store) followRenames(ctx context.Context, tx pgx.Tx, renames map[string]string) ([]string, map[string]bool, error) {
	if len(renames) == 0 {
		return nil, nil, nil
	}
	var from, to []string
	for o, n := range renames {
		from, to = append(from, o), append(to, n)
	}
	rows, err := tx.Query(ctx, `WITH r AS (SELECT * FROM unnest($2::text[], $3::text[]) AS r(old, new))
		UPDATE memory_anchors a SET path = r.new, old_path = coalesce(a.old_path, a.path), state = 'renamed', changed_at = now()
		FROM r
		WHERE a.repository_id = $1 AND a.path = r.old AND a.state <> 'removed'
			AND NOT EXISTS (SELECT 1 FROM memory_anchors b WHERE b.repository_id = $1
				AND b.memory_id = a.memory_id AND b.path = r.new AND b.name = a.name)
		RETURNING a.memory_id::text, a.path, a.name`, s.project, from, to)
	if err != nil {
		return nil, nil, fmt.Errorf("follow renames: %w", err)
	}
	moved := map[string]bool{}
	var id, path, name string
	if _, err := pgx.ForEachRow(rows, []any{&id, &path, &name}, func() error {
		moved[anchorKey(id, path, name)] = true
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("follow renames: %w", err)
	}
	return to, moved, nil
}

func anchorKey(memoryID, path, name string) string { return memoryID + "\x00" + path + "\x00" + name }

// anchorsToCheck reads the anchors of live memories on paths (every path with
// all) with the content hash their definition or file has now (nil: gone).
// The subqueries name the repository as $1, not a.repository_id: Citus routes
// a statement to one shard only when each table is filtered by a constant key.
// Of several definitions of one name in a file (overloads before the
// definition, a redefinition), the one that still has the pinned hash is the
// anchor's, else the first: an overload never reads as the anchored
// definition changed.
func (s *Store) anchorsToCheck(ctx context.Context, tx pgx.Tx, paths []string, all bool) ([]staleAnchor, error) {
	rows, err := tx.Query(ctx, `SELECT a.memory_id::text AS memory_id, m.status, a.path, a.name, a.kind, a.content_hash, a.state,
			CASE WHEN a.name = '' THEN (SELECT coalesce(f.content_hash, f.blob_sha, '') FROM files f
					WHERE f.repository_id = $1 AND f.path = a.path)
				ELSE (SELECT y.content_hash FROM symbols y WHERE y.repository_id = $1
					AND y.path = a.path AND y.qualified_name = a.name AND y.kind = a.kind
					ORDER BY y.content_hash = a.content_hash DESC, y.start_line LIMIT 1) END AS now_hash
		FROM memory_anchors a
		JOIN memories m ON m.repository_id = a.repository_id AND m.id = a.memory_id
		WHERE a.repository_id = $1 AND ($3 OR a.path = ANY($2)) AND m.status IN `+liveStatuses+`
		ORDER BY a.memory_id, a.path, a.name`, s.project, paths, all)
	if err != nil {
		return nil, fmt.Errorf("read anchors: %w", err)
	}
	as, err := pgx.CollectRows(rows, pgx.RowToStructByName[staleAnchor])
	if err != nil {
		return nil, fmt.Errorf("read anchors: %w", err)
	}
	return as, nil
}

// nextState is an anchor's state given its definition's hash now. A rename
// stays a rename until a person confirms it (the memory's text may name the
// old path), unless the definition is gone.
func (a staleAnchor) nextState() AnchorState {
	switch {
	case a.NowHash == nil:
		return AnchorRemoved
	case a.State == AnchorRenamed:
		return AnchorRenamed
	case *a.NowHash != a.Pinned:
		return AnchorChanged
	}
	return AnchorCurrent
}

// markStale records the anchors' new states and sends the ACTIVE memories with
// a stale anchor to review. A memory in another live status (DISPUTED, waiting
// for its embedding, already in review) keeps it; its anchors say what changed
// and the review queue lists it.
func (s *Store) markStale(ctx context.Context, tx pgx.Tx, as []staleAnchor, moved map[string]bool) (int, error) {
	reasons := map[string][]string{}
	var order []string
	status := map[string]Status{}
	for _, a := range as {
		next := a.nextState()
		if next != a.State {
			if _, err := tx.Exec(ctx, `UPDATE memory_anchors SET state = $5, changed_at = now()
				WHERE repository_id = $1 AND memory_id = $2::uuid AND path = $3 AND name = $4`,
				s.project, a.MemoryID, a.Path, a.Name, string(next)); err != nil {
				return 0, fmt.Errorf("anchor %s of memory %s: %w", a.Path, a.MemoryID, err)
			}
		}
		if next == AnchorCurrent {
			continue
		}
		if _, ok := reasons[a.MemoryID]; !ok {
			order = append(order, a.MemoryID)
		}
		if next != a.State || moved[anchorKey(a.MemoryID, a.Path, a.Name)] {
			reasons[a.MemoryID] = append(reasons[a.MemoryID], anchorLabel(a.Name, a.Path)+" "+string(next))
		}
		status[a.MemoryID] = a.Status
	}
	n := 0
	for _, id := range order {
		if len(reasons[id]) == 0 {
			continue // already stale before this run
		}
		reason := "code changed: " + strings.Join(reasons[id], "; ")
		if status[id] != StatusActive {
			// The cache pulls past sync_at: an update of the row (the trigger) makes
			// it pull the memory's new anchor states.
			if _, err := tx.Exec(ctx, `UPDATE memories SET sync_at = clock_timestamp() WHERE repository_id = $1 AND id = $2::uuid`, s.project, id); err != nil {
				return 0, fmt.Errorf("memory %s: %w", id, err)
			}
			continue
		}
		if err := s.apply(ctx, tx, transition{id: id, from: StatusActive, to: StatusNeedsReview, action: ActionStale,
			actor: IndexActor, reason: reason}); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// anchorLabel names an anchor for a person: the definition in its file, or the file.
func anchorLabel(name, path string) string {
	if name == "" {
		return path
	}
	return name + " (" + path + ")"
}
