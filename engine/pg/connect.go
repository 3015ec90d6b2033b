package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultTenant is the tenant used when none is configured.
const DefaultTenant = "default"

// AppRole is the role the application acts as; it owns no table, so row-level security
// applies to it.
const AppRole = "spelunk_app"

// connectTimeout bounds how long a bad URL or an unreachable server can hang a command.
const connectTimeout = 5 * time.Second

// DB is an open spelunk database: a pool acting as the application role within one
// tenant, plus the URL to open owner connections for DDL (model registration). URL
// may hold a password: print RedactURL(URL), never URL.
type DB struct {
	Pool   *pgxpool.Pool
	URL    string
	Tenant string
	// AppRole reports whether connections SET ROLE spelunk_app (false when the server
	// did not let us create it: RLS then applies through FORCE on a non-superuser owner).
	AppRole bool
	// Distributed reports a database spelunk distributed over Citus (`spelunk
	// db distribute`): connections act as the tenant's role (TenantRole).
	Distributed bool

	iterative  atomic.Int32 // IterativeScan's answer: 0 not asked yet, 1 no, 2 yes
	applied    int          // the schema version Open found
	background bool         // its backends run at BackgroundNice (Background)
	modelIDs   sync.Map     // model name -> its id (int16), ModelID
}

// Options configure Open.
type Options struct {
	URL    string // a PostgreSQL URL or keyword/value string
	Tenant string // default DefaultTenant
	// MaxConns caps the pool; 0 picks pgxpool's default.
	MaxConns int32
	// OnMigration, when set, is told of each migration before it is applied to
	// a database that already has a schema: on a large index one can take
	// minutes (a column rewrite, an index rebuild), and the caller says so.
	OnMigration func(version int, name string)
}

// Open connects, checks the server, applies pending migrations and returns the pool.
//
// A database that is ready (this binary's schema, the application role ours to
// take) is opened with no other connection than the pool's: its first connection
// starts as the role and reads the state. Otherwise an owner connection migrates
// first. A one-shot command pays for every connection: each new PostgreSQL
// backend costs 6-10 ms of server CPU before its first query.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.Tenant == "" {
		opts.Tenant = DefaultTenant
	}
	cfg, err := poolConfig(opts)
	if err != nil {
		return nil, err
	}
	if db, err := openReady(ctx, cfg, opts); db != nil || err != nil {
		return db, err
	}
	conn, err := ConnectOwner(ctx, opts.URL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	if err := CheckServer(ctx, conn); err != nil {
		return nil, err
	}
	st, err := currentState(ctx, conn, opts.Tenant, opts.OnMigration)
	if err != nil {
		return nil, err
	}
	if st.appRole {
		cfg.ConnConfig.RuntimeParams["role"] = AppRole
	}
	return openPool(ctx, cfg, opts, func(context.Context, *pgx.Conn) (*openState, error) { return &st, nil })
}

// poolConfig is the pool's configuration for opts, before the role is chosen.
func poolConfig(opts Options) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(opts.URL)
	if err != nil {
		return nil, redacted(fmt.Errorf("bad database URL %q: %w", RedactURL(opts.URL), err))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	// Plan every statement with its actual parameters. With cached prepared
	// statements PostgreSQL switches to a generic plan after five executions, and a
	// generic plan cannot see which tsquery terms are rare or which partial index a
	// value selects: the lexical channel went from 5 ms to 150 ms that way.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	// No JIT compilation: spelunk's statements touch few rows, but a join whose
	// estimate is large (a GIN lookup per graph neighbour) passes jit_above_cost
	// and then spent 750 ms compiling a query that ran in 1 ms.
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	// The role and the tenant are startup parameters, set as the session
	// starts: no round trip on a new connection.
	cfg.ConnConfig.RuntimeParams["spelunk.tenant"] = opts.Tenant
	return cfg, nil
}

// openReady is Open's path for a ready database: the pool starts as the
// application role and its first connection reads the state. It returns no DB
// and no error when the database is not ready (the role missing or not the
// URL's user's to take, the schema not this binary's), for Open to migrate.
func openReady(ctx context.Context, cfg *pgxpool.Config, opts Options) (*DB, error) {
	cfg = cfg.Copy()
	cfg.ConnConfig.RuntimeParams["role"] = AppRole
	db, err := openPool(ctx, cfg, opts, func(ctx context.Context, c *pgx.Conn) (*openState, error) {
		if err := CheckServer(ctx, c); err != nil {
			return nil, err
		}
		st, err := readOpenState(ctx, c, opts.Tenant)
		return &st, err
	})
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && (pgErr.Code == "22023" || pgErr.Code == "42704" || pgErr.Code == "42501"):
		// No such role (22023 when named as a startup parameter), or not ours
		// to take, or its state not ours to read.
		return nil, nil
	case err != nil:
		return nil, err
	}
	ms, err := Migrations()
	if err != nil || db.applied != len(ms) {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openPool opens the pool and its first connection, on which first (once)
// returns the state every connection's types are registered from.
func openPool(ctx context.Context, cfg *pgxpool.Config, opts Options, first func(context.Context, *pgx.Conn) (*openState, error)) (*DB, error) {
	var mu sync.Mutex
	var st *openState
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		mu.Lock()
		defer mu.Unlock()
		if st == nil {
			read, err := first(ctx, c)
			if err != nil {
				return err
			}
			st = read
		}
		st.registerVectorTypes(c.TypeMap())
		if st.tenantRole != "" {
			// On Citus: the role the workers see (TenantRole). One more round
			// trip per connection, on a distributed database only.
			if _, err := c.Exec(ctx, "SET ROLE "+pgx.Identifier{st.tenantRole}.Sanitize()); err != nil {
				return fmt.Errorf("act as the tenant's role %s: %w", st.tenantRole, err)
			}
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		var pgErr *pgconn.PgError
		if errors.Is(err, ErrServerTooOld) || errors.As(err, &pgErr) && pgErr.Code != "3D000" && pgErr.Code != "28P01" && pgErr.Code != "28000" {
			return nil, err // the server answered: not a connection problem
		}
		return nil, describeConnectError(opts.URL, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if st.applied > 0 && st.oids[0] == nil {
		pool.Close()
		return nil, errors.New("the vector type is missing from the database (is the pgvector extension installed?)")
	}
	db := &DB{Pool: pool, URL: opts.URL, Tenant: opts.Tenant, AppRole: st.appRole, Distributed: st.tenantRole != "", applied: st.applied}
	db.iterative.Store(1)
	if HasIterativeScan(st.vectorVersion) {
		db.iterative.Store(2)
	}
	return db, nil
}

// currentState reads the database's state and, when its schema is not this
// binary's, migrates it (under the migration lock, which a current schema does
// not take) and reads the state again.
func currentState(ctx context.Context, conn *pgx.Conn, tenant string, onMigration func(int, string)) (openState, error) {
	st, err := readOpenState(ctx, conn, tenant)
	if err != nil {
		return st, err
	}
	ms, err := Migrations()
	if err != nil {
		return st, err
	}
	if st.applied == len(ms) {
		return st, nil
	}
	if _, err := migrate(ctx, conn, onMigration); err != nil {
		return st, err
	}
	return readOpenState(ctx, conn, tenant)
}

// Close releases the pool.
func (db *DB) Close() { db.Pool.Close() }

// ConnectOwner opens one connection as the URL's user (the schema owner), with a
// bounded connect timeout and a message a person can act on when it fails.
func ConnectOwner(ctx context.Context, url string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, redacted(fmt.Errorf("bad database URL %q: %w", RedactURL(url), err))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, describeConnectError(url, err)
	}
	return conn, nil
}

// describeConnectError names the server (password masked) and what to try. pgx's
// own text names the user, database and address but never the password; it is
// redacted too in case a future version quotes the connection string.
func describeConnectError(url string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "3D000" {
		return redacted(fmt.Errorf("database in %s does not exist: create it (createdb) or fix the URL: %w", RedactURL(url), err))
	}
	return redacted(fmt.Errorf("cannot connect to PostgreSQL at %s (is the server running? `spelunk db status` for the embedded one): %w", RedactURL(url), err))
}

// ErrServerTooOld is returned for a server older than MinServerVersion.
var ErrServerTooOld = errors.New("the PostgreSQL server is too old")

// MinServerVersion is the oldest PostgreSQL spelunk supports.
const MinServerVersion = 13

// CheckServer verifies the server version.
func CheckServer(ctx context.Context, conn *pgx.Conn) error {
	v, err := strconv.Atoi(conn.PgConn().ParameterStatus("server_version_num"))
	if err != nil {
		var s string
		if err := conn.QueryRow(ctx, `SHOW server_version_num`).Scan(&s); err != nil {
			return fmt.Errorf("read server version: %w", err)
		}
		v, _ = strconv.Atoi(s)
	}
	if v/10000 < MinServerVersion {
		return fmt.Errorf("%w: PostgreSQL %d.%d, spelunk needs %d or newer", ErrServerTooOld, v/10000, v%10000, MinServerVersion)
	}
	return nil
}

// Resolve picks the database URL: an explicit one, then $SPELUNK_DATABASE_URL, else
// the embedded cluster, started on demand. embedded reports which it was.
func Resolve(ctx context.Context, explicit string) (url string, embedded *Cluster, err error) {
	if explicit != "" {
		return explicit, nil, nil
	}
	if env := os.Getenv("SPELUNK_DATABASE_URL"); env != "" {
		return env, nil, nil
	}
	c, err := NewCluster(DefaultDataDir())
	if err != nil {
		return "", nil, err
	}
	if err := c.Start(ctx); err != nil {
		return "", nil, err
	}
	if err := c.EnsureDatabase(ctx, "spelunk"); err != nil {
		return "", nil, err
	}
	return c.URL("spelunk"), c, nil
}

// EnsureDatabase creates database name on the cluster when it does not exist.
func (c *Cluster) EnsureDatabase(ctx context.Context, name string) error {
	return EnsureDatabaseAt(ctx, c.URL("postgres"), name)
}

// EnsureDatabaseAt creates database name through the maintenance database at
// ownerURL when it does not exist. Two first runs on a new cluster both see
// it missing: the one that loses the race gets a duplicate error (42P04, or
// 23505 on pg_database's name index), which means it exists now.
func EnsureDatabaseAt(ctx context.Context, ownerURL, name string) error {
	conn, err := ConnectOwner(ctx, ownerURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if IsDuplicate(err) { // created meanwhile by another process
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}
