package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// minorShare is the largest share of the database's files a repository may
// hold for AnalyzeBulk to refresh only its row counts.
const minorShare = 0.25

// minorSample is the statistics target of that refresh: up to 30 repositories
// among the most common values, from a sample of 9,000 rows instead of 30,000.
const minorSample = 30

// AnalyzeBulk refreshes the planner's statistics of tables after a bulk change
// of repository repoID. What the planner lacks after one repository's bulk load
// into a database of others is how many rows that repository has: without
// them it was estimated at one row, and the edge resolution ran as nested
// loops for minutes. Where the repository holds at most a quarter of the
// database's files, only repository_id's statistics are taken, from a smaller
// sample; the other columns' statistics, over every repository's rows, hardly
// move. With twelve copies of $GOROOT/src in one database that was 0.08 s for
// edges against 0.48 s warm, and 2.2 s or more with the pages on disk, twice a
// run (docs/BENCHMARKS.md, "One more repository at a million chunks, round 2").
func (db *DB) AnalyzeBulk(ctx context.Context, repoID int64, tables ...string) error {
	if db.Distributed {
		// Counting every repository's files asks every shard, which a
		// deployment may forbid (citus.multi_task_query_log_level, as
		// TestCitusCluster sets it), and the planner that runs a repository's
		// statements on its worker reads that shard's statistics, not these.
		return db.Analyze(ctx, tables...)
	}
	var mine, all int64
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE repository_id = $1), count(*) FROM files`,
		repoID).Scan(&mine, &all); err != nil {
		return fmt.Errorf("count the files of repository %d: %w", repoID, err)
	}
	if float64(mine) > minorShare*float64(all) {
		return db.Analyze(ctx, tables...)
	}
	return db.analyze(ctx, minorSample, " (repository_id)", tables)
}

// Analyze refreshes the planner's statistics for tables after a bulk load. The
// application role may not ANALYZE tables it does not own, so this uses an owner
// connection; a server that refuses is left to autovacuum (not an error).
func (db *DB) Analyze(ctx context.Context, tables ...string) error {
	return db.analyze(ctx, 0, "", tables)
}

// analyze runs ANALYZE of tables (of columns, "" for every one) with the
// statistics target target (0: the server's) on an owner connection.
func (db *DB) analyze(ctx context.Context, target int, columns string, tables []string) error {
	conn, err := db.ownerConn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if target > 0 {
		if _, err := conn.Exec(ctx, fmt.Sprintf(`SET default_statistics_target = %d`, target)); err != nil {
			return fmt.Errorf("analyze %v: %w", tables, err)
		}
	}
	for _, t := range tables {
		if _, err := conn.Exec(ctx, "ANALYZE "+pgx.Identifier{t}.Sanitize()+columns); err != nil {
			return fmt.Errorf("analyze %s: %w", t, err)
		}
	}
	return nil
}
