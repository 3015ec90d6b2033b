package pg_test

import (
	"context"
	"slices"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestSequencesMigrationKeepsIDs applies migration 0020 (identity columns to
// sequence defaults) to a database holding rows: the next id continues after
// the last one the identity gave, and the indexer's way of allocating ids
// (nextval of pg_get_serial_sequence) still names the column's sequence.
func TestSequencesMigrationKeepsIDs(t *testing.T) {
	ctx := context.Background()
	ms, err := pg.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	// The migration's position, found by name: another may be numbered
	// before it when branches merge.
	at := slices.IndexFunc(ms, func(m pg.Migration) bool { return m.Name == "sequences" })
	if at < 0 {
		t.Fatal("no migration named sequences")
	}
	url := freshDatabase(t)
	conn, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE spelunk_schema_migrations (version integer PRIMARY KEY,
		name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:at] {
		if err := pg.ApplyMigration(ctx, conn, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `SET spelunk.tenant = 'default'`); err != nil {
		t.Fatal(err)
	}
	var repo, file int64
	if err := conn.QueryRow(ctx, `INSERT INTO repositories (name, root) VALUES ('a', '/a'), ('b', '/b') RETURNING id`).Scan(&repo); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO files (repository_id, path, revision, status) SELECT $1, 'f' || g, 'r', 'indexed' FROM generate_series(1, 5) g`, repo); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[at:] {
		if err := pg.ApplyMigration(ctx, conn, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.QueryRow(ctx, `INSERT INTO repositories (name, root) VALUES ('c', '/c') RETURNING id`).Scan(&repo); err != nil {
		t.Fatal(err)
	}
	if repo != 3 {
		t.Errorf("next repository id %d, want 3", repo)
	}
	if err := conn.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('files', 'id'))`).Scan(&file); err != nil {
		t.Fatal(err)
	}
	if file != 6 {
		t.Errorf("next file id %d, want 6", file)
	}
	var identity int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relnamespace = 'public'::regnamespace AND a.attidentity <> ''`).Scan(&identity); err != nil {
		t.Fatal(err)
	}
	if identity != 0 {
		t.Errorf("%d identity columns left after the sequences migration", identity)
	}
}
