package pg

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// RowQuerier is what a pool, a connection and a transaction all offer.
type RowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// iterativeScanMajor and iterativeScanMinor are the first pgvector release with
// iterative index scans (hnsw.iterative_scan). Older releases on PostgreSQL 15
// and later reserve the hnsw prefix, so setting it is an error that aborts the
// transaction it runs in.
const iterativeScanMajor, iterativeScanMinor = 0, 8

// HasIterativeScan reports whether pgvector version v (extversion,
// "major.minor[.patch]") has iterative index scans. An unreadable version has none.
func HasIterativeScan(v string) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > iterativeScanMajor || major == iterativeScanMajor && minor >= iterativeScanMinor
}

// VectorVersion returns the version of the pgvector extension in q's database.
func VectorVersion(ctx context.Context, q RowQuerier) (string, error) {
	var v string
	if err := q.QueryRow(ctx, `SELECT extversion FROM pg_extension WHERE extname = 'vector'`).Scan(&v); err != nil {
		return "", fmt.Errorf("pgvector version: %w", err)
	}
	return v, nil
}

// IterativeScan reports whether db's pgvector has iterative index scans, asking
// the server once per DB (the extension does not change under a running
// process; ALTER EXTENSION ... UPDATE takes a restart of spelunk to notice). q is the caller's connection or transaction (nil: the
// pool), so a caller inside a transaction does not wait for a second connection.
func (db *DB) IterativeScan(ctx context.Context, q RowQuerier) (bool, error) {
	if known := db.iterative.Load(); known != 0 {
		return known == 2, nil
	}
	if q == nil {
		q = db.Pool
	}
	v, err := VectorVersion(ctx, q)
	if err != nil {
		return false, err
	}
	ok := HasIterativeScan(v)
	known := int32(1)
	if ok {
		known = 2
	}
	db.iterative.Store(known)
	return ok, nil
}
