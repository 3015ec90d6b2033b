package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
)

// BenchmarkSearchWhileIndexing measures hybrid search over one repository
// alone, then while a first index of a second repository (a clone of the
// first under another root) runs in the same database (issue 13: within 2x).
// The repository is a corpus of SPELUNK_BENCH_SEARCH_LINES lines of
// $GOROOT/src as in BenchmarkSearch50k, or, to skip its first index, the
// repository at SPELUNK_BENCH_BUSY_ROOT already indexed in the database
// SPELUNK_BENCH_BUSY_DB names.
func BenchmarkSearchWhileIndexing(b *testing.B) {
	ctx := context.Background()
	emb := embedder(b)
	db, root, repoID := busyRepository(b, emb)
	names := sampleNames(b, db, repoID, 40)
	s := search.New(db, repoID, emb)
	query := func(i int) error {
		q := benchQuestions[i%len(benchQuestions)]
		if i%2 == 1 {
			q = names[i%len(names)]
		}
		_, err := s.Search(ctx, q, search.Options{})
		return err
	}
	for i := range 40 { // warm the caches and the embedder
		if err := query(i); err != nil {
			b.Fatal(err)
		}
	}
	second := filepath.Join(b.TempDir(), "second")
	indextest.Git(b, b.TempDir(), "clone", "-q", "--no-hardlinks", root, second)
	b.ResetTimer()
	for b.Loop() {
		alone := latencies(b, 200, query)

		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := index.New(db, emb).Index(runCtx, second, index.Options{})
			done <- err
		}()
		time.Sleep(3 * time.Second) // past listing, into parsing and writing
		busy := latencies(b, 200, query)
		select {
		case err := <-done:
			b.Logf("the second index ended before the searches did (err %v): the busy figures are partly idle", err)
		default:
		}
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			b.Fatalf("second index: %v", err)
		}
		b.ReportMetric(ms(alone[len(alone)/2]), "alone_p50_ms")
		b.ReportMetric(ms(alone[len(alone)*95/100]), "alone_p95_ms")
		b.ReportMetric(ms(busy[len(busy)/2]), "indexing_p50_ms")
		b.ReportMetric(ms(busy[len(busy)*95/100]), "indexing_p95_ms")
		b.ReportMetric(float64(busy[len(busy)*95/100])/float64(alone[len(alone)*95/100]), "p95_ratio")
	}
}

// BenchmarkSearchChannels measures the lexical channel alone and the whole
// hybrid search, one search after another, over the question/name mix of
// BenchmarkSearchWhileIndexing on the same repository (SPELUNK_BENCH_BUSY_DB
// and SPELUNK_BENCH_BUSY_ROOT name an index to measure, e.g. one of all of
// $GOROOT/src made by each of two builds). Lexical alone isolates BM25's
// reading of the postings (migration 0017); literal alone the phrase check,
// over the mix and pasted error messages, whose words it intersects in the
// postings (migration 0018).
func BenchmarkSearchChannels(b *testing.B) {
	ctx := context.Background()
	emb := benchEmbedder(b)
	db, _, repoID := busyRepository(b, emb)
	queries := append(append([]string{}, benchQuestions...), sampleNames(b, db, repoID, 40)...)
	s := search.New(db, repoID, emb)
	modes := []struct {
		name    string
		opts    search.Options
		queries []string
	}{
		{"lexical", search.Options{Channels: []search.Channel{search.Lexical}}, queries},
		{"literal", search.Options{Channels: []search.Channel{search.Literal}}, append(append([]string{}, queries...), benchMessages...)},
		{"hybrid", search.Options{}, queries},
		// The learned expansion of a question's words (search/expand.go), on.
		{"lexical_expand", search.Options{Channels: []search.Channel{search.Lexical}, Expand: search.ExpandOn}, queries},
		{"hybrid_expand", search.Options{Expand: search.ExpandOn}, queries},
		{"issue5k", search.Options{}, issueTexts(b, db, repoID, 20)},
	}
	only := os.Getenv("SPELUNK_BENCH_MODES") // e.g. "hybrid,issue5k": those modes alone
	for b.Loop() {
		for _, m := range modes {
			if only != "" && !slices.Contains(strings.Split(only, ","), m.name) {
				continue
			}
			// Each channel's own times too (SPELUNK_BENCH_MODES set): which one
			// a slow search waited for.
			perChannel := map[search.Channel][]time.Duration{}
			query := func(i int) error {
				resp, err := s.Search(ctx, m.queries[i%len(m.queries)], m.opts)
				if err == nil {
					for c, d := range resp.Timings {
						perChannel[c] = append(perChannel[c], d)
					}
				}
				return err
			}
			for i := range m.queries { // warm the caches and the embedder
				if err := query(i); err != nil {
					b.Fatal(err)
				}
			}
			clear(perChannel)
			d := latencies(b, 400, query)
			b.ReportMetric(ms(d[len(d)/2]), m.name+"_p50_ms")
			b.ReportMetric(ms(d[len(d)*95/100]), m.name+"_p95_ms")
			b.ReportMetric(ms(d[len(d)*99/100]), m.name+"_p99_ms")
			for c, ds := range perChannel {
				if only != "" {
					slices.Sort(ds)
					b.ReportMetric(ms(ds[len(ds)*95/100]), fmt.Sprintf("%s_%s_p95_ms", m.name, c))
				}
			}
		}
	}
}

// busyRepository is the indexed repository the benchmark searches: its
// database, root and id.
func busyRepository(b *testing.B, emb index.Embedder) (*pg.DB, string, int64) {
	ctx := context.Background()
	if url, root := os.Getenv("SPELUNK_BENCH_BUSY_DB"), os.Getenv("SPELUNK_BENCH_BUSY_ROOT"); url != "" && root != "" {
		db, err := pg.Open(ctx, pg.Options{URL: url, Tenant: pg.DefaultTenant})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(db.Close)
		rec, err := db.RepositoryByRoot(ctx, root)
		if err != nil {
			b.Fatal(err)
		}
		return db, root, rec.ID
	}
	root, _ := corpus(b, searchLines())
	db := pgtest.Open(b)
	sum, err := index.New(db, emb).Index(ctx, root, index.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return db, root, sum.RepositoryID
}

// latencies runs f n times one after another and returns the sorted times.
func latencies(b *testing.B, n int, f func(i int) error) []time.Duration {
	durs := make([]time.Duration, 0, n)
	for i := range n {
		t := time.Now()
		if err := f(i); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t))
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	return durs
}

// benchMessages are error messages as a user pastes them, each a string of
// $GOROOT/src (the default corpus): what the literal channel is for.
var benchMessages = []string{
	"use of closed network connection", "bufio: buffer full", "json: cannot unmarshal",
	"strings.Builder.Grow: negative count", "http: request body too large", "zip: not a valid zip file",
	"sql: no rows in result set", "malformed MIME header line", "missing port in address",
	"sync: negative WaitGroup counter", "gzip: invalid header", "context deadline exceeded",
}
