package pg

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// edgeLookupIndexes are the edge indexes only searches and small runs read
// (migrations 0004-0013: names, candidates, target paths and files, type
// bases). A first load's resolution reads every edge anyway and needs only
// the primary key and the source, target and file indexes, which stay.
var edgeLookupIndexes = []indexDef{
	{"edges_name_idx", `CREATE INDEX IF NOT EXISTS edges_name_idx ON edges (repository_id, target_name)`},
	{"edges_candidates_idx", `CREATE INDEX IF NOT EXISTS edges_candidates_idx ON edges USING gin (candidates)
		WITH (fastupdate = off) WHERE candidates IS NOT NULL`},
	{"edges_target_path_idx", `CREATE INDEX IF NOT EXISTS edges_target_path_idx ON edges (repository_id, target_path)
		WHERE target_path IS NOT NULL`},
	{"edges_target_file_idx", `CREATE INDEX IF NOT EXISTS edges_target_file_idx ON edges (repository_id, target_file_id)
		WHERE target_file_id IS NOT NULL`},
	{"edges_type_base_idx", `CREATE INDEX IF NOT EXISTS edges_type_base_idx ON edges (repository_id, target_type_base)
		WHERE target_type_base <> ''`},
}

// edgeResolutionIndexes are the edge indexes the resolution's SQL steps read
// (an edge's file, source and target), and graph walks. A first load deletes no
// edge and its in-memory pass reads the table whole, so they are deferred too;
// a SQL pass builds them first (BuildEdgeResolutionIndexes). Kept up row by row
// they were most of the load's cost of an edge: at $GOROOT/src the 598k edges
// went in in 3.65 s with them and 1.65 s without, and their builds at the end
// took 0.87 s.
var edgeResolutionIndexes = []indexDef{
	{"edges_file_idx", `CREATE INDEX IF NOT EXISTS edges_file_idx ON edges (repository_id, file_id)`},
	{"edges_source_idx", `CREATE INDEX IF NOT EXISTS edges_source_idx ON edges (repository_id, source_id, kind)`},
	{"edges_target_idx", `CREATE INDEX IF NOT EXISTS edges_target_idx ON edges (repository_id, target_id, kind)`},
}

// deferredEdgeIndexes are every edge index a first load defers.
var deferredEdgeIndexes = append(slices.Clone(edgeResolutionIndexes), edgeLookupIndexes...)

// DeferEdgeIndexes drops the edge indexes other than the primary key before the
// first bulk load of a database (no edge of any repository stored yet; see
// deferIndexes for the other conditions). Each inserted edge, and each edge the
// resolution then rewrites, costs an entry in every index: with the five lookup
// indexes gone, inserting and updating Go's src/net's 51k edges took
// 0.39-0.42 s and 0.40 s instead of 0.63-0.71 s and 0.61 s. BuildEdgeIndexes
// builds them again.
func (db *DB) DeferEdgeIndexes(ctx context.Context) (bool, error) {
	return db.deferIndexes(ctx, "edges", `SELECT 1 FROM edges`, nil, dropStatements(deferredEdgeIndexes)...)
}

// BuildEdgeIndexes builds the edge indexes that are missing (after a deferred
// load, or one that did not finish). With every index in place it costs one
// catalog query.
func (db *DB) BuildEdgeIndexes(ctx context.Context) error {
	return db.buildMissing(ctx, "edges", deferredEdgeIndexes)
}

// BuildEdgeResolutionIndexes builds those of edgeResolutionIndexes that are
// missing, for a resolution in SQL after a deferred load.
func (db *DB) BuildEdgeResolutionIndexes(ctx context.Context) error {
	return db.buildMissing(ctx, "edges", edgeResolutionIndexes)
}

// symbolSearchIndexes are the symbol indexes only searches read: the trigram
// index of names (migration 0001; the symbol channel's fuzzy match). Kept up
// row by row during a load, GIN's pending list and page splits left it 4.4
// times its size when built at the end (Go's src/net: 3.0 MB against 0.69 MB
// for 7.8k symbols).
var symbolSearchIndexes = []indexDef{
	{"symbols_name_trgm_idx", `CREATE INDEX IF NOT EXISTS symbols_name_trgm_idx ON symbols USING gin (lower(name) gin_trgm_ops)`},
}

// DeferSymbolIndexes drops symbolSearchIndexes before the first bulk load of
// a database (no symbol of any repository stored yet; see deferIndexes for
// the other conditions). BuildSymbolIndexes builds them again.
func (db *DB) DeferSymbolIndexes(ctx context.Context) (bool, error) {
	return db.deferIndexes(ctx, "symbols", `SELECT 1 FROM symbols`, nil, dropStatements(symbolSearchIndexes)...)
}

// BuildSymbolIndexes builds the symbol search indexes that are missing (after
// a deferred load, or one that did not finish). With every index in place it
// costs one catalog query.
func (db *DB) BuildSymbolIndexes(ctx context.Context) error {
	return db.buildMissing(ctx, "symbols", symbolSearchIndexes)
}

// buildMissing builds those of defs, indexes of table, that are missing.
func (db *DB) buildMissing(ctx context.Context, table string, defs []indexDef) error {
	have, err := existingIndexes(ctx, db.Pool, table, defs)
	if err != nil || len(have) == len(defs) {
		return err
	}
	return db.withBuildConn(ctx, "spelunk "+table+" indexes", func(conn *pgx.Conn) error {
		for _, ix := range defs { // IF NOT EXISTS: a build that ran meanwhile is kept
			if _, err := conn.Exec(ctx, ix.build); err != nil {
				return fmt.Errorf("build the %s index %s: %w", table, ix.name, err)
			}
		}
		return nil
	})
}
