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

// TestPostingsGroupsMigrationKeepsPostings puts postings back as migration
// 0020 left them (a row per term and file, files without postings_group,
// forced row-level security) for 70 files, one with ids that need several
// varint bytes, then applies 0021: every file must get a group of at most 64
// files, every posting must come back, once, from a row of its file's group,
// with its weights, and each row's count must match its data.
func TestPostingsGroupsMigrationKeepsPostings(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	var repo int64
	if err := db.Pool.QueryRow(ctx, `INSERT INTO repositories (name, root) VALUES ('old-groups', '/old-groups') RETURNING id`).Scan(&repo); err != nil {
		t.Fatal(err)
	}
	// Files 1..70 (paths in reverse id order), two symbols each: 10f and
	// 10f+1, and file 70's second symbol 3000000000.
	for _, stmt := range []string{
		`INSERT INTO files (repository_id, id, path, revision, status)
			SELECT $1, g, format('d/f%03s.go', 100 - g), 'r', 'indexed' FROM generate_series(1, 70) g`,
		`INSERT INTO symbols (repository_id, id, file_id, path, name, qualified_name, kind, start_line, end_line,
			start_byte, end_byte, content, content_hash)
			SELECT $1, CASE WHEN s = 70*10+1 THEN 3000000000 ELSE s END, s / 10, 'p', 'f', 'f', 'function', 1, 1, 0, 1, 'x', 'h'
			FROM generate_series(1, 70) g, LATERAL (VALUES (g*10), (g*10+1)) v(s)`,
	} {
		if _, err := db.Pool.Exec(ctx, stmt, repo); err != nil {
			t.Fatal(err)
		}
	}
	owner, err := pg.ConnectOwner(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(context.Background())
	for _, stmt := range []string{
		`DROP TABLE postings`,
		`ALTER TABLE files DROP COLUMN postings_group`,
		`CREATE TABLE postings (repository_id bigint NOT NULL, file_id bigint NOT NULL, n integer NOT NULL, term text NOT NULL,
			tenant_id text NOT NULL DEFAULT current_setting('spelunk.tenant', true), data bytea NOT NULL)`,
		`CREATE INDEX postings_term_idx ON postings (repository_id, term)`,
		`CREATE INDEX postings_file_idx ON postings (repository_id, file_id)`,
		`ALTER TABLE postings ENABLE ROW LEVEL SECURITY`,
		`ALTER TABLE postings FORCE ROW LEVEL SECURITY`,
		`CREATE POLICY tenant_isolation ON postings USING (tenant_id = current_setting('spelunk.tenant', true))`,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON postings TO spelunk_app`,
	} {
		if _, err := owner.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// Every symbol has "common" (tf = its id mod 7 + 1, length 10 + id mod 5);
	// every third file's symbols "rare"; symbol 3000000000 "big" (length 24755).
	var want []string
	var files, ns []int64
	var terms []string
	var datas [][]byte
	add := func(file int64, term string, ps []postings.Posting) {
		files, terms, ns = append(files, file), append(terms, term), append(ns, int64(len(ps)))
		datas = append(datas, postings.Encode(nil, ps))
		for _, p := range ps {
			want = append(want, fmt.Sprintf("%d %s %d %d", p.Symbol, term, p.TF, p.DL))
		}
	}
	for f := int64(1); f <= 70; f++ {
		a, b := f*10, f*10+1
		if f == 70 {
			b = 3000000000
			add(f, "big", []postings.Posting{{Symbol: b, TF: 200, DL: 24755}})
		}
		common := func(id int64) postings.Posting {
			return postings.Posting{Symbol: id, TF: uint32(id%7 + 1), DL: uint32(10 + id%5)}
		}
		add(f, "common", []postings.Posting{common(a), common(b)})
		if f%3 == 0 {
			add(f, "rare", []postings.Posting{{Symbol: a, TF: 3, DL: 12}, {Symbol: b, TF: 1, DL: 12}})
		}
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO postings (repository_id, file_id, term, n, data)
		SELECT $1, f, t, n, d FROM unnest($2::bigint[], $3::text[], $4::int8[], $5::bytea[]) AS u(f, t, n, d)`,
		repo, files, terms, ns, datas); err != nil {
		t.Fatal(err)
	}
	if err := pgx.BeginFunc(ctx, owner, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, migrationSQL(t, 21))
		return err
	}); err != nil {
		t.Fatalf("migration 0021 on a table with rows: %v", err)
	}
	checkGroupedPostings(t, db, repo, want)
	var forced bool
	if err := owner.QueryRow(ctx, `SELECT relforcerowsecurity FROM pg_class WHERE oid = 'files'::regclass`).Scan(&forced); err != nil || !forced {
		t.Fatalf("files' row-level security forced after 0021: %v (err %v)", forced, err)
	}
}

// checkGroupedPostings checks repo's files' groups (at most 64 files each, the
// first 64 by path in one) and that its postings rows decode to want, each
// posting in its file's group's row.
func checkGroupedPostings(t *testing.T, db *pg.DB, repo int64, want []string) {
	t.Helper()
	ctx := context.Background()
	groupOf := map[int64]int64{} // symbol -> its file's group
	members := map[int64]int{}
	rows, err := db.Pool.Query(ctx, `SELECT s.id, coalesce(f.postings_group, 0) FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id WHERE s.repository_id = $1 AND s.id < 1000 AND s.id % 10 = 0`, repo)
	if err != nil {
		t.Fatal(err)
	}
	var id, group int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &group}, func() error {
		groupOf[id], groupOf[id+1] = group, group
		if id == 700 {
			groupOf[3000000000] = group
		}
		members[group]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Paths run in reverse id order: files 70..7 make the first group, named by its smallest id.
	if len(members) != 2 || members[7] != 64 || members[1] != 6 {
		t.Fatalf("groups and their files: %v, want 64 files in group 7, 6 in group 1", members)
	}
	rows, err = db.Pool.Query(ctx, `SELECT group_id, term, n, data FROM postings WHERE repository_id = $1`, repo)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var term string
	var n int
	var data []byte
	if _, err := pgx.ForEachRow(rows, []any{&group, &term, &n, &data}, func() error {
		count := 0
		err := postings.Decode(data, func(p postings.Posting) {
			count++
			if groupOf[p.Symbol] != group {
				t.Errorf("symbol %d's posting of %q in the row of group %d, its file's group is %d", p.Symbol, term, group, groupOf[p.Symbol])
			}
			got = append(got, fmt.Sprintf("%d %s %d %d", p.Symbol, term, p.TF, p.DL))
		})
		if err != nil || count != n {
			t.Errorf("row (%d, %q): n %d, decoded %d (err %v)", group, term, n, count, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after 0021 the postings are\n%v\nwant\n%v", got, want)
	}
}
