package index

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// allocIDs takes n ids from a table's identity sequence, so linked rows (parent
// symbols, edges) can be written with COPY in one pass.
func allocIDs(ctx context.Context, tx pgx.Tx, table string, n int) ([]int64, error) {
	if n == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence($1, 'id')) FROM generate_series(1, $2)`, table, n)
	if err != nil {
		return nil, fmt.Errorf("allocate %d %s ids: %w", n, table, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("allocate %d %s ids: %w", n, table, err)
	}
	return ids, nil
}

// copyRows bulk-loads rows into table. PostgreSQL refuses COPY FROM into a table
// under row-level security, so rows are COPYed into a session-local staging table of
// the same columns (emptied at commit) and moved with one INSERT ... SELECT, which
// the tenant policy checks like any insert.
//
// On Citus (db.Distributed) the move says ON CONFLICT DO NOTHING: Citus runs
// a plain INSERT ... SELECT from a local table as a COPY into each shard,
// which the workers refuse under row-level security too, and one with ON
// CONFLICT as an INSERT ... SELECT on each shard from rows it sent there
// first. A duplicate key, which no run writes, is then skipped, not an error.
func copyRows(ctx context.Context, tx pgx.Tx, db *pg.DB, table string, cols []string, rows [][]any) error {
	return copyRowsOrdered(ctx, tx, db, table, cols, rows, "")
}

// copyRowsOrdered is copyRows moving the rows in the order of the SQL list
// order ("" for any order).
func copyRowsOrdered(ctx context.Context, tx pgx.Tx, db *pg.DB, table string, cols []string, rows [][]any, order string) error {
	if len(rows) == 0 {
		return nil
	}
	stage := "stage_" + table
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	list := strings.Join(quoted, ", ")
	if _, err := tx.Exec(ctx, fmt.Sprintf(`CREATE TEMP TABLE IF NOT EXISTS %s ON COMMIT DELETE ROWS AS
		SELECT %s FROM %s WITH NO DATA`, stage, list, table)); err != nil {
		return fmt.Errorf("create staging table for %s: %w", table, err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{stage}, cols, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	insert := fmt.Sprintf(`INSERT INTO %s (%s) SELECT %s FROM %s`, table, list, list, stage)
	if order != "" {
		insert += ` ORDER BY ` + order // the default collation, as the index's
	}
	if db.Distributed {
		insert += ` ON CONFLICT DO NOTHING`
	}
	if _, err := tx.Exec(ctx, insert); err != nil {
		return fmt.Errorf("insert %s: %w", table, err)
	}
	return nil
}

// tableLoad is one table's rows of a batch: its columns and the SQL order
// its staging table's rows move in ("" for any).
type tableLoad struct {
	table string
	cols  []string
	rows  [][]any
	order string
}

// copyDirect COPYs each load straight into its table, as the session user
// (pg.DB.SessionBypassesRLS), which row-level security does not filter: the
// staging table's COPY and INSERT ... SELECT wrote and read every row twice
// (the moves were 13% of PostgreSQL's time in a first index of Go's
// src/net, issue 39). The rows are the ones copyRows would write: built by
// this run for its own repository, which the tenant policy would pass. The
// role is back to the session's (AppRole) before the transaction goes on.
func copyDirect(ctx context.Context, tx pgx.Tx, loads []tableLoad) error {
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE NONE`); err != nil {
		return fmt.Errorf("copy as the session user: %w", err)
	}
	for _, l := range loads {
		if len(l.rows) == 0 {
			continue
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{l.table}, l.cols, pgx.CopyFromRows(l.rows)); err != nil {
			return fmt.Errorf("copy %s: %w", l.table, err)
		}
	}
	if _, err := tx.Exec(ctx, `RESET ROLE`); err != nil {
		return fmt.Errorf("copy as the session user: %w", err)
	}
	return nil
}

// sortPostingRows puts postings rows (repository_id, group_id, term, n, data)
// in (term, group_id) order, bytewise: the order of the staging table's move
// where the database's collation is C, as the embedded cluster's is, and
// close to it elsewhere (only where rows land in the table depends on it).
func sortPostingRows(rows [][]any) {
	slices.SortFunc(rows, func(a, b []any) int {
		if c := strings.Compare(a[2].(string), b[2].(string)); c != 0 {
			return c
		}
		return cmp.Compare(a[1].(int64), b[1].(int64))
	})
}
