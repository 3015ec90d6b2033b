package memory_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// anchorBenchNames are fixture definitions the benchmark's memories name.
var anchorBenchNames = []string{"Invoice.IsEligibleForRefund", "billing.IssueRefund", "PartialRefundCents", "Invoice.Total",
	"billing/refund.go:40", "billing/invoice.go"}

// BenchmarkAddWithAnchors measures adding a memory (target p95 < 15 ms, issue
// 17) in a project of 50k memories, each anchored to a definition of the
// indexed fixture, where every new memory names a definition or file. "add" is
// the whole Store.Add: embedding, insert, the conflict check, and finding,
// resolving and pinning its anchors; "pin" is the anchor stage alone (what
// anchors add to a write). Run with -benchtime=500x or more for the percentiles.
func BenchmarkAddWithAnchors(b *testing.B) {
	s, ids := anchorBench(b)
	b.Run("add", func(b *testing.B) { benchAddAnchored(b, s) })
	b.Run("pin", func(b *testing.B) { benchPinAnchors(b, s, ids) })
}

// anchorBench indexes the fixture and loads benchMemories anchored memories
// into its project; it returns the store and the memories' ids.
func anchorBench(b *testing.B) (*memory.Store, []string) {
	ctx := context.Background()
	db := pgtest.Open(b)
	emb := benchEmbedder(b)
	sum, err := index.New(db, emb).Index(ctx, indextest.Repo(b), index.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := mrand.New(mrand.NewPCG(1, 2))
	texts := make([]string, benchMemories)
	created := make([]time.Time, len(texts))
	now := time.Now()
	for i := range texts {
		texts[i] = benchText(r)
		created[i] = now.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		b.Fatal(err)
	}
	index := loadMemories(b, db, sum.RepositoryID, emb.Name(), texts, vecs, created)
	checkPlanUsesIndex(b, db, sum.RepositoryID, index, emb.Name(), vecs[0])
	// One anchor per memory, spread over the fixture's definitions.
	tag, err := db.Pool.Exec(ctx, `WITH d AS (
			SELECT path, qualified_name, kind, content_hash, content, row_number() OVER (ORDER BY path, start_line) - 1 AS n
			FROM symbols WHERE repository_id = $1 AND kind NOT IN ('module', 'part', 'block', 'field')),
		m AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM memories WHERE repository_id = $1)
		INSERT INTO memory_anchors (repository_id, memory_id, path, name, kind, content_hash, content)
		SELECT $1, m.id, d.path, d.qualified_name, d.kind, d.content_hash, d.content
		FROM m JOIN d ON d.n = m.n % (SELECT count(*) FROM d)`, sum.RepositoryID)
	if err != nil || tag.RowsAffected() != benchMemories {
		b.Fatalf("anchors: %d rows (%v)", tag.RowsAffected(), err)
	}
	if _, err := db.Pool.Exec(ctx, `ANALYZE memory_anchors`); err != nil {
		b.Fatal(err)
	}
	rows, err := db.Pool.Query(ctx, `SELECT id::text FROM memories WHERE repository_id = $1 ORDER BY id LIMIT 1000`, sum.RepositoryID)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	return memory.New(db, sum.RepositoryID, memory.Options{Embedder: emb}), ids
}

func benchAddAnchored(b *testing.B, s *memory.Store) {
	ctx := context.Background()
	r := mrand.New(mrand.NewPCG(3, 4))
	var ds []time.Duration
	anchors := 0
	i := 0
	for b.Loop() {
		text := fmt.Sprintf("%s See `%s`.", benchText(r), anchorBenchNames[i%len(anchorBenchNames)])
		start := time.Now()
		a, err := s.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "bench", Text: text})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		anchors += len(a.Memory.Anchors)
		i++
	}
	reportPercentiles(b, ds)
	b.ReportMetric(float64(anchors)/float64(len(ds)), "anchors/op")
	if anchors < len(ds) {
		b.Fatalf("%d anchors over %d adds: every memory names a definition", anchors, len(ds))
	}
}

func benchPinAnchors(b *testing.B, s *memory.Store, ids []string) {
	ctx := context.Background()
	r := mrand.New(mrand.NewPCG(5, 6))
	var ds []time.Duration
	i := 0
	for b.Loop() {
		text := fmt.Sprintf("%s See `%s`.", benchText(r), anchorBenchNames[i%len(anchorBenchNames)])
		start := time.Now()
		as, err := s.PinAnchorsForTest(ctx, ids[i%len(ids)], memory.NewMemory{Kind: memory.KindFact, Author: "bench", Text: text})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		if len(as) == 0 {
			b.Fatalf("%q pinned nothing", text)
		}
		i++
	}
	reportPercentiles(b, ds)
}
