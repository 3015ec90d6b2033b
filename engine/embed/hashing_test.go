package embed

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// edgeTexts are inputs every embedder must turn into finite unit vectors.
var edgeTexts = []string{
	"",
	" ",
	"\n\t",
	"{}",
	"== != <=",
	"the",
	"func return if",
	"a\xff\xfe\xc3b",
	"\xff\xff\xff",
	"日本語のテキスト",
	strings.Repeat("x", 1<<20), // one enormous token
	strings.Repeat("refund the customer ", 100000),    // ~2 MB of words
	strings.Repeat("é", 200000) + "\xc3",              // long non-ASCII ending in a broken rune
	strings.Repeat("isEligibleForRefund(ctx) ", 5000), // repeated identifier
}

func checkUnit(t *testing.T, name string, vecs [][]float32, dims int) {
	t.Helper()
	for i, v := range vecs {
		if len(v) != dims {
			t.Errorf("%s: vector %d has %d dims, want %d", name, i, len(v), dims)
			continue
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Errorf("%s: vector %d is not finite", name, i)
				break
			}
		}
		if n := norm(v); math.Abs(n-1) > 1e-4 {
			t.Errorf("%s: vector %d has norm %v, want 1", name, i, n)
		}
	}
}

func TestHashingNameDims(t *testing.T) {
	tests := []struct {
		dims     int
		wantDims int
		wantName string
	}{
		{0, 384, "spelunk-hash-384-v1"},
		{-5, 384, "spelunk-hash-384-v1"},
		{256, 256, "spelunk-hash-256-v1"},
		{1, 1, "spelunk-hash-1-v1"},
	}
	for _, tt := range tests {
		h := NewHashing(tt.dims)
		if h.Dims() != tt.wantDims || h.Name() != tt.wantName {
			t.Errorf("NewHashing(%d): Dims %d, Name %q; want %d, %q", tt.dims, h.Dims(), h.Name(), tt.wantDims, tt.wantName)
		}
	}
}

func TestHashingEdgeInputs(t *testing.T) {
	for _, dims := range []int{1, 7, 384} {
		h := NewHashing(dims)
		vecs, err := h.Embed(context.Background(), edgeTexts)
		if err != nil {
			t.Fatal(err)
		}
		checkUnit(t, h.Name(), vecs, dims)
	}
	got, err := NewHashing(0).Embed(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want empty, nil", got, err)
	}
}

func TestHashingDeterministic(t *testing.T) {
	h := NewHashing(0)
	texts := []string{"isEligibleForRefund", "parse the CSV header", "", "isEligibleForRefund"}
	a, _ := h.Embed(context.Background(), texts)
	b, _ := NewHashing(0).Embed(context.Background(), texts[:1])
	if dot(a[0], a[3]) < 0.99999 || dot(a[0], b[0]) < 0.99999 {
		t.Errorf("same text embedded differently")
	}
	if dot(a[0], a[1]) > 0.5 {
		t.Errorf("unrelated texts too similar: %v", dot(a[0], a[1]))
	}
}

func TestHashingSimilarity(t *testing.T) {
	h := NewHashing(0)
	tests := []struct{ a, near, far string }{
		// Identifier splitting: the camelCase name matches its words.
		{"isEligibleForRefund", "is the order eligible for a refund", "parse the CSV header"},
		// Trigrams: inflections share most character trigrams.
		{"refunding payments", "refunded payment", "rendering widgets"},
		// Pairs: word order matters a little.
		{"user account delete", "delete user account", "account user delete now please thanks"},
		{"HTTPServer", "http server", "database connection pool"},
	}
	for _, tt := range tests {
		v, err := h.Embed(context.Background(), []string{tt.a, tt.near, tt.far})
		if err != nil {
			t.Fatal(err)
		}
		if near, far := dot(v[0], v[1]), dot(v[0], v[2]); near <= far {
			t.Errorf("sim(%q, %q) = %.3f, want > sim(%q, %q) = %.3f", tt.a, tt.near, near, tt.a, tt.far, far)
		}
	}
}

func TestHashingContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewHashing(0).Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with canceled ctx: err = %v, want context.Canceled", err)
	}
}

func TestHashingConcurrent(t *testing.T) {
	h := NewHashing(0)
	texts := []string{"alpha beta", "gammaDelta", "", "epsilon_zeta 42"}
	want, _ := h.Embed(context.Background(), texts)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				got, err := h.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range got {
					if dot(got[i], want[i]) < 0.99999 {
						t.Errorf("concurrent Embed(%q) differs", texts[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// shortTexts are typical short inputs: symbol names, signatures, queries.
var shortTexts = []string{
	"func (s *Server) handleRefund(ctx context.Context, id string) error",
	"isEligibleForRefund checks the order window",
	"parse the CSV header row",
	"HTTPServer2 listens on a unix socket",
	"where do we retry failed payments",
	"class UserRepository(BaseRepository):",
	"const maxRetryCount = 5",
	"send an email notification to the customer",
}

func BenchmarkHashingEmbed(b *testing.B) {
	runEmbedBenchmarks(b, NewHashing(0), fixtureWords())
}

// runEmbedBenchmarks measures e on three workloads, in batches of 256:
// short code-like texts, 8-word texts drawn from vocab with a Zipf law
// (realistic cache behaviour over a large vocabulary), and 40-line chunks.
func runEmbedBenchmarks(b *testing.B, e Embedder, vocab []string) {
	rng := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(rng, 1.1, 10, uint64(len(vocab)-1))
	var zipfTexts []string
	for range 4096 {
		words := make([]string, 8)
		for i := range words {
			words[i] = vocab[zipf.Uint64()]
		}
		zipfTexts = append(zipfTexts, strings.Join(words, " "))
	}
	chunk := strings.Repeat(strings.Join(shortTexts, "\n")+"\n", 5) // 40 lines, ~1.9 KB
	workloads := []struct {
		name  string
		texts []string
	}{
		{"short", shortTexts},
		{"zipf8", zipfTexts},
		{"chunk40", []string{chunk}},
	}
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) { benchEmbed(b, e, w.texts) })
	}
}

// benchEmbed embeds batches of 256 texts cycling through texts and reports
// texts/s.
func benchEmbed(b *testing.B, e Embedder, texts []string) {
	ctx := context.Background()
	batch := make([]string, 256)
	next := 0
	b.ReportAllocs()
	for b.Loop() {
		for i := range batch {
			batch[i] = texts[next%len(texts)]
			next++
		}
		if _, err := e.Embed(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "texts/s")
}
