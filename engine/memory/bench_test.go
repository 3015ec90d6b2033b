package memory_test

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// benchMemories is the size of the project the benchmarks run against.
const benchMemories = 50_000

var (
	benchServices = []string{"payments", "search", "billing", "auth", "gateway", "importer", "notifier", "scheduler",
		"reports", "ledger", "checkout", "catalog", "inventory", "shipping", "analytics", "webhooks"}
	benchThings = []string{"cache", "queue", "database", "worker pool", "rate limiter", "retry policy", "feature flag",
		"connection pool", "session store", "job runner", "metrics exporter", "log shipper"}
	benchTemplates = []string{
		"The %s service's %s listens on port %d.",
		"The %s service keeps its %s for %d minutes.",
		"Always restart the %s %s after %d failed health checks.",
		"The %s %s is not enabled in production since release %d.",
		"We decided the %s service uses the %s with %d replicas.",
		"Deployed the %s %s fix to staging on day %d.",
	}
)

func benchText(r *mrand.Rand) string {
	return fmt.Sprintf(benchTemplates[r.IntN(len(benchTemplates))],
		benchServices[r.IntN(len(benchServices))], benchThings[r.IntN(len(benchThings))], 1+r.IntN(9000))
}

// benchEmbedder is the embedder spelunk uses by default: GloVe when installed,
// else hashing.
func benchEmbedder(b *testing.B) memory.Embedder {
	e, err := embed.FromConfig(embed.Config{Provider: embed.ProviderAuto})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// benchStore builds a project of benchMemories memories spread over the last year.
func benchStore(b *testing.B) (*memory.Store, *pg.DB) {
	b.Helper()
	ctx := context.Background()
	db := pgtest.Open(b)
	emb := benchEmbedder(b)
	repo, err := db.EnsureRepository(ctx, "/projects/bench")
	if err != nil {
		b.Fatal(err)
	}
	s := memory.New(db, repo.ID, memory.Options{Embedder: emb})
	start := time.Now()
	r := mrand.New(mrand.NewPCG(1, 2))
	texts := make([]string, benchMemories)
	for i := range texts {
		texts[i] = benchText(r)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		b.Fatal(err)
	}
	created := make([]time.Time, len(texts))
	now := time.Now()
	for i := range created {
		created[i] = now.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
	}
	index := loadMemories(b, db, repo.ID, emb.Name(), texts, vecs, created)
	checkPlanUsesIndex(b, db, repo.ID, index, emb.Name(), vecs[0])
	for i := range 20 {
		if _, err := s.SetNugget(ctx, memory.NuggetWrite{Key: fmt.Sprintf("nugget.%02d", i), Value: "value", Author: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.SetState(ctx, memory.NewState{Summary: "benchmarking", Blockers: []string{"none"}, Author: "bench"}); err != nil {
		b.Fatal(err)
	}
	b.Logf("fixture: %d memories embedded with %s and loaded in %s", benchMemories, emb.Name(), time.Since(start).Round(time.Millisecond))
	return s, db
}

// reportPercentiles reports p50 and p95 of per-iteration durations.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	pct := func(p float64) float64 {
		i := min(len(ds)-1, int(p*float64(len(ds))))
		return float64(ds[i].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}

// BenchmarkBriefing measures a briefing with a query over 50k memories (target p95
// < 30 ms, docs/ARCHITECTURE.md §10): embedding the query plus the one-statement briefing.
// Percentiles need many iterations: run with -benchtime=500x or more.
func BenchmarkBriefing(b *testing.B) {
	s, _ := benchStore(b)
	ctx := context.Background()
	queries := []string{"which port does the gateway listen on", "payments cache retention", "restart after failed health checks",
		"is the feature flag enabled in production", "how many replicas does search use", "what was deployed to staging",
		"rate limiter for checkout", "ledger database connection pool"}
	var ds []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		br, err := s.Briefing(ctx, memory.BriefingOptions{Query: queries[i%len(queries)]})
		if err != nil {
			b.Fatal(err)
		}
		if len(br.Memories) == 0 || br.Ranking != "similarity" {
			b.Fatalf("empty briefing: %+v", br)
		}
		ds = append(ds, time.Since(start))
		i++
	}
	reportPercentiles(b, ds)
}

// BenchmarkBriefingRecent is the briefing without a query.
func BenchmarkBriefingRecent(b *testing.B) {
	s, _ := benchStore(b)
	ctx := context.Background()
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := s.Briefing(ctx, memory.BriefingOptions{}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
}

// BenchmarkAddWithConflictCheck measures Store.Add in a project of 50k memories
// (target p95 < 50 ms): embedding, insert, HNSW candidate pool, judge, and the
// conflict bookkeeping when the new memory contradicts others (most do: the texts
// come from the fixture's templates with other values).
func BenchmarkAddWithConflictCheck(b *testing.B) {
	s, db := benchStore(b)
	ctx := context.Background()
	r := mrand.New(mrand.NewPCG(3, 4))
	var ds []time.Duration
	conflicts := 0
	for b.Loop() {
		text := benchText(r)
		start := time.Now()
		a, err := s.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "bench", Text: text})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		if a.ConflictID != "" {
			conflicts++
		}
	}
	reportPercentiles(b, ds)
	b.ReportMetric(float64(conflicts)/float64(len(ds)), "conflicts/op")
	var open, biggest int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*), coalesce(max(cardinality(memory_ids)), 0)
		FROM conflicts WHERE status = 'open'`).Scan(&open, &biggest); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d open conflicts after the run, the largest with %d memories", open, biggest)
}

// checkPlanUsesIndex fails the benchmark when the briefing and the conflict check do
// not find their candidates through the model's HNSW index: at 50k memories an
// exact scan would still look fast, and hide the regression.
func checkPlanUsesIndex(b testing.TB, db *pg.DB, project int64, index, model string, vec []float32) {
	b.Helper()
	ctx := context.Background()
	for name, sql := range map[string]string{
		"briefing":       memory.BriefingSimilarSQL(model, len(vec), true),
		"conflict check": memory.CandidatesSQL(model, len(vec), true),
	} {
		args := []any{project, pgvector.NewVector(vec), 10, 86400.0}
		if name == "conflict check" {
			args = []any{project, pgvector.NewVector(vec), 0.5, "00000000-0000-0000-0000-000000000000", []string{}, "x"}
		}
		rows, err := db.Pool.Query(ctx, "EXPLAIN "+sql, args...)
		if err != nil {
			b.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			b.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, index) {
			b.Fatalf("%s does not use the HNSW index %s:\n%s", name, index, plan)
		}
		// The unindexed vectors (a pushed run's, delta.go) through their own
		// partial index, never a scan of the project's vectors.
		if !strings.Contains(plan, "memory_embeddings_delta_idx") {
			b.Fatalf("%s does not read the unindexed vectors through memory_embeddings_delta_idx:\n%s", name, plan)
		}
	}
}
