package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BackgroundNice is the CPU priority (nice value) bulk work runs at: a large
// index run gives way to the searches, briefings and saves that run beside it
// on the same machine, and loses nothing when nothing else runs.
const BackgroundNice = 10

// Background opens a second pool on db's server whose backends run at
// BackgroundNice, for a bulk index run: on two cores an index run beside a
// search made the search's p95 2.9x what it is alone, PostgreSQL being ~70% of
// an index run's CPU. Only backends of a server on this machine that this
// user may renice are lowered (see lowerBackend); elsewhere the pool is an
// ordinary one. Owner connections it opens (ANALYZE, VACUUM) are lowered too.
// The caller closes it; db stays open.
func (db *DB) Background(ctx context.Context) (*DB, error) {
	cfg := db.Pool.Config()
	registerTypes := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if registerTypes != nil {
			if err := registerTypes(ctx, c); err != nil {
				return err
			}
		}
		lowerBackend(c)
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open background pool: %w", err)
	}
	bg := &DB{Pool: pool, URL: db.URL, Tenant: db.Tenant, AppRole: db.AppRole, Distributed: db.Distributed, applied: db.applied, background: true}
	bg.iterative.Store(db.iterative.Load())
	return bg, nil
}

// ownerConn is ConnectOwner for db's maintenance statements, at db's priority.
func (db *DB) ownerConn(ctx context.Context) (*pgx.Conn, error) {
	conn, err := ConnectOwner(ctx, db.URL)
	if err == nil && db.background {
		lowerBackend(conn)
	}
	return conn, err
}

// SessionBypassesRLS reports whether the URL's user, the session user of the
// pool's connections (which act as AppRole), bypasses row-level security: a
// superuser or a role with BYPASSRLS, as the embedded cluster's postgres is.
// Such a session may load rows with COPY straight into the tables that
// row-level security guards (SET LOCAL ROLE NONE for the load), where
// AppRole must COPY into a staging table and move the rows with an INSERT.
// Never on Citus, whose workers refuse that COPY whatever the role.
func (db *DB) SessionBypassesRLS(ctx context.Context) (bool, error) {
	if db.Distributed {
		return false, nil
	}
	var ok bool
	err := db.Pool.QueryRow(ctx, `SELECT coalesce((SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = session_user), false)`).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up the session user's row-level security: %w", err)
	}
	return ok, nil
}
