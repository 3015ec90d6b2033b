package index

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// resTables declares the session tables edge resolution works on (resolve.go,
// resolve_typed.go, resolve_names.go). They are created once per database
// session and emptied by every commit, not created and dropped by every run: a
// temp table costs catalog rows for itself and each column, written when it is
// created and deleted again when it is dropped, and a one-file change spent
// ~35 ms of its ~80 ms resolution on those for its seventeen tables.
//
// Statistics survive the emptying. The planner scales them to a table's
// current size, and every table a join reads is analysed once filled.
const resTables = `
	CREATE TEMP TABLE IF NOT EXISTS res_dangling (id bigint PRIMARY KEY) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_scope (path text) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_gone (id bigint) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_changed_names (name text) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_scope_names (name text) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_aff_r (id bigint) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_aff_u (id bigint) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_edges (id bigint, file_id bigint, dir text, language text, kind text,
		target_name text, qual text, ttype text, src_receiver text, src_test boolean, src_parent bigint,
		src_in_object boolean) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_defs (id bigint, file_id bigint, path text, dir text, language text,
		kind text, receiver text, qualified_name text, exported boolean, name text, start_line integer,
		parent_id bigint, is_test boolean) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_imports (file_id bigint, qual text, target_path text, target_file bigint)
		ON COMMIT DELETE ROWS;
	CREATE INDEX IF NOT EXISTS res_imports_file_qual ON res_imports (file_id, qual);
	CREATE TEMP TABLE IF NOT EXISTS res_out (edge_id bigint PRIMARY KEY, sid bigint, confidence text NOT NULL,
		candidates bigint[]) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_typed (edge_id bigint, kind text, language text, qual text,
		target_name text, ctx_file bigint, ctx_dir text, t text) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_tq (edge_id bigint, language text, ctx_file bigint, ctx_dir text,
		tname text, tpkg text) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_ts (id bigint, name text, file_id bigint, kind text, start_line integer,
		qualified_name text, dir text, language text, path text) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_tloc (edge_id bigint, tid bigint, tname text, tdir text, tlang text,
		tkind text, rnk integer, far bigint) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_impl (tid bigint, name text, dir text) ON COMMIT DELETE ROWS;
	CREATE TEMP TABLE IF NOT EXISTS res_parents (child bigint, parent bigint, pname text, pdir text, plang text,
		ord bigint) ON COMMIT DELETE ROWS`

// createResTables makes sure tx's session has the resolution's tables, in one
// round trip. The last one created says whether the others exist: they are
// made together, in one transaction.
func createResTables(ctx context.Context, tx pgx.Tx) error {
	var have bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('pg_temp.res_parents') IS NOT NULL`).Scan(&have); err != nil {
		return fmt.Errorf("resolve edges: look for the session tables: %w", err)
	}
	if have {
		return nil
	}
	if _, err := tx.Exec(ctx, resTables, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("resolve edges: create the session tables: %w", err)
	}
	return nil
}
