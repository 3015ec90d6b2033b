package symbols

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// seedSymbols bulk-loads n functions into one file of a new repository, every
// symbol with two aliases (a qualified form and a package form), and returns the
// repository id.
func seedSymbols(t testing.TB, db *pg.DB, n int) int64 {
	t.Helper()
	ctx := context.Background()
	rec, err := db.EnsureRepository(ctx, "/synthetic")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pg.ConnectOwner(ctx, db.URL) // COPY is refused under row-level security
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO files (repository_id, id, tenant_id, path, revision, status)
		VALUES ($1, 1, $2, 'pkg/synthetic.go', 'x', 'indexed')`, rec.ID, db.Tenant); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, n)
	for i := range n {
		name := fmt.Sprintf("Func%d", i)
		kind := "function"
		if i%10 == 9 {
			kind = "module" // not a definition: Find leaves it out
		}
		rows[i] = []any{rec.ID, int64(i + 1), db.Tenant, int64(1), "pkg/synthetic.go", name, "Type" + name,
			[]string{"pkg.Type" + name, fmt.Sprintf("alias_%d", i%5000)}, kind, i + 1, i + 1, 0, 10, "body", "h"}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"symbols"}, []string{"repository_id", "id", "tenant_id", "file_id", "path",
		"name", "qualified_name", "aliases", "kind", "start_line", "end_line", "start_byte", "end_byte", "content",
		"content_hash"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE symbols`); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

// TestFindUsesIndexes checks, as the application role under row-level security,
// that looking a name up over 20k symbols scans indexes, the aliases' GIN index
// among them (issue 11: "= ANY (aliases)" made Find a sequential scan).
func TestFindUsesIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 20k symbols")
	}
	db := pgtest.Open(t)
	ctx := context.Background()
	repoID := seedSymbols(t, db, 20000)
	for _, name := range []string{"pkg.TypeFunc123", "Func123", "alias_42"} {
		rows, err := db.Pool.Query(ctx, "EXPLAIN "+findSQL, repoID, name, "", false)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, "symbols_aliases_idx") || strings.Contains(plan, "Seq Scan on symbols") {
			t.Errorf("find %q does not use the aliases' GIN index:\n%s", name, plan)
		}
	}
}

// TestFindMatchesNamesAndAliases checks what Find returns against the predicate
// it replaced ("$2 = ANY (s.aliases)"): the same symbols, in the same order.
func TestFindMatchesNamesAndAliases(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	repoID := seedSymbols(t, db, 12000)
	old := strings.Replace(findSQL, "s.aliases @> ARRAY[$2::text]", "$2 = ANY (s.aliases)", 1)
	if old == findSQL {
		t.Fatal("the alias predicate moved: update this test")
	}
	tests := []struct {
		name, path string
		want       int
	}{
		{"alias_42", "", 3},       // 42, 5042, 10042 (none a module)
		{"alias_9", "", 0},        // 9, 5009 and 10009 are modules
		{"pkg.TypeFunc77", "", 1}, // alias
		{"typefunc77", "", 1},     // qualified name, any case
		{"FUNC77", "pkg/", 1},     // name, any case, under a path
		{"Func77", "other/", 0},   // wrong path
		{"pkg.typefunc77", "", 0}, // aliases match exactly
		{"alias_42", "pkg/synthetic.go", 3},
	}
	for _, tt := range tests {
		got, err := Find(ctx, db, repoID, tt.name, tt.path)
		if tt.want == 0 {
			if err == nil {
				t.Errorf("find %q in %q: got %d symbols, want none", tt.name, tt.path, len(got))
			}
			continue
		}
		if err != nil {
			t.Fatalf("find %q in %q: %v", tt.name, tt.path, err)
		}
		rows, err := db.Pool.Query(ctx, old, repoID, tt.name, tt.path, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Symbol, error) { return Scan(r) })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tt.want || !slices.EqualFunc(got, want, func(a, b Symbol) bool { return a.ID == b.ID }) {
			t.Errorf("find %q in %q: got %v, want %d symbols %v", tt.name, tt.path, ids(got), tt.want, ids(want))
		}
	}
}

func ids(ss []Symbol) []int64 {
	out := make([]int64, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}
