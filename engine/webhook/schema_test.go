package webhook_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/webhook"
)

// publicObjects lists what the public schema holds: relations, types and
// functions, the things a migration could add there.
func publicObjects(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT 'rel ' || c.relname || ' ' || c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'
		UNION ALL
		SELECT 'type ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public'
		UNION ALL
		SELECT 'func ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// River's migrations put everything in schema river: spelunk's public schema,
// which engine/pg/distribution_test.go checks table by table, is unchanged, and
// migrating again (a second server start) is a no-op.
func TestRiverStaysInItsSchema(t *testing.T) {
	t.Parallel()
	pool, err := pgxpool.New(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	before := publicObjects(t, pool)
	for range 2 {
		if err := webhook.Migrate(context.Background(), pool); err != nil {
			t.Fatal(err)
		}
	}
	if after := publicObjects(t, pool); !slices.Equal(before, after) {
		t.Fatalf("river changed the public schema:\nbefore %v\nafter  %v", before, after)
	}
	var tables []string
	rows, err := pool.Query(context.Background(), `SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, webhook.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if tables, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"river_job", "river_leader", "river_migration", "river_queue"} {
		if !slices.Contains(tables, want) {
			t.Errorf("schema %s has tables %v, want %s among them", webhook.Schema, tables, want)
		}
	}
}
