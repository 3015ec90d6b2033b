package pg_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// TestSequencesMigrationKeepsIDs applies migration 0020 (identity columns to
// sequence defaults) to a database holding rows: the next id continues after
// the last one the identity gave, and the indexer's way of allocating ids
// (nextval of pg_get_serial_sequence) still names the column's sequence.
func TestSequencesMigrationKeepsIDs(t *testing.T) {
	ctx := context.Background()
	conn, rest := migratedBefore(t, "sequences")
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
	for _, m := range rest {
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
