package pg_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// explainPlan returns the plan PostgreSQL chooses for sql with args, as
// EXPLAIN prints it, one line per node.
func explainPlan(t *testing.T, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, sql string, args ...any) string {
	t.Helper()
	rows, err := q.Query(context.Background(), "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// migratedBefore opens a fresh database with every migration before the one
// named name applied, as an owner connection (closed with the test), and
// returns that migration and those after it, for the test to apply once it has
// written rows of the old shape. It is found by name: another may be numbered
// before it when branches merge.
func migratedBefore(t *testing.T, name string) (*pgx.Conn, []pg.Migration) {
	t.Helper()
	ctx := context.Background()
	ms, err := pg.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	at := slices.IndexFunc(ms, func(m pg.Migration) bool { return m.Name == name })
	if at < 0 {
		t.Fatalf("no migration named %s", name)
	}
	conn, err := pg.ConnectOwner(ctx, freshDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, `CREATE TABLE spelunk_schema_migrations (version integer PRIMARY KEY,
		name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:at] {
		if err := pg.ApplyMigration(ctx, conn, m); err != nil {
			t.Fatal(err)
		}
	}
	return conn, ms[at:]
}
