package pg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestModelIDMigrationKeepsVectors puts symbol_embeddings and embedding_models
// back as migration 0022 left them (the model's name in every vector row, its
// HNSW indexes partial on model = '<name>'), with the rows of two models and
// both kinds of HNSW index (each model's, a repository's own), then applies
// 0023: every vector must keep its model, now by id, and every index must be
// rebuilt on the id under its old name and serve the dense query.
func TestModelIDMigrationKeepsVectors(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	a, b := pg.Model{Name: "test-model-repoidx", Dims: 4}, pg.Model{Name: "test-model-o'two", Dims: 4}
	for _, m := range []pg.Model{a, b} {
		if err := db.RegisterModel(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	repo := seedVectors(t, db, "old", 300) // of a
	if _, err := db.Pool.Exec(ctx, `INSERT INTO symbol_embeddings (repository_id, symbol_id, model_id, content_hash, embedding)
		SELECT $1, g, `+modelIDLiteral(t, db, b.Name)+`, 'h'||g, ('['||cos(g)||','||sin(g)||',1,0]')::vector
		FROM generate_series(1, 200) g`, repo); err != nil {
		t.Fatal(err)
	}
	owner, err := pg.ConnectOwner(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(context.Background())
	own := pg.RepoVectorIndexName(a, repo)
	hnsw := func(name, pred string) string {
		return `CREATE INDEX ` + pgx.Identifier{name}.Sanitize() + ` ON symbol_embeddings USING hnsw ((embedding::halfvec(4)) halfvec_cosine_ops) WHERE ` + pred
	}
	for _, stmt := range []string{
		`CREATE TABLE before_0023 AS SELECT e.symbol_id, m.name, e.embedding FROM symbol_embeddings e JOIN embedding_models m ON m.id = e.model_id`,
		`DROP INDEX ` + pgx.Identifier{"symbol_embeddings_" + pg.ModelIndexName(a.Name)}.Sanitize(),
		`DROP INDEX ` + pgx.Identifier{"symbol_embeddings_" + pg.ModelIndexName(b.Name)}.Sanitize(),
		`ALTER TABLE symbol_embeddings ALTER COLUMN model_id TYPE text USING CASE model_id
			WHEN ` + modelIDLiteral(t, db, a.Name) + ` THEN 'test-model-repoidx' ELSE 'test-model-o''two' END`,
		`ALTER TABLE symbol_embeddings RENAME COLUMN model_id TO model`,
		`ALTER TABLE embedding_models DROP COLUMN id`,
		`ALTER TABLE symbol_embeddings ADD CONSTRAINT symbol_embeddings_model_fkey FOREIGN KEY (model) REFERENCES embedding_models (name)`,
		hnsw("symbol_embeddings_"+pg.ModelIndexName(a.Name), `model = 'test-model-repoidx'`),
		hnsw("symbol_embeddings_"+pg.ModelIndexName(b.Name), `model = 'test-model-o''two'`),
		hnsw(own, fmt.Sprintf(`model = 'test-model-repoidx' AND repository_id = %d`, repo)),
	} {
		if _, err := owner.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := pgx.BeginFunc(ctx, owner, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, migrationSQL(t, 23))
		return err
	}); err != nil {
		t.Fatalf("migration 0023 on a table with rows: %v", err)
	}

	ids := map[string]int{}
	rows, err := owner.Query(ctx, `SELECT name, id FROM embedding_models`)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	var id int
	if _, err := pgx.ForEachRow(rows, []any{&name, &id}, func() error { ids[name] = id; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[a.Name] == ids[b.Name] || ids[a.Name] < 1 || ids[b.Name] < 1 {
		t.Fatalf("model ids after 0023: %v", ids)
	}
	var n, same int
	if err := owner.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE e.embedding = b.embedding)
		FROM before_0023 b JOIN embedding_models m USING (name)
		JOIN symbol_embeddings e ON e.symbol_id = b.symbol_id AND e.model_id = m.id`).Scan(&n, &same); err != nil {
		t.Fatal(err)
	}
	if n != 500 || same != n {
		t.Fatalf("after 0023: %d of 500 vectors kept with their model, %d equal", n, same)
	}
	checkIndexes(t, owner, map[string]string{
		"symbol_embeddings_pkey":                         "(repository_id, symbol_id, model_id)",
		"symbol_embeddings_hash_idx":                     "(repository_id, model_id, content_hash)",
		"symbol_embeddings_" + pg.ModelIndexName(a.Name): fmt.Sprintf("WHERE (model_id = %d)", ids[a.Name]),
		"symbol_embeddings_" + pg.ModelIndexName(b.Name): fmt.Sprintf("WHERE (model_id = %d)", ids[b.Name]),
		own: fmt.Sprintf("WHERE ((model_id = %d) AND (repository_id = %d))", ids[a.Name], repo),
	})
	// On a tiny table reading the model's rows by a b-tree and sorting them
	// wins on cost; whether the planner can match the partial HNSW index is
	// what this checks.
	if _, err := owner.Exec(ctx, `SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	for m, index := range map[string]string{a.Name: own, b.Name: "symbol_embeddings_" + pg.ModelIndexName(b.Name)} {
		plan := explainPlan(t, owner, fmt.Sprintf(`SELECT e.symbol_id FROM symbol_embeddings e
			WHERE e.model_id = %d AND e.repository_id = $1
			ORDER BY `+pg.SymbolVectorExpr("e.embedding", 4)+` <=> '[1,0,0,0]' LIMIT 10`, ids[m]), repo)
		if !strings.Contains(plan, index) {
			t.Errorf("the dense query of %s after 0023 is not planned on %s:\n%s", m, index, plan)
		}
	}
}

// checkIndexes checks that each named index exists and its definition holds
// the given text.
func checkIndexes(t *testing.T, conn *pgx.Conn, want map[string]string) {
	t.Helper()
	for name, part := range want {
		var def string
		if err := conn.QueryRow(context.Background(), `SELECT indexdef FROM pg_indexes WHERE indexname = $1`, name).Scan(&def); err != nil {
			t.Errorf("index %s: %v", name, err)
		} else if !strings.Contains(def, part) {
			t.Errorf("index %s lacks %q: %s", name, part, def)
		}
	}
}
