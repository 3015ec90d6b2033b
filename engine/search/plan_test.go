package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestQueryPlansUseIndexes builds ~20k chunks and checks, as the application role
// under row-level security, that the dense channel scans the model's HNSW index and
// BM25 and the literal channel find postings rows by the term index: no
// sequential scan of symbols, vectors or postings.
func TestQueryPlansUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 20k chunks")
	}
	db := pgtest.Open(t)
	ctx := context.Background()
	const n, dims, model = 20000, 32, "plan-test-32"
	repoID := seedChunks(t, db, n, dims, model)

	explain := func(sql string, args ...any) string {
		t.Helper()
		var lines []string
		err := pgx.BeginFunc(ctx, db.Pool, func(tx pgx.Tx) error {
			_, _ = tx.Exec(ctx, "SET LOCAL hnsw.ef_search = 100")
			rows, err := tx.Query(ctx, "EXPLAIN "+sql, args...)
			if err != nil {
				return err
			}
			lines, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	q := make([]float32, dims)
	for i := range q {
		q[i] = rand.Float32()
	}
	modelID, err := db.ModelID(ctx, model)
	if err != nil {
		t.Fatal(err)
	}
	plan := explain(denseSQL(modelID, dims, false), repoID, pgvector.NewHalfVector(q), 100)
	if !strings.Contains(plan, "symbol_embeddings_"+pg.ModelIndexName(model)) || strings.Contains(plan, "Seq Scan") {
		t.Errorf("dense channel does not use the model's HNSW index:\n%s", plan)
	}
	// The seeded repository is all of the model's index: walk it. A small one
	// beside it is compared exactly, reading its own vectors only.
	if exact, err := New(db, repoID, fixedEmbedder{model, dims}).denseExact(ctx); err != nil || exact {
		t.Errorf("denseExact for the whole index = %v, %v; want false", exact, err)
	}
	small, err := db.EnsureRepository(ctx, "/synthetic-small")
	if err != nil {
		t.Fatal(err)
	}
	if exact, err := New(db, small.ID, fixedEmbedder{model, dims}).denseExact(ctx); err != nil || !exact {
		t.Errorf("denseExact for a small repository beside it = %v, %v; want true", exact, err)
	}
	plan = explain(denseExactSQL(modelID, dims), small.ID, pgvector.NewHalfVector(q), 100)
	if strings.Contains(plan, "hnsw") || strings.Contains(plan, "Seq Scan on symbol_embeddings") {
		t.Errorf("the exact dense query walks the HNSW index or scans every vector:\n%s", plan)
	}
	// BM25 reads a term's rows by the term index (migration 0017), both to
	// count its frequency and to score; so does the literal channel's word
	// intersection, and its content check reads the candidates by key.
	seedPostings(t, db, repoID)
	// "dedupe" is a learned expansion of "zanzibar" (search/expand.go).
	plan = explain(bm25SQL, repoID, []string{"refund", "zanzibar", "dedupe"}, []float64{1, 1, 0.3}, 601, float64(n), 2, []int{0, 0, 2})
	if strings.Count(plan, "postings_term_idx") < 2 || strings.Contains(plan, "Seq Scan on postings") {
		t.Errorf("BM25 does not find postings by the term index:\n%s", plan)
	}
	plan = explain(literalTermsSQL, repoID, []string{"refund", "zanzibar"}, 601, []int32{0, 0}, literalNarrow)
	if strings.Count(plan, "postings_term_idx") < 2 || strings.Contains(plan, "Seq Scan on postings") {
		t.Errorf("the literal channel does not find postings by the term index:\n%s", plan)
	}
	plan = explain(literalSQL, repoID, []int64{5, 17, 1001}, "%refund%", "refund", channelDepth)
	if !strings.Contains(plan, "symbols_pkey") || strings.Contains(plan, "Seq Scan on symbols") {
		t.Errorf("the literal channel does not read its candidates by key:\n%s", plan)
	}
	plan = explain(keySQL, repoID, []int64{5, 17, 1001}, keyPattern("REFUND"), "REFUND", channelDepth)
	if !strings.Contains(plan, "symbols_pkey") || strings.Contains(plan, "Seq Scan on symbols") {
		t.Errorf("the symbol channel's key lookup does not read its candidates by key:\n%s", plan)
	}
}

// seedPostings gives each seeded chunk a postings row per body word, as if
// each chunk were its own file (one file would make a table too small for the
// planner to use an index), and analyzes them. The plan is what is checked:
// the rows' data is a placeholder.
func seedPostings(t *testing.T, db *pg.DB, repoID int64) {
	t.Helper()
	ctx := context.Background()
	conn, err := pg.ConnectOwner(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO postings (repository_id, group_id, term, n, data, tenant_id)
		SELECT s.repository_id, s.id, w, count(*), '\x010101'::bytea, s.tenant_id
		FROM symbols s, regexp_split_to_table(s.content, ' ') AS w
		WHERE s.repository_id = $1 GROUP BY 1, 2, 3, 6`, repoID); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) postings`); err != nil {
		t.Fatal(err)
	}
}

// seedChunks inserts n synthetic symbols with vectors, as a real index would hold.
func seedChunks(t testing.TB, db *pg.DB, n, dims int, model string) int64 {
	t.Helper()
	ctx := context.Background()
	rec, err := db.EnsureRepository(ctx, "/synthetic")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RegisterModel(ctx, pg.Model{Name: model, Dims: dims}); err != nil {
		t.Fatal(err)
	}
	modelID, err := db.ModelID(ctx, model)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("refund invoice tax cart discount session token retry backoff limiter request response " +
		"payment gateway customer order export csv money price total window bucket signer verify issue apply")
	conn, err := pg.ConnectOwner(ctx, db.URL) // bulk seeding as the owner: COPY is refused under RLS
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO files (repository_id, id, tenant_id, path, revision, status)
		VALUES ($1, 1, $2, 'synthetic.go', 'x', 'indexed')`, rec.ID, db.Tenant); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, n)
	vecs := make([][]any, n)
	for i := range n {
		var body []string
		for range 30 {
			body = append(body, words[rand.IntN(len(words))])
		}
		if i%1000 == 0 {
			body = append(body, "zanzibar") // a rare term, as identifiers usually are
		}
		name := words[rand.IntN(len(words))] + words[rand.IntN(len(words))]
		rows[i] = []any{rec.ID, int64(i + 1), db.Tenant, int64(1), "synthetic.go", name, name, "function", 1, 2, 0, 10,
			strings.Join(body, " "), "h"}
		v := make([]float32, dims)
		for j := range v {
			v[j] = rand.Float32() - 0.5
		}
		vecs[i] = []any{rec.ID, int64(i + 1), modelID, db.Tenant, "h", pgvector.NewHalfVector(v)}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"symbols"}, []string{"repository_id", "id", "tenant_id", "file_id", "path",
		"name", "qualified_name", "kind", "start_line", "end_line", "start_byte", "end_byte", "content", "content_hash"},
		pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"symbol_embeddings"}, []string{"repository_id", "symbol_id", "model_id",
		"tenant_id", "content_hash", "embedding"}, pgx.CopyFromRows(vecs)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE symbols; ANALYZE symbol_embeddings`); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

// fixedEmbedder names a model for the searcher; it is never asked to embed.
type fixedEmbedder struct {
	name string
	dims int
}

func (e fixedEmbedder) Name() string { return e.name }
func (e fixedEmbedder) Dims() int    { return e.dims }
func (e fixedEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("fixedEmbedder does not embed")
}
