package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TableSize is the disk use of one of spelunk's tables, in bytes: its rows
// (with TOAST), its indexes, and the two together; Toast is the part of Data
// that is out-of-line values (long contents) and their index.
type TableSize struct {
	Table   string `json:"table"`
	Data    int64  `json:"data_bytes"`
	Toast   int64  `json:"toast_bytes"`
	Indexes int64  `json:"index_bytes"`
	Total   int64  `json:"total_bytes"`
}

// TableSizes lists the tables of the database's public schema, largest first.
// The sizes are of the whole database: every repository and tenant shares the
// tables.
func (db *DB) TableSizes(ctx context.Context) ([]TableSize, error) {
	rows, err := db.Pool.Query(ctx, `
		SELECT c.relname, pg_table_size(c.oid), coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0),
			pg_indexes_size(c.oid), pg_total_relation_size(c.oid)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r'
		ORDER BY 5 DESC, 1`)
	if err != nil {
		return nil, fmt.Errorf("table sizes: %w", err)
	}
	sizes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[TableSize])
	if err != nil {
		return nil, fmt.Errorf("table sizes: %w", err)
	}
	return sizes, nil
}

// ServerSizes is the disk use beyond spelunk's tables: the whole database and
// the cluster's write-ahead log (shared by every database of the server; -1
// when the connection may not read it: pg_ls_waldir needs a superuser or
// pg_monitor).
type ServerSizes struct {
	Database int64 `json:"database_bytes"`
	WAL      int64 `json:"wal_bytes"`
}

// ServerSizes measures the database and the WAL, the latter on an owner
// connection (the application role may not list the WAL directory).
func (db *DB) ServerSizes(ctx context.Context) (ServerSizes, error) {
	s := ServerSizes{WAL: -1}
	if err := db.Pool.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&s.Database); err != nil {
		return s, fmt.Errorf("database size: %w", err)
	}
	conn, err := ConnectOwner(ctx, db.URL)
	if err != nil {
		return s, err
	}
	defer conn.Close(context.Background())
	err = conn.QueryRow(ctx, `SELECT coalesce(sum(size), 0) FROM pg_ls_waldir()`).Scan(&s.WAL)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" { // insufficient_privilege
		return ServerSizes{Database: s.Database, WAL: -1}, nil
	}
	if err != nil {
		return s, fmt.Errorf("WAL size: %w", err)
	}
	return s, nil
}
