package pg

import (
	"context"
	"fmt"
)

// Checkpoint ends a first bulk load: it writes the load's pages to their
// files and lets PostgreSQL delete the WAL the load wrote (the embedded
// cluster does not recycle it, bulkLoadSettings), which would otherwise stay
// on disk until the next timed checkpoint, minutes later: after a first index
// of $GOROOT/src the WAL was as large as the tables (issue 39). It needs a
// role allowed to checkpoint (a superuser, or a member of pg_checkpoint, PostgreSQL 15);
// on a server where spelunk's role is not one, it does nothing and reports
// false.
func (db *DB) Checkpoint(ctx context.Context) (bool, error) {
	conn, err := db.ownerConn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	var allowed bool
	err = conn.QueryRow(ctx, `SELECT rolsuper OR coalesce((SELECT pg_has_role(current_user, c.oid, 'USAGE')
		FROM pg_roles c WHERE c.rolname = 'pg_checkpoint'), false) FROM pg_roles WHERE rolname = current_user`).Scan(&allowed)
	if err != nil {
		return false, fmt.Errorf("checkpoint after the load: %w", err)
	}
	if !allowed {
		return false, nil
	}
	if _, err := conn.Exec(ctx, `CHECKPOINT`); err != nil {
		return false, fmt.Errorf("checkpoint after the load: %w", err)
	}
	return true, nil
}
