package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/source"
)

// checkAnchors sends memories about code this run changed, removed or renamed
// to review (memory.Store.CheckAnchors). Every run passes here after its writes
// and its resolution (a full or incremental run, a run over given paths from
// a save or the watcher), so this is the one place that decides.
func (r *run) checkAnchors(ctx context.Context) error {
	t := memory.Touched{All: r.opts.Full || r.interrupted}
	for _, x := range r.todo {
		t.Paths = append(t.Paths, x.Path)
	}
	t.Paths = append(t.Paths, r.deleted...)
	if !t.All && len(t.Paths) == 0 {
		return nil
	}
	renames, err := r.renames(ctx)
	if err != nil {
		return err
	}
	t.Renames = renames
	n, err := memory.New(r.ix.db, r.w.repoID, memory.Options{}).CheckAnchors(ctx, t)
	if err != nil {
		return err
	}
	r.sum.MemoriesToReview = n
	switch {
	case n == 1:
		r.sum.Notes = append(r.sum.Notes, "1 memory sent to review: code it is anchored to changed (spelunk memory review)")
	case n > 1:
		r.sum.Notes = append(r.sum.Notes, fmt.Sprintf("%d memories sent to review: code they are anchored to changed (spelunk memory review)", n))
	}
	return nil
}

// renames are the renames git reports between the commit the index was at and
// the one this run indexed, limited to paths this run deleted (a rename git
// sees but the index never held changes nothing). Outside git, on the first
// run, or when history was rewritten, there are none: the anchors of a moved
// file then read as removed.
func (r *run) renames(ctx context.Context) (map[string]string, error) {
	if !r.repo.IsGit || r.base == "" || r.repo.Head == "" || r.base == r.repo.Head || len(r.deleted) == 0 {
		return nil, nil
	}
	changes, err := r.repo.Diff(ctx, r.base, r.repo.Head)
	if errors.Is(err, source.ErrUnknownCommit) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	gone := map[string]bool{}
	for _, p := range r.deleted {
		gone[p] = true
	}
	out := map[string]string{}
	for _, c := range changes {
		if c.Kind == source.Renamed && gone[c.OldPath] {
			out[c.OldPath] = c.Path
		}
	}
	return out, nil
}
