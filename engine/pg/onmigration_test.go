package pg_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestOpenTellsOfMigrationsOnAnExistingSchema: Open names each migration it
// applies to a database that already has a schema (a person waits for it: a
// migration can rewrite a large index's tables), and none on a new database.
func TestOpenTellsOfMigrationsOnAnExistingSchema(t *testing.T) {
	ctx := context.Background()
	ms, err := pg.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var told []string
	opts := pg.Options{OnMigration: func(v int, name string) { told = append(told, fmt.Sprintf("%04d_%s", v, name)) }}

	opts.URL = freshDatabase(t)
	db, err := pg.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if len(told) != 0 {
		t.Fatalf("a new database: told of %v, want nothing", told)
	}

	// A database one migration behind: every migration but the last applied
	// as Migrate applies them.
	opts.URL = freshDatabase(t)
	conn, err := pg.ConnectOwner(ctx, opts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE spelunk_schema_migrations (version integer PRIMARY KEY,
		name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:len(ms)-1] {
		if err := pg.ApplyMigration(ctx, conn, m); err != nil {
			t.Fatal(err)
		}
	}
	if db, err = pg.Open(ctx, opts); err != nil {
		t.Fatal(err)
	}
	db.Close()
	last := ms[len(ms)-1]
	if want := []string{fmt.Sprintf("%04d_%s", last.Version, last.Name)}; !slices.Equal(told, want) {
		t.Fatalf("one migration behind: told of %v, want %v", told, want)
	}
}
