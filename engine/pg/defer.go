package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// deferIndexes runs drops (DDL dropping indexes of table) before a bulk load,
// when that harms no search: only on a superuser connection (which sees every
// tenant) and only while used (a query of table) finds no row that the indexes
// serve. The check and the drops share one transaction that blocks writes to
// the table, so no row committed meanwhile is left without its index; and a lock
// not granted within a second (a long search holds the table) keeps the indexes
// rather than queueing every other search behind the drops. It reports whether
// they were dropped.
func (db *DB) deferIndexes(ctx context.Context, table, used string, args []any, drops ...string) (bool, error) {
	conn, err := ConnectOwner(ctx, db.URL)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	var super bool
	err = conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super)
	if err != nil || !super {
		return false, err
	}
	dropped := false
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '1s'`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE `+pgx.Identifier{table}.Sanitize()+` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		var busy bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (`+used+`)`, args...).Scan(&busy); err != nil || busy {
			return err
		}
		for _, d := range drops {
			if _, err := tx.Exec(ctx, d); err != nil {
				return err
			}
		}
		dropped = true
		return nil
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available: the table is busy
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("defer the indexes of %s: %w", table, err)
	}
	return dropped, nil
}

// postingsIndexes are the indexes of the postings table (migration 0021), the
// term index first: BuildPostingsIndexes clusters the table by it.
var postingsIndexes = []indexDef{
	{"postings_term_idx", `CREATE INDEX IF NOT EXISTS postings_term_idx ON postings (repository_id, term)`},
	{"postings_group_idx", `CREATE INDEX IF NOT EXISTS postings_group_idx ON postings (repository_id, group_id)`},
}

// DeferPostingsIndexes drops the postings table's indexes before the first
// bulk load of a database (no posting of any repository stored yet; see
// deferIndexes for the other conditions). Inserted batch by batch, each row
// costs a WAL record and a page write in both indexes, at random places of
// the term index; built in one sorted pass at the end they are smaller and the
// load is not slower. BuildPostingsIndexes builds them again.
func (db *DB) DeferPostingsIndexes(ctx context.Context) (bool, error) {
	return db.deferIndexes(ctx, "postings", `SELECT 1 FROM postings`, nil, dropStatements(postingsIndexes)...)
}

// indexDef is an index a bulk load may defer: its name and the statement
// that builds it again (IF NOT EXISTS).
type indexDef struct{ name, build string }

// dropStatements are the DROP INDEX statements of defs.
func dropStatements(defs []indexDef) []string {
	drops := make([]string, len(defs))
	for i, ix := range defs {
		drops[i] = `DROP INDEX IF EXISTS ` + pgx.Identifier{ix.name}.Sanitize()
	}
	return drops
}

// BuildPostingsIndexes builds the postings indexes that are missing (after a
// deferred load, or one that did not finish), with room to sort in memory. With
// every index in place it costs one catalog query. A missing term index means
// a bulk load wrote the table batch by batch: it is rewritten in term order
// (CLUSTER) before the other index is built, so that ranking reads each term's
// rows from a few adjacent pages instead of one page a batch. CLUSTER holds an
// exclusive lock while it runs (seconds at $GOROOT/src); the first load of a
// database is the only run that dropped the indexes (DeferPostingsIndexes).
func (db *DB) BuildPostingsIndexes(ctx context.Context) error {
	have, err := existingIndexes(ctx, db.Pool, "postings", postingsIndexes)
	if err != nil || len(have) == len(postingsIndexes) {
		return err
	}
	return db.withBuildConn(ctx, "spelunk postings indexes", func(conn *pgx.Conn) error {
		if have, err = existingIndexes(ctx, conn, "postings", postingsIndexes); err != nil {
			return err
		}
		for i, ix := range postingsIndexes {
			if slices.Contains(have, ix.name) {
				continue
			}
			if _, err := conn.Exec(ctx, ix.build); err != nil {
				return fmt.Errorf("build the postings index %s: %w", ix.name, err)
			}
			if i == 0 {
				if _, err := conn.Exec(ctx, `CLUSTER postings USING postings_term_idx`); err != nil {
					return fmt.Errorf("write the postings in term order: %w", err)
				}
			}
		}
		return nil
	})
}

// withBuildConn runs build on an owner connection readied by setBuildSession
// and holding the session lock named lock, so that two runs finding the same
// indexes missing build them once: the second waits, then finds them.
func (db *DB) withBuildConn(ctx context.Context, lock string, build func(*pgx.Conn) error) error {
	conn, err := ConnectOwner(ctx, db.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext($1))`, lock); err != nil {
		return fmt.Errorf("lock the build of the %s: %w", lock, err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock(hashtext($1))`, lock) //nolint:errcheck
	if err := setBuildSession(ctx, conn); err != nil {
		return fmt.Errorf("build the %s: %w", lock, err)
	}
	return build(conn)
}

// existingIndexes lists which of defs, indexes of table, exist.
func existingIndexes(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, table string, defs []indexDef) ([]string, error) {
	names := make([]string, len(defs))
	for i, ix := range defs {
		names[i] = ix.name
	}
	rows, err := q.Query(ctx, `SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexname = ANY ($2)`, table, names)
	if err != nil {
		return nil, fmt.Errorf("look up the %s indexes: %w", table, err)
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("look up the %s indexes: %w", table, err)
	}
	return have, nil
}

// Compact rewrites tables without their dead row versions and rebuilds their
// indexes packed (VACUUM FULL), for the end of a first bulk load, when nothing
// else reads them yet: it holds an exclusive lock while it runs.
func (db *DB) Compact(ctx context.Context, tables ...string) error {
	conn, err := db.ownerConn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := setBuildSession(ctx, conn); err != nil { // it rebuilds every index
		return fmt.Errorf("compact %v: %w", tables, err)
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, "VACUUM FULL "+pgx.Identifier{t}.Sanitize()); err != nil {
			return fmt.Errorf("compact %s: %w", t, err)
		}
	}
	return nil
}

// loadGrownIndexes are the btree indexes of symbols and vectors that a first
// load keeps up row by row (its own statements read them) and leaves a
// quarter to a third larger than a build in one pass: at Go's $GOROOT/src
// 55 MB against 43 MB.
var loadGrownIndexes = []string{
	"symbols_pkey", "symbols_file_idx", "symbols_name_idx", "symbols_lower_name_idx",
	"symbols_qualified_idx", "symbols_path_line_idx", "symbol_embeddings_pkey", "symbol_embeddings_hash_idx",
}

// RepackLoadIndexes builds loadGrownIndexes again (REINDEX), for the end of a
// first bulk load: each rebuild blocks writes to its table, and reads through
// that index, while it runs (about a second at $GOROOT/src). An index a
// migration renamed or dropped is passed over.
func (db *DB) RepackLoadIndexes(ctx context.Context) error {
	conn, err := db.ownerConn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := setBuildSession(ctx, conn); err != nil {
		return fmt.Errorf("repack the load's indexes: %w", err)
	}
	rows, err := conn.Query(ctx, `SELECT indexname FROM pg_indexes WHERE indexname = ANY ($1) ORDER BY indexname`, loadGrownIndexes)
	if err != nil {
		return fmt.Errorf("look up the load's indexes: %w", err)
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("look up the load's indexes: %w", err)
	}
	for _, name := range have {
		if _, err := conn.Exec(ctx, "REINDEX INDEX "+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("repack the index %s: %w", name, err)
		}
	}
	return nil
}

// setBuildSession readies conn for an index build: room to sort and build in
// memory, and PostgreSQL's parallel workers however small the table. By
// default a table under 8 MB (min_parallel_table_scan_size: ~27k vectors) is
// built by one process; with two workers the HNSW build of Go's src/net
// (6.3k vectors) took 0.82 s instead of 1.15-1.23 s. A bulk load's builds run
// when its own work is done, so the workers have the cores to themselves.
func setBuildSession(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, `SET maintenance_work_mem = '256MB'; SET min_parallel_table_scan_size = 0`)
	return err
}
