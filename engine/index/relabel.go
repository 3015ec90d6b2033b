package index

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/source"
)

// relabels reports whether an unchanged file's rows, stored under revision
// old, must be relabelled now that the run lists the same content under
// revision cur. Only a move across the working-tree line counts: a file
// indexed from disk and then committed as it was carries the commit from then
// on (and one whose commit moved away under it, as after git reset --soft,
// becomes working-tree again), so "working-tree" marks exactly the rows whose
// content HEAD does not have. A file unchanged from one commit to the next
// keeps the commit it was indexed at, as it always has: relabelling those
// would rewrite every row of the repository on every commit.
func relabels(old, cur string) bool {
	return old != cur && (old == source.WorkingTreeRev || cur == source.WorkingTreeRev)
}

// relabelFiles stores the new revision of unchanged files (their symbols'
// too: a symbol's revision is its file's, migration 0022), one transaction
// per revision (a run has at most two: HEAD and working-tree).
func (w *writer) relabelFiles(ctx context.Context, files []target) error {
	if len(files) == 0 {
		return nil
	}
	byRev := map[string][]string{}
	for _, t := range files {
		byRev[t.revision] = append(byRev[t.revision], t.Path)
	}
	revs := make([]string, 0, len(byRev))
	for rev := range byRev {
		revs = append(revs, rev)
	}
	sort.Strings(revs)
	for _, rev := range revs {
		paths := byRev[rev]
		err := pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `UPDATE files SET revision = $3
				WHERE repository_id = $1 AND path = ANY ($2) AND revision <> $3`, w.repoID, paths, rev)
			return err
		})
		if err != nil {
			return fmt.Errorf("relabel %d unchanged files as %s: %w", len(paths), rev, err)
		}
	}
	return nil
}
