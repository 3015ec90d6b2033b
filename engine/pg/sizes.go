package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// TableSize is the disk use of one of spelunk's tables, in bytes: its rows
// (with TOAST), its indexes, and the two together.
type TableSize struct {
	Table   string `json:"table"`
	Data    int64  `json:"data_bytes"`
	Indexes int64  `json:"index_bytes"`
	Total   int64  `json:"total_bytes"`
}

// TableSizes lists the tables of the database's public schema, largest first.
// The sizes are of the whole database: every repository and tenant shares the
// tables.
func (db *DB) TableSizes(ctx context.Context) ([]TableSize, error) {
	rows, err := db.Pool.Query(ctx, `
		SELECT c.relname, pg_table_size(c.oid), pg_indexes_size(c.oid), pg_total_relation_size(c.oid)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r'
		ORDER BY 4 DESC, 1`)
	if err != nil {
		return nil, fmt.Errorf("table sizes: %w", err)
	}
	sizes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[TableSize])
	if err != nil {
		return nil, fmt.Errorf("table sizes: %w", err)
	}
	return sizes, nil
}
