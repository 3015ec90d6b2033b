package index

import (
	"context"
	"fmt"
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
