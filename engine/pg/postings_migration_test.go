package pg_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/postings"
)

// TestPostingsMigrationKeepsPostings puts postings back as migration 0016 left
// them (a row per term and symbol, under forced row-level security), with
// symbols in two files and ids that need several varint bytes, then applies
// 0017: every posting must come back from the packed rows of its file, with
// its weights, and each row's count must match its data.
func TestPostingsMigrationKeepsPostings(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	if err := db.RegisterModel(ctx, pg.Model{Name: "test-model-repoidx", Dims: 4}); err != nil {
		t.Fatal(err)
	}
	repo := seedVectors(t, db, "old-postings", 40) // symbols 1..40 in file 1
	if _, err := db.Pool.Exec(ctx, `INSERT INTO files (repository_id, id, path, revision, status) VALUES ($1, 2, 'b.go', 'r', 'indexed')`, repo); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO symbols (repository_id, id, file_id, path, name, qualified_name, kind, start_line, end_line,
			start_byte, end_byte, content, content_hash)
		VALUES ($1, 3000000000, 2, 'b.go', 'big', 'big', 'function', 1, 2, 0, 1, 'x', 'hb'),
		       ($1, 3000000200, 2, 'b.go', 'bigger', 'bigger', 'function', 3, 4, 0, 1, 'x', 'hc')`, repo); err != nil {
		t.Fatal(err)
	}
	owner, err := pg.ConnectOwner(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(context.Background())
	for _, stmt := range []string{
		`DROP TABLE postings`,
		`CREATE TABLE postings (repository_id bigint NOT NULL, term text NOT NULL, symbol_id bigint NOT NULL,
			tf real NOT NULL, dl real NOT NULL, tenant_id text NOT NULL DEFAULT current_setting('spelunk.tenant', true),
			PRIMARY KEY (repository_id, term, symbol_id) INCLUDE (tf, dl, tenant_id))`,
		`ALTER TABLE postings ENABLE ROW LEVEL SECURITY`,
		`ALTER TABLE postings FORCE ROW LEVEL SECURITY`,
		`CREATE POLICY tenant_isolation ON postings USING (tenant_id = current_setting('spelunk.tenant', true))`,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON postings TO spelunk_app`,
	} {
		if _, err := owner.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// Every symbol has "common" (tf = its id mod 7 + 1); every third "rare";
	// the two big ones "big" with a length past one varint byte.
	if _, err := db.Pool.Exec(ctx, `INSERT INTO postings (repository_id, term, symbol_id, tf, dl)
		SELECT $1, 'common', id, id % 7 + 1, 10 + id % 5 FROM symbols WHERE repository_id = $1
		UNION ALL SELECT $1, 'rare', id, 3, 12 FROM symbols WHERE repository_id = $1 AND id % 3 = 0
		UNION ALL SELECT $1, 'big', id, 200, 24755 FROM symbols WHERE repository_id = $1 AND id > 1000`, repo); err != nil {
		t.Fatal(err)
	}
	want := postingSet(t, db, `SELECT symbol_id, term, tf::bigint, dl::bigint FROM postings WHERE repository_id = $1`, repo)
	if len(want) != 42+14+2 {
		t.Fatalf("seeded %d postings", len(want))
	}
	if err := pgx.BeginFunc(ctx, owner, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, migrationSQL(t, 17))
		return err
	}); err != nil {
		t.Fatalf("migration 0017 on a table with rows: %v", err)
	}
	rows, err := db.Pool.Query(ctx, `SELECT file_id, term, n, data FROM postings WHERE repository_id = $1`, repo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var file int64
	var term string
	var n int
	var data []byte
	if _, err := pgx.ForEachRow(rows, []any{&file, &term, &n, &data}, func() error {
		count := 0
		err := postings.Decode(data, func(p postings.Posting) {
			count++
			if (p.Symbol > 1000) != (file == 2) {
				t.Errorf("symbol %d's posting of %q in the row of file %d", p.Symbol, term, file)
			}
			got = append(got, fmt.Sprintf("%d %s %d %d", p.Symbol, term, p.TF, p.DL))
		})
		if err != nil || count != n {
			t.Errorf("row (%d, %q): n %d, decoded %d (err %v)", file, term, n, count, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("after 0017 the postings are\n%v\nwant\n%v", got, want)
	}
	var forced bool
	if err := owner.QueryRow(ctx, `SELECT relforcerowsecurity FROM pg_class WHERE oid = 'symbols'::regclass`).Scan(&forced); err != nil || !forced {
		t.Fatalf("symbols' row-level security forced after 0017: %v (err %v)", forced, err)
	}
}

// postingSet renders the rows of q (symbol, term, tf, dl) sorted.
func postingSet(t *testing.T, db *pg.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var id, tf, dl int64
	var term string
	if _, err := pgx.ForEachRow(rows, []any{&id, &term, &tf, &dl}, func() error {
		out = append(out, fmt.Sprintf("%d %s %d %d", id, term, tf, dl))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
