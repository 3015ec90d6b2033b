package pg_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// migrationSQL is the text of migration number version.
func migrationSQL(t *testing.T, version int) string {
	t.Helper()
	ms, err := pg.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Version == version {
			return m.SQL
		}
	}
	t.Fatalf("no migration %04d", version)
	return ""
}

// TestHalfvecMigrationKeepsVectors puts symbol_embeddings (and the column of
// symbols it reads) back as migration 0013 left it (vector, HNSW over embedding::vector(N)), with rows and both
// kinds of HNSW index (the model's and a repository's own), then applies 0015:
// every vector must survive as its float16 rounding, and every index must be
// rebuilt over halfvec under its old name and serve the dense query.
func TestHalfvecMigrationKeepsVectors(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	m := pg.Model{Name: "test-model-repoidx", Dims: 4}
	if err := db.RegisterModel(ctx, m); err != nil {
		t.Fatal(err)
	}
	repo := seedVectors(t, db, "old", 300)
	owner, err := pg.ConnectOwner(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(context.Background())
	shared := "symbol_embeddings_" + pg.ModelIndexName(m.Name)
	own := pg.RepoVectorIndexName(m, repo)
	modelID := modelIDLiteral(t, db, m.Name) // as 0023 left the predicates
	for _, stmt := range []string{
		`DROP INDEX ` + pgx.Identifier{shared}.Sanitize(),
		`ALTER TABLE symbol_embeddings ALTER COLUMN embedding TYPE vector USING embedding::vector`,
		`CREATE INDEX ` + pgx.Identifier{shared}.Sanitize() + ` ON symbol_embeddings USING hnsw ((embedding::vector(4)) vector_cosine_ops) WHERE model_id = ` + modelID,
		`CREATE INDEX ` + pgx.Identifier{own}.Sanitize() + ` ON symbol_embeddings USING hnsw ((embedding::vector(4)) vector_cosine_ops) WHERE model_id = ` + modelID + ` AND repository_id = ` + strconv.FormatInt(repo, 10),
		`CREATE TABLE before_0015 AS SELECT symbol_id, embedding AS v FROM symbol_embeddings`,
		// 0015 also rebuilt the full-text column from search_body, gone since
		// 0018, and the other search columns, gone since 0022.
		`ALTER TABLE symbols ADD COLUMN search_body text NOT NULL DEFAULT '',
			ADD COLUMN search_name text NOT NULL DEFAULT '', ADD COLUMN search_signature text NOT NULL DEFAULT ''`,
	} {
		if _, err := owner.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := pgx.BeginFunc(ctx, owner, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, migrationSQL(t, 15))
		return err
	}); err != nil {
		t.Fatalf("migration 0015 on a table with rows: %v", err)
	}

	var typ string
	if err := owner.QueryRow(ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = 'symbol_embeddings'::regclass AND attname = 'embedding'`).Scan(&typ); err != nil || typ != "halfvec" {
		t.Fatalf("embedding column is %q (err %v), want halfvec", typ, err)
	}
	var rows, same int
	if err := owner.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE e.embedding::vector = b.v::halfvec::vector)
		FROM before_0015 b JOIN symbol_embeddings e USING (symbol_id)`).Scan(&rows, &same); err != nil {
		t.Fatal(err)
	}
	if rows != 300 || same != rows {
		t.Fatalf("after 0015: %d of 300 vectors kept, %d equal to their float16 rounding", rows, same)
	}
	for _, name := range []string{shared, own} {
		var def string
		if err := owner.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = $1`, name).Scan(&def); err != nil {
			t.Fatalf("index %s after 0015: %v", name, err)
		}
		if !strings.Contains(def, "halfvec(4)") || !strings.Contains(def, "halfvec_cosine_ops") {
			t.Errorf("index %s after 0015: %s", name, def)
		}
	}
	// A tiny table's sequential scan would win on cost; the plan's choice of
	// index is what this checks.
	if _, err := owner.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	plan := explainPlan(t, owner, `SELECT e.symbol_id FROM symbol_embeddings e
		WHERE e.model_id = `+modelID+` AND e.repository_id = $1
		ORDER BY `+pg.SymbolVectorExpr("e.embedding", 4)+` <=> '[1,0,0,0]' LIMIT 10`, repo)
	if !strings.Contains(plan, own) {
		t.Errorf("the dense query after 0015 is not planned on %s:\n%s", own, plan)
	}
}
