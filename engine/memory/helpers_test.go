package memory_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgvector/pgvector-go"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newHashing is the deterministic, data-free embedder the tests use by default.
func newHashing() memory.Embedder { return embed.NewHashing(0) }

// newProject registers a fresh project (repository) in db and returns its store.
func newProject(t testing.TB, db *pg.DB, opts memory.Options) *memory.Store {
	t.Helper()
	if opts.Embedder == nil {
		opts.Embedder = newHashing()
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	repo, err := db.EnsureRepository(context.Background(), "/projects/"+hex.EncodeToString(b))
	if err != nil {
		t.Fatal(err)
	}
	return memory.New(db, repo.ID, opts)
}

// flakyEmbedder wraps an embedder whose backend can be switched off: it then fails
// the way a provider does when its server is down.
type flakyEmbedder struct {
	memory.Embedder
	down atomic.Bool
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.down.Load() {
		return nil, fmt.Errorf("flaky: connection refused: %w", embed.ErrUnavailable)
	}
	return f.Embedder.Embed(ctx, texts)
}

// scriptJudge says two claims contradict when both texts appear in one of its
// pairs, whatever their wording: tests of conflict bookkeeping do not depend on
// the heuristic.
type scriptJudge struct{ pairs [][2]string }

func (j scriptJudge) Judge(_ context.Context, a, b memory.Claim) (memory.Verdict, error) {
	for _, p := range j.pairs {
		if (p[0] == a.Text && p[1] == b.Text) || (p[0] == b.Text && p[1] == a.Text) {
			return memory.Verdict{Contradicts: true, Reason: "scripted"}, nil
		}
	}
	return memory.Verdict{}, nil
}

// failingJudge always fails.
type failingJudge struct{}

func (failingJudge) Judge(context.Context, memory.Claim, memory.Claim) (memory.Verdict, error) {
	return memory.Verdict{}, errors.New("judge exploded")
}

func mustAdd(t testing.TB, s *memory.Store, kind memory.Kind, author, text string, parents ...string) memory.Added {
	t.Helper()
	a, err := s.Add(context.Background(), memory.NewMemory{Kind: kind, Author: author, Text: text, Parents: parents})
	if err != nil {
		t.Fatalf("add %q: %v", text, err)
	}
	return a
}

func mustGet(t testing.TB, s *memory.Store, id string) memory.Memory {
	t.Helper()
	m, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return m
}

func wantStatus(t testing.TB, s *memory.Store, id string, want memory.Status) {
	t.Helper()
	if got := mustGet(t, s, id).Status; got != want {
		t.Fatalf("memory %s: status %s, want %s", id, got, want)
	}
}

// loadMemories bulk-loads ACTIVE memories (every fifth SUPERSEDED) with their
// embeddings into project, with COPY on an owner connection: COPY FROM is not
// allowed under row-level security, so the rows carry the tenant explicitly. The
// model's HNSW index is dropped during the load and rebuilt after (much faster than
// growing it row by row). It returns the index name.
func loadMemories(tb testing.TB, db *pg.DB, project int64, model string, texts []string, vecs [][]float32, created []time.Time) string {
	tb.Helper()
	ctx := context.Background()
	if err := db.RegisterModel(ctx, pg.Model{Name: model, Dims: len(vecs[0])}); err != nil {
		tb.Fatal(err)
	}
	conn, err := pg.ConnectOwner(ctx, db.URL)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := pgxvec.RegisterTypes(ctx, conn); err != nil {
		tb.Fatal(err)
	}
	index := "memory_embeddings_" + pg.ModelIndexName(model)
	var indexDef string
	if err := conn.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = $1`, index).Scan(&indexDef); err != nil {
		tb.Fatalf("model index %s: %v", index, err)
	}
	if _, err := conn.Exec(ctx, `DROP INDEX `+index); err != nil {
		tb.Fatal(err)
	}
	memRows := make([][]any, len(texts))
	embRows := make([][]any, len(texts))
	for i, text := range texts {
		var id pgtype.UUID
		_, _ = rand.Read(id.Bytes[:])
		id.Bytes[6] = id.Bytes[6]&0x0f | 0x40
		id.Bytes[8] = id.Bytes[8]&0x3f | 0x80
		id.Valid = true
		sum := sha256.Sum256([]byte(text))
		status := "ACTIVE"
		if i%5 == 4 {
			status = "SUPERSEDED"
		}
		memRows[i] = []any{project, id, pg.DefaultTenant, []pgtype.UUID{}, fmt.Sprintf("agent-%d", i%7), "fact",
			text, hex.EncodeToString(sum[:]), status, created[i]}
		embRows[i] = []any{project, id, model, pg.DefaultTenant, pgvector.NewVector(vecs[i])}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"memories"},
		[]string{"repository_id", "id", "tenant_id", "parent_ids", "author", "kind", "content", "content_hash", "status", "created_at"},
		pgx.CopyFromRows(memRows)); err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"memory_embeddings"},
		[]string{"repository_id", "memory_id", "model", "tenant_id", "embedding"}, pgx.CopyFromRows(embRows)); err != nil {
		tb.Fatal(err)
	}
	for _, sql := range []string{`SET maintenance_work_mem = '256MB'`, indexDef, `ANALYZE memories`, `ANALYZE memory_embeddings`} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			tb.Fatalf("%s: %v", sql, err)
		}
	}
	return index
}
