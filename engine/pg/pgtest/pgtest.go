// Package pgtest gives every test its own real PostgreSQL database, cloned from a
// migrated template (CREATE DATABASE ... TEMPLATE is fast), so tests are isolated and
// can run in parallel.
//
// Where the server comes from:
//   - $SPELUNK_TEST_DATABASE_URL: an owner/superuser URL of a running server (`make test`
//     starts one throwaway cluster for the whole run and sets it);
//   - otherwise a throwaway cluster in a temp dir, started on first use and stopped by
//     Main when the package's tests end (so a plain `go test ./...` works once `make
//     setup` has run).
//
// With CI=true a missing server fails the test; elsewhere it skips with the reason.
// Migrations that fail on a running server fail the test everywhere.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

var (
	once        sync.Once
	serverURL   string // owner URL of the server, database part ignored
	template    string // migrated template database name
	setupErr    error
	ownCluster  *pg.Cluster
	ownTempRoot string
)

// Main runs the package's tests and stops the throwaway cluster it may have started.
// Use it from TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	if ownCluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = ownCluster.Stop(ctx)
		cancel()
		_ = os.RemoveAll(ownTempRoot)
	}
	os.Exit(code)
}

// URL returns the URL of a fresh, migrated database for this test, dropped when the
// test ends.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() { setupErr = setup() })
	if setupErr != nil {
		unavailable(t, setupErr)
	}
	ctx := context.Background()
	name := "t_" + randomHex(8)
	admin, err := pg.ConnectOwner(ctx, WithDatabase(serverURL, "postgres"))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("clone template: %v", err)
	}
	t.Cleanup(func() {
		c, err := pg.ConnectOwner(context.Background(), WithDatabase(serverURL, "postgres"))
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	})
	return WithDatabase(serverURL, name)
}

// Open returns an open engine database (tenant "default") for this test.
func Open(t testing.TB) *pg.DB {
	t.Helper()
	return OpenTenant(t, URL(t), pg.DefaultTenant)
}

// OpenTenant opens url acting as tenant.
func OpenTenant(t testing.TB, url, tenant string) *pg.DB {
	t.Helper()
	db, err := pg.Open(context.Background(), pg.Options{URL: url, Tenant: tenant})
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(db.Close)
	return db
}

// ServerURL returns the owner URL of the test server's maintenance database, for tests
// that create databases of their own.
func ServerURL(t testing.TB) string {
	t.Helper()
	once.Do(func() { setupErr = setup() })
	if setupErr != nil {
		unavailable(t, setupErr)
	}
	return WithDatabase(serverURL, "postgres")
}

// schemaError is a server that answered but on which spelunk's migrations
// failed: a defect of the code under test, never a reason to skip.
type schemaError struct{ err error }

func (e schemaError) Error() string { return e.err.Error() }
func (e schemaError) Unwrap() error { return e.err }

// unavailable ends a test that has no database: a failure with CI=true or
// when the migrations failed on a running server, a skip with the reason
// otherwise (no PostgreSQL installed here).
func unavailable(t testing.TB, err error) {
	t.Helper()
	var se schemaError
	switch {
	case errors.As(err, &se):
		t.Fatalf("spelunk's migrations fail on the test server: %v", err)
	case os.Getenv("CI") == "true":
		t.Fatalf("test database unavailable (CI=true, so this fails): %v", err)
	}
	t.Skipf("test database unavailable (run `make setup`, or set SPELUNK_TEST_DATABASE_URL): %v", err)
}

func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serverURL = os.Getenv("SPELUNK_TEST_DATABASE_URL")
	if serverURL == "" {
		root, err := os.MkdirTemp("", "spelunk-pgtest-")
		if err != nil {
			return err
		}
		ownTempRoot = root
		if err := os.Chmod(root, 0o755); err != nil { // the postgres user must enter it as root
			return err
		}
		c, err := pg.NewCluster(root + "/pg")
		if err != nil {
			return err
		}
		c.Throwaway = true
		if err := c.Start(ctx); err != nil {
			return err
		}
		ownCluster = c
		serverURL = c.URL("postgres")
	}
	ms, err := pg.Migrations()
	if err != nil {
		return err
	}
	h := sha256.New()
	for _, m := range ms {
		h.Write([]byte(m.SQL))
	}
	template = "spelunk_tmpl_" + hex.EncodeToString(h.Sum(nil))[:12]

	admin, err := pg.ConnectOwner(ctx, WithDatabase(serverURL, "postgres"))
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	// Several test binaries (one per package) may reach here at once.
	if _, err := admin.Exec(ctx, `SELECT pg_advisory_lock(7313)`); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), `SELECT pg_advisory_unlock(7313)`) //nolint:errcheck
	var ready bool
	err = admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)`, template).Scan(&ready)
	if err != nil || ready {
		return err
	}
	// A half-built template from an interrupted run is rebuilt from scratch.
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+template+" WITH (FORCE)"); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+template); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	conn, err := pg.ConnectOwner(ctx, WithDatabase(serverURL, template))
	if err != nil {
		return err
	}
	if _, err := pg.Migrate(ctx, conn); err != nil {
		conn.Close(ctx)
		return schemaError{fmt.Errorf("migrate template: %w", err)}
	}
	conn.Close(ctx)
	_, err = admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{template}.Sanitize()+" WITH IS_TEMPLATE true")
	return err
}

// withDatabase replaces the database of a URL (postgres://... form).
func WithDatabase(raw, db string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return raw + " dbname=" + db
	}
	u.Path = "/" + db
	return strings.Replace(u.String(), "%2F", "/", -1)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
