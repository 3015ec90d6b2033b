package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// RepoVectorIndexMin is the fewest vectors of one model a repository needs for
// its own HNSW index. Below it the dense channel compares the query with each of
// the repository's vectors (search.denseExactMax is the same bound).
const RepoVectorIndexMin = 20000

// RepoVectorIndexName is the name of a repository's own HNSW index for a model.
func RepoVectorIndexName(m Model, repoID int64) string {
	return fmt.Sprintf("symbol_embeddings_%s_r%d", ModelIndexName(m.Name), repoID)
}

// NeedsRepoVectorIndex reports whether the repository holds enough vectors of the
// model for its own index, shares the model's index with enough other vectors for
// it to matter, and has none yet (or only a build that failed).
//
// Why a repository gets its own index: the model's shared index holds every
// repository's vectors, and a walk of it for one repository steps over the
// others' until it has enough of its own. With two repositories of 50k and 62k
// chunks the walk for one read 6k to 10k index pages, against 1.7k to 2.3k in an
// index of its own vectors only; with three copies of one tree two thirds of the
// walk are other repositories' rows.
func (db *DB) NeedsRepoVectorIndex(ctx context.Context, repoID int64, m Model) (bool, error) {
	valid, err := indexValidity(ctx, db.Pool, RepoVectorIndexName(m, repoID))
	if err != nil || (valid != nil && *valid) {
		return false, err
	}
	mine, err := db.repoVectors(ctx, repoID, m)
	if err != nil || mine < RepoVectorIndexMin {
		return false, err
	}
	id, err := db.ModelID(ctx, m.Name)
	if err != nil {
		return false, err
	}
	return db.othersOutweigh(ctx, "symbol_embeddings", "AND model_id = $2", repoID, mine, id)
}

// HasRepoVectorIndex reports whether the repository's own index of the model's
// vectors is built and valid: its searches walk it, and its rows may be left
// out of the shared index (migration 0024).
func (db *DB) HasRepoVectorIndex(ctx context.Context, repoID int64, m Model) (bool, error) {
	valid, err := indexValidity(ctx, db.Pool, RepoVectorIndexName(m, repoID))
	return valid != nil && *valid, err
}

// LeaveOutOfShared reports whether a run's vectors of the repository go into
// the rows the model's shared index leaves out (own_index, migration 0024): it
// has an index of its own, or a bulk load expecting about expected vectors
// will build one at its end (NeedsRepoVectorIndex's rule), and the shared index
// (or the one a deferred load builds: hnswDDL) leaves such rows out. Inserting
// a vector into the shared graph of a million others cost ~0.4 ms, walked by
// no search of this repository once it has its own.
func (db *DB) LeaveOutOfShared(ctx context.Context, repoID int64, m Model, expected int) (bool, error) {
	if own, err := db.HasRepoVectorIndex(ctx, repoID, m); err != nil || own {
		return own, err
	}
	if expected < RepoVectorIndexMin {
		return false, nil
	}
	var predicate *string
	err := db.Pool.QueryRow(ctx, `SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_class c
		JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1`,
		"symbol_embeddings_"+ModelIndexName(m.Name)).Scan(&predicate)
	switch {
	case errors.Is(err, pgx.ErrNoRows): // deferred: built with the predicate of now
	case err != nil:
		return false, fmt.Errorf("read the predicate of the vector index: %w", err)
	case predicate == nil || !strings.Contains(*predicate, "own_index"):
		return false, nil // built before migration 0024
	}
	id, err := db.ModelID(ctx, m.Name)
	if err != nil {
		return false, err
	}
	return db.othersOutweigh(ctx, "symbol_embeddings", "AND model_id = $2", repoID, expected, id)
}

// ShareLeftOutVectors puts the repository's rows that the shared index leaves
// out back into it when the repository has no index of its own after all: a
// bulk load expected one and did not build it (fewer vectors than expected,
// or a run that failed before the build). The run's end calls it, so a
// repository's rows are left out only while its own index exists.
func (db *DB) ShareLeftOutVectors(ctx context.Context, repoID int64, m Model) error {
	if own, err := db.HasRepoVectorIndex(ctx, repoID, m); err != nil || own {
		return err
	}
	id, err := db.ModelID(ctx, m.Name)
	if err != nil {
		return err
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE symbol_embeddings SET own_index = NULL
		WHERE repository_id = $1 AND model_id = $2 AND own_index`, repoID, id); err != nil {
		return fmt.Errorf("put the vectors of repository %d back into the shared index: %w", repoID, err)
	}
	return nil
}

// RepoNameIndexName is the name of a repository's own trigram index of its
// symbol names.
func RepoNameIndexName(repoID int64) string {
	return fmt.Sprintf("symbols_name_trgm_r%d", repoID)
}

// NeedsRepoNameIndex reports whether the repository's symbols need a trigram
// index of their names of their own (the symbol channel's near misses), by the
// rule of NeedsRepoVectorIndex: the shared index (symbols_name_trgm_idx) holds
// every repository's names, so a lookup for one repository reads the others'
// matches and then a bitmap of all its own rows to drop them. With ten copies of
// $GOROOT/src in one database (1.26M symbols) that was 31 ms for a 13-letter
// name, against 5.8 ms on the repository's own index.
func (db *DB) NeedsRepoNameIndex(ctx context.Context, repoID int64) (bool, error) {
	valid, err := indexValidity(ctx, db.Pool, RepoNameIndexName(repoID))
	if err != nil || (valid != nil && *valid) {
		return false, err
	}
	var mine int
	err = db.Pool.QueryRow(ctx, `SELECT coalesce((SELECT stat_chunks FROM repositories WHERE id = $1),
		(SELECT count(*) FROM (SELECT 1 FROM symbols WHERE repository_id = $1 LIMIT $2) v))`,
		repoID, RepoVectorIndexMin).Scan(&mine)
	if err != nil {
		return false, fmt.Errorf("count the symbols of repository %d: %w", repoID, err)
	}
	if mine < RepoVectorIndexMin {
		return false, nil
	}
	return db.othersOutweigh(ctx, "symbols", "", repoID, mine)
}

// othersOutweigh reports whether the rows of table beside the repository's own
// (those matching cond too, whose parameters follow $1 and $2... as extra) are
// enough that mine would hold at most repoVectorShare of a shared index.
// Others' rows are counted only up to that bound, so the count stays bounded
// however many there are; the two key ranges beside the repository's own are
// read from the primary key, so a repository alone costs two empty range scans,
// not a pass over its rows.
func (db *DB) othersOutweigh(ctx context.Context, table, cond string, repoID int64, mine int, extra ...any) (bool, error) {
	limit := int(float64(mine)*(1-repoVectorShare)/repoVectorShare) + 1
	n := fmt.Sprintf("$%d", 2+len(extra))
	sql := fmt.Sprintf(`SELECT count(*) FROM (
		(SELECT 1 FROM %[1]s WHERE repository_id < $1 %[2]s LIMIT %[3]s)
		UNION ALL
		(SELECT 1 FROM %[1]s WHERE repository_id > $1 %[2]s LIMIT %[3]s)) v`, table, cond, n)
	var others int
	args := append(append([]any{repoID}, extra...), limit)
	if err := db.Pool.QueryRow(ctx, sql, args...).Scan(&others); err != nil {
		return false, fmt.Errorf("count the rows of %s beside repository %d: %w", table, repoID, err)
	}
	return others >= limit, nil
}

// repoVectors is how many vectors of m the repository holds, for the decision
// above: its stored chunk total when a run has counted it (every chunk gets a
// vector of the model the run embeds with; the pending few make no difference
// to a threshold), which costs no pass over its vectors on every run (60-150 ms
// at $GOROOT/src scale), else a count up to what the decision needs.
func (db *DB) repoVectors(ctx context.Context, repoID int64, m Model) (int, error) {
	var chunks *int
	if err := db.Pool.QueryRow(ctx, `SELECT stat_chunks FROM repositories WHERE id = $1`, repoID).Scan(&chunks); err != nil {
		return 0, fmt.Errorf("read the chunk total of repository %d: %w", repoID, err)
	}
	if chunks != nil {
		return *chunks, nil
	}
	id, err := db.ModelID(ctx, m.Name)
	if err != nil {
		return 0, err
	}
	var n int
	err = db.Pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM symbol_embeddings
		WHERE repository_id = $1 AND model_id = $2 LIMIT $3) v`, repoID, id, RepoVectorIndexMin).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count the vectors of repository %d: %w", repoID, err)
	}
	if n < RepoVectorIndexMin {
		return n, nil
	}
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbol_embeddings WHERE repository_id = $1 AND model_id = $2`,
		repoID, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the vectors of repository %d: %w", repoID, err)
	}
	return n, nil
}

// repoVectorShare is the largest share of the model's shared index a repository
// may hold and still get an index of its own.
const repoVectorShare = 0.8

// BuildRepoVectorIndex builds the repository's own HNSW index of the model's
// vectors, a partial index on (model_id, repository_id) that the planner picks for
// the dense channel's query of that repository, and that later runs keep up to
// date as they insert.
func (db *DB) BuildRepoVectorIndex(ctx context.Context, repoID int64, m Model) error {
	id, err := db.ModelID(ctx, m.Name)
	if err != nil {
		return err
	}
	name := RepoVectorIndexName(m, repoID)
	return db.buildOwnIndex(ctx, repoID, "vector", name, fmt.Sprintf(
		`CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON symbol_embeddings USING hnsw (%s)%s WHERE model_id = %d AND repository_id = %d`,
		pgx.Identifier{name}.Sanitize(), hnswKey("symbol_embeddings", m.Dims), hnswWith("symbol_embeddings"), id, repoID))
}

// BuildRepoNameIndex builds the repository's own trigram index of its symbol
// names (NeedsRepoNameIndex), partial on repository_id: the planner picks it
// for the symbol channel's near-miss query, whose repository is a parameter
// that pgx binds before the statement is planned.
func (db *DB) BuildRepoNameIndex(ctx context.Context, repoID int64) error {
	name := RepoNameIndexName(repoID)
	return db.buildOwnIndex(ctx, repoID, "name", name, fmt.Sprintf(
		`CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON symbols USING gin (lower(name) gin_trgm_ops) WHERE repository_id = %d`,
		pgx.Identifier{name}.Sanitize(), repoID))
}

// buildOwnIndex runs ddl, the concurrent build of the repository's own index
// name (what says which, in errors). It is built concurrently, so other
// repositories' index runs and this repository's searches go on meanwhile; a
// build another process has started is waited for, not repeated; a build that
// failed (an invalid index) is dropped and done again.
func (db *DB) buildOwnIndex(ctx context.Context, repoID int64, what, name, ddl string) error {
	conn, err := ConnectOwner(ctx, db.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// A session lock (CREATE INDEX CONCURRENTLY cannot run in a transaction).
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext($1))`, name); err != nil {
		return fmt.Errorf("lock the %s index build of repository %d: %w", what, repoID, err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock(hashtext($1))`, name) //nolint:errcheck
	valid, err := indexValidity(ctx, conn, name)
	if err != nil {
		return err
	}
	switch {
	case valid != nil && *valid:
		return nil
	case valid != nil:
		if _, err := conn.Exec(ctx, "DROP INDEX CONCURRENTLY IF EXISTS "+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("drop the failed %s index of repository %d: %w", what, repoID, err)
		}
	}
	if err := setBuildSession(ctx, conn); err != nil {
		return fmt.Errorf("build the %s index of repository %d: %w", what, repoID, err)
	}
	if _, err := conn.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("build the %s index of repository %d: %w", what, repoID, err)
	}
	return nil
}

// indexValidity reports whether the index name is valid (usable by the planner),
// or nil when there is no such index.
func indexValidity(ctx context.Context, q RowQuerier, name string) (*bool, error) {
	var valid *bool
	err := q.QueryRow(ctx, `SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
		WHERE c.relname = $1`, name).Scan(&valid)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("look up index %s: %w", name, err)
	}
	return valid, nil
}
