package pg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// referenceTables are the tables not keyed by repository: on Citus they are
// reference tables (copied to every node), every other table is distributed
// by repository_id (issue 13.7).
var referenceTables = map[string]bool{
	"repositories":              true, // the distribution key's own table: one row per repository
	"embedding_models":          true,
	"spelunk_schema_migrations": true, // migration bookkeeping
}

// TestEveryTableIsDistributableByRepository keeps the scale-out path open: a
// table distributed by repository_id needs that column in every primary key
// and unique index, and a foreign key between distributed tables must carry it
// (Citus co-locates the rows of one repository; a key without the column would
// cross shards).
func TestEveryTableIsDistributableByRepository(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `
		SELECT c.relname, i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid),
		       EXISTS (SELECT 1 FROM unnest(i.indkey) k
		               JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k
		               WHERE a.attname = 'repository_id')
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r' AND (i.indisprimary OR i.indisunique)`)
	if err != nil {
		t.Fatal(err)
	}
	type index struct {
		Table, Name, Def string
		Keyed            bool
	}
	idx, err := pgx.CollectRows(rows, pgx.RowToStructByPos[index])
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]bool{}
	for _, ix := range idx {
		tables[ix.Table] = true
		if !referenceTables[ix.Table] && !ix.Keyed {
			t.Errorf("%s: unique index %s does not include repository_id: %s", ix.Table, ix.Name, ix.Def)
		}
	}
	if len(tables) < 8 {
		t.Fatalf("only %d tables with keys found: the query missed the schema", len(tables))
	}

	rows, err = db.Pool.Query(ctx, `
		SELECT c.conrelid::regclass::text, c.confrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
		FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
		WHERE n.nspname = 'public' AND c.contype = 'f'`)
	if err != nil {
		t.Fatal(err)
	}
	type fkey struct{ From, To, Name, Def string }
	fks, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fkey])
	if err != nil {
		t.Fatal(err)
	}
	for _, fk := range fks {
		if referenceTables[fk.To] {
			continue // distributed -> reference is allowed
		}
		if !strings.Contains(fk.Def, "repository_id") {
			t.Errorf("%s -> %s: foreign key %s crosses repositories: %s", fk.From, fk.To, fk.Name, fk.Def)
		}
	}

	// Citus refuses to distribute a table with an identity column (migration
	// 0020 replaced them with sequence defaults).
	rows, err = db.Pool.Query(ctx, `
		SELECT c.relname || '.' || a.attname
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attidentity <> ''`)
	if err != nil {
		t.Fatal(err)
	}
	identity, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(identity) > 0 {
		t.Errorf("identity columns %v: Citus cannot distribute their tables; use a sequence default", identity)
	}
}
