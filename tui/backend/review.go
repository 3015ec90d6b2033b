package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/tui/conflictview"
)

// reviewStore is what the review queue needs of memory: memory.Store's
// methods, or the cache client's, which send them to the core.
type reviewStore interface {
	Review(ctx context.Context) ([]memory.ReviewItem, error)
	Confirm(ctx context.Context, ref, actor, reason string) (memory.Memory, error)
	Edit(ctx context.Context, ref, actor, text string) (memory.Added, error)
	Invalidate(ctx context.Context, ref, actor, reason string) (memory.Memory, error)
}

var _ conflictview.Reviewer = (*Engine)(nil)

func (e *Engine) reviews() (reviewStore, error) {
	rs, ok := e.mem.(reviewStore)
	if !ok {
		return nil, errors.New("this memory store has no review queue")
	}
	return rs, nil
}

// Review returns the memories whose anchored code changed, as stale items of
// the Conflicts pane's queue.
func (e *Engine) Review(ctx context.Context) ([]conflictview.Conflict, error) {
	rs, err := e.reviews()
	if err != nil {
		return nil, err
	}
	items, err := rs.Review(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]conflictview.Conflict, 0, len(items))
	for _, it := range items {
		c := conflictview.Conflict{ID: it.ID, Stale: true, Reason: it.Reason, Sides: []conflictview.Side{{ID: it.ID,
			Kind: string(it.Kind), Author: it.Author, Status: string(it.Status), Content: it.Content}}}
		if it.At != nil {
			c.CreatedAt, c.Sides[0].CreatedAt = *it.At, *it.At
		}
		for _, a := range it.Anchors {
			c.Anchors = append(c.Anchors, conflictview.Anchor{Path: a.Path, Name: a.Name, State: string(a.State), OldPath: a.OldPath, Diff: a.Diff})
		}
		out = append(out, c)
	}
	return out, nil
}

// ReviewAction confirms, edits or invalidates a memory under review.
func (e *Engine) ReviewAction(ctx context.Context, memoryID string, r conflictview.Resolution) error {
	rs, err := e.reviews()
	if err != nil {
		return err
	}
	switch r.Action {
	case conflictview.Confirm:
		_, err = rs.Confirm(ctx, memoryID, e.opts.Actor, r.Note)
	case conflictview.Edit:
		_, err = rs.Edit(ctx, memoryID, e.opts.Actor, r.Text)
	case conflictview.Invalidate:
		_, err = rs.Invalidate(ctx, memoryID, e.opts.Actor, r.Note)
	default:
		err = fmt.Errorf("review: no action %q", r.Action)
	}
	return err
}

// anchorLabels are a briefed memory's anchors as the Memory tab shows them.
func anchorLabels(as []memory.Anchor) []string {
	out := make([]string, 0, len(as))
	for _, a := range as {
		name := a.Path
		if a.Name != "" {
			name = a.Name
		}
		out = append(out, name+" "+string(a.State))
	}
	return out
}

// staleCount counts the stale memories of the review queue (0 for a store
// without one), so that the Memory tab counts what the Conflicts tab does.
func (e *Engine) staleCount(ctx context.Context) (int, error) {
	rs, err := e.reviews()
	if err != nil {
		return 0, nil // no review queue: the Conflicts tab lists disputes only
	}
	items, err := rs.Review(ctx)
	if err != nil {
		return 0, fmt.Errorf("count stale memories: %w", err)
	}
	return len(items), nil
}
