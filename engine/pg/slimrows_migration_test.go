package pg_test

import (
	"context"
	"slices"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// TestSlimRowsMigrationKeepsWhatRowsSay applies migration 0022 (edges.path,
// symbols.revision and the symbols' search words dropped) to a database
// holding rows written before it: a symbol still reads its revision (its
// file's), an edge its path (its file's), and the columns are gone.
func TestSlimRowsMigrationKeepsWhatRowsSay(t *testing.T) {
	ctx := context.Background()
	conn, rest := migratedBefore(t, "slim_rows")
	for _, stmt := range []string{
		`SET spelunk.tenant = 'default'`,
		`INSERT INTO repositories (id, name, root) VALUES (1, 'a', '/a')`,
		`INSERT INTO files (repository_id, id, path, revision, status) VALUES
			(1, 1, 'pkg/a.go', '0123456789abcdef0123456789abcdef01234567', 'indexed'),
			(1, 2, 'pkg/b.go', 'working-tree', 'indexed')`,
		`INSERT INTO symbols (repository_id, id, file_id, path, name, qualified_name, kind, start_line, end_line,
			start_byte, end_byte, content, content_hash, revision, search_name, search_signature)
		 VALUES (1, 1, 1, 'pkg/a.go', 'Run', 'pkg.Run', 'function', 1, 3, 0, 20, 'func Run() {}', 'h1',
			'0123456789abcdef0123456789abcdef01234567', 'run pkg run', ''),
			(1, 2, 2, 'pkg/b.go', 'Stop', 'pkg.Stop', 'function', 1, 3, 0, 20, 'func Stop() {}', 'h2',
			'working-tree', 'stop pkg stop', '')`,
		`INSERT INTO edges (repository_id, file_id, source_id, kind, target_id, target_name, path, line, confidence)
		 VALUES (1, 2, 2, 'calls', 1, 'Run', 'pkg/b.go', 2, 'exact')`,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, m := range rest {
		if err := pg.ApplyMigration(ctx, conn, m); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.Query(ctx, `SELECT `+symbols.Columns+` FROM `+symbols.From+` WHERE s.repository_id = $1 ORDER BY s.id`, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		s, err := symbols.Scan(rows)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Name+"@"+s.Revision)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"Run@0123456789abcdef0123456789abcdef01234567", "Stop@working-tree"}
	if !slices.Equal(got, want) {
		t.Errorf("symbols after the migration: %v, want %v", got, want)
	}
	var path string
	if err := conn.QueryRow(ctx, `SELECT f.path FROM edges e JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
		WHERE e.target_name = 'Run'`).Scan(&path); err != nil || path != "pkg/b.go" {
		t.Errorf("edge's path %q (%v), want pkg/b.go", path, err)
	}
	var left []string
	r, err := conn.Query(ctx, `SELECT c.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relname IN ('edges', 'symbols') AND c.relnamespace = 'public'::regnamespace AND NOT a.attisdropped
		  AND (c.relname, a.attname) IN (('edges', 'path'), ('symbols', 'revision'), ('symbols', 'search_name'),
		                                 ('symbols', 'search_signature'))`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var c string
		if err := r.Scan(&c); err != nil {
			t.Fatal(err)
		}
		left = append(left, c)
	}
	if len(left) > 0 {
		t.Errorf("columns left after the migration: %v", left)
	}
}
