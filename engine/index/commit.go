package index

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// relaxCommitSQL is relaxCommit's statement, for a transaction that sends it in
// a batch.
const relaxCommitSQL = `SET LOCAL synchronous_commit = off`

// relaxCommit lets the transaction tx of a run commit without waiting for its
// WAL to reach the disk (synchronous_commit = off): a flush costs 5-40 ms per
// commit on a busy disk, and a one-file change commits several times. Nothing
// is lost that matters: a crash loses at most the last such commits, in
// order, so the database is left as after an earlier point of the run, and
// the run is then known to be unfinished (beginRun commits synchronously).
// finishRun's commit, synchronous, flushes every earlier one before the run
// reports success.
func relaxCommit(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, relaxCommitSQL); err != nil {
		return fmt.Errorf("relax the commit: %w", err)
	}
	return nil
}
