package pg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/migrations"
)

// ErrSchemaNewer means the database was migrated by a newer spelunk than this one.
var ErrSchemaNewer = errors.New("database schema is newer than this spelunk")

// ErrNoPgvector means the server lacks the pgvector extension.
var ErrNoPgvector = errors.New("the pgvector extension is not installed on the PostgreSQL server: run `make setup` (it installs or builds pgvector), or install your distribution's postgresql-NN-pgvector package; on a managed service enable the `vector` extension")

// Migration is one numbered SQL file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

// migrationLock is the advisory lock key that serialises concurrent migrators.
const migrationLock = 0x5e1c_0001

// Migrations returns the embedded migrations in order. It fails on a malformed name,
// a duplicate number or a gap, so a mistake is caught by every test run.
func Migrations() ([]Migration, error) {
	return LoadMigrations(migrations.FS)
}

// LoadMigrations reads and validates the migrations of fsys.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, Migration{Version: v, Name: m[2], SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			if i > 0 && ms[i-1].Version == m.Version {
				return nil, fmt.Errorf("migration %04d is defined twice", m.Version)
			}
			return nil, fmt.Errorf("migration %04d is missing (found %04d_%s)", i+1, m.Version, m.Name)
		}
	}
	return ms, nil
}

// SchemaState is what the database holds compared to this binary.
type SchemaState struct {
	Applied int // highest applied version (0 for an empty database)
	Known   int // highest version this binary knows
}

// Pending is the number of migrations not yet applied.
func (s SchemaState) Pending() int { return max(0, s.Known-s.Applied) }

// ReadSchemaState reports the applied and known versions without changing anything.
func ReadSchemaState(ctx context.Context, conn *pgx.Conn) (SchemaState, error) {
	ms, err := Migrations()
	if err != nil {
		return SchemaState{}, err
	}
	st := SchemaState{Known: len(ms)}
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('spelunk_schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return st, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		return st, nil
	}
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM spelunk_schema_migrations`).Scan(&st.Applied); err != nil {
		return st, fmt.Errorf("read schema version: %w", err)
	}
	return st, nil
}

// Migrate applies the pending migrations, each in its own transaction, under an
// advisory lock so that two processes migrating at once apply each file once. It
// refuses, changing nothing, when the database is newer than this binary.
func Migrate(ctx context.Context, conn *pgx.Conn) (applied int, err error) {
	return migrate(ctx, conn, nil)
}

// migrate is Migrate, telling onMigration (when set) of each migration it is
// about to apply to a database that already has a schema.
func migrate(ctx context.Context, conn *pgx.Conn, onMigration func(version int, name string)) (applied int, err error) {
	ms, err := Migrations()
	if err != nil {
		return 0, err
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return 0, fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		// A fresh context: the unlock must run even when ctx was cancelled.
		_, _ = conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
	}()

	st, err := ReadSchemaState(ctx, conn)
	if err != nil {
		return 0, err
	}
	if st.Applied > st.Known {
		return 0, fmt.Errorf("%w: the database is at schema version %d, this spelunk knows up to %d; upgrade spelunk (nothing was changed)", ErrSchemaNewer, st.Applied, st.Known)
	}
	if st.Applied == st.Known {
		return 0, nil
	}
	if err := checkExtensions(ctx, conn); err != nil {
		return 0, err
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS spelunk_schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("create migrations table: %w", err)
	}
	for _, m := range ms[st.Applied:] {
		if onMigration != nil && st.Applied > 0 {
			onMigration(m.Version, m.Name)
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			return applied, err
		}
		applied++
	}
	return applied, nil
}

// applyMigration applies m and records it, in one transaction. The
// migration lock is per database, but roles and extensions are shared:
// a migration that lost a race to create one (another database of the
// cluster migrating at once) is rolled back and applied again, and its
// IF NOT EXISTS guards now see the object.
func applyMigration(ctx context.Context, conn *pgx.Conn, m Migration) error {
	err := applyMigrationOnce(ctx, conn, m)
	if IsDuplicate(err) {
		err = applyMigrationOnce(ctx, conn, m)
	}
	return err
}

func applyMigrationOnce(ctx context.Context, conn *pgx.Conn, m Migration) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, stmt := range splitStatements(m.SQL) {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO spelunk_schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
	}
	return nil
}

// checkExtensions fails early, before any DDL, when vector or pg_trgm cannot be created.
func checkExtensions(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT name, default_version FROM pg_available_extensions WHERE name IN ('vector','pg_trgm')`)
	if err != nil {
		return fmt.Errorf("list available extensions: %w", err)
	}
	avail, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var name, version string
		err := r.Scan(&name, &version)
		return name, err
	})
	if err != nil {
		return fmt.Errorf("list available extensions: %w", err)
	}
	has := map[string]bool{}
	for _, n := range avail {
		has[n] = true
	}
	if !has["vector"] {
		return ErrNoPgvector
	}
	if !has["pg_trgm"] {
		return errors.New("the pg_trgm extension is not available on the PostgreSQL server: install postgresql-contrib (Debian/Ubuntu), or enable pg_trgm on your managed service")
	}
	return nil
}
