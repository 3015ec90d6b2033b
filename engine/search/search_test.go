package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestIdentifierQueriesPutExactHitsFirst(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	tests := []struct{ query, wantPath, wantName string }{
		{"IsEligibleForRefund", "billing/refund.go", "IsEligibleForRefund"},
		{"is_eligible_for_refund", "py/shop/billing/refunds.py", "is_eligible_for_refund"},
		{"res.send", "js/lib/response.js", "send"},
		{"Cart.Add", "cart/cart.go", "Add"},
		{"slidingwindowlimiter", "js/lib/ratelimit.js", "SlidingWindowLimiter"},
		{"res.contentType", "js/lib/response.js", "type"},
		{"NewLimitr", "internal/ratelimit/limiter.go", "NewLimiter"}, // trigram near miss
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp, err := s.Search(context.Background(), tt.query, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Kind != Identifier {
				t.Errorf("kind %s, want identifier", resp.Kind)
			}
			if len(resp.Results) == 0 {
				t.Fatal("no results")
			}
			got := resp.Results[0]
			if got.Path != tt.wantPath || got.Name != tt.wantName {
				t.Fatalf("top result %s:%s, want %s:%s", got.Path, got.Name, tt.wantPath, tt.wantName)
			}
		})
	}
}

func TestExplainAddsUp(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	resp, err := s.Search(context.Background(), "retry a failed call with exponential backoff", Options{K: 30})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != Semantic || len(resp.Results) == 0 {
		t.Fatalf("kind %s, %d results", resp.Kind, len(resp.Results))
	}
	for i, r := range resp.Results {
		if r.Rank != i+1 {
			t.Errorf("rank %d at position %d", r.Rank, i+1)
		}
		sum := 0.0
		for c, cs := range r.Explain.Channels {
			want := resp.Weights[c] / (30 + float64(cs.Rank))
			if math.Abs(cs.Contribution-want) > 1e-12 {
				t.Errorf("%s: %s contribution %g, want %g", r.QualifiedName, c, cs.Contribution, want)
			}
			sum += cs.Contribution
		}
		if math.Abs(sum-r.Explain.Fused) > 1e-12 {
			t.Errorf("%s: fused %g, contributions sum to %g", r.QualifiedName, r.Explain.Fused, sum)
		}
		final := (r.Explain.Fused + r.Explain.Boost) * r.Explain.TestFactor * r.Explain.Decay
		if math.Abs(final-r.Explain.Final) > 1e-12 || r.Score != r.Explain.Final {
			t.Errorf("%s: final %g, score %g, recomputed %g", r.QualifiedName, r.Explain.Final, r.Score, final)
		}
		if i > 0 && r.Score > resp.Results[i-1].Score {
			t.Errorf("results out of order at %d", i+1)
		}
		if r.IsTest && r.Explain.TestFactor != defaultTestFactor {
			t.Errorf("%s is a test file but has test factor %g", r.Path, r.Explain.TestFactor)
		}
	}
}

func TestChannelsAndWeightsAreSettable(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	resp, err := s.Search(context.Background(), "invoice total with tax", Options{Channels: []Channel{Lexical}, Weights: map[Channel]float64{Lexical: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp.Results {
		if len(r.Explain.Channels) != 1 || r.Explain.Channels[Lexical].Rank == 0 {
			t.Fatalf("%s explained by %v, want the lexical channel only", r.QualifiedName, r.Explain.Channels)
		}
	}
	if resp.Weights[Lexical] != 2 || len(resp.Weights) != 1 {
		t.Fatalf("weights %v", resp.Weights)
	}
	// The graph channel alone finds neighbours of the best anchors.
	resp, err = s.Search(context.Background(), "IssueRefund", Options{Channels: []Channel{Graph}})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, r := range resp.Results {
		names[r.Name] = true
	}
	if !names["IsEligibleForRefund"] || !names["Do"] {
		t.Fatalf("graph channel from IssueRefund returned %v", names)
	}
}

func TestBadQueries(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	ctx := context.Background()
	for _, q := range []string{"", "   ", "?!.,;:()", "---"} {
		if _, err := s.Search(ctx, q, Options{}); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("%q: got %v, want ErrEmptyQuery", q, err)
		}
	}
	long := strings.Repeat("refund invoice tax ", 600) // ~11 KB
	for _, q := range []string{long, "'", "a & b", "a | b", "!refund", "refund:*", `back\slash`,
		"'); DROP TABLE symbols; --", "払い戻し 請求書", "Ünïcödé naïve café", "(((", "a <-> b"} {
		resp, err := s.Search(ctx, q, Options{})
		if err != nil && !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("%.40q: %v", q, err)
			continue
		}
		if err == nil && len(resp.Unavailable) > 0 {
			t.Errorf("%.40q: channels failed: %v", q, resp.Unavailable)
		}
	}
	var n int
	if err := fx.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("symbols table after hostile queries: %d, %v", n, err)
	}
}

type downEmbedder struct{ *embed.Hashing }

func (downEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("dial: %w", embed.ErrUnavailable)
}

func TestEmbedderDownKeepsOtherChannels(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, downEmbedder{fx.Emb.(*embed.Hashing)})
	resp, err := s.Search(context.Background(), "IsEligibleForRefund", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, down := resp.Unavailable[Dense]; !down {
		t.Fatal("the dense channel should be reported unavailable")
	}
	if len(resp.Results) == 0 || resp.Results[0].Name != "IsEligibleForRefund" {
		t.Fatalf("the other channels should still answer: %+v", resp.Results)
	}
}

// A repository that was never indexed is an error that says so, not an empty
// answer (issue 11.6).
func TestUnindexedRepositorySaysSo(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID+1000, fx.Emb)
	resp, err := s.Search(context.Background(), "refund", Options{})
	if err == nil {
		t.Fatalf("no error from a repository that does not exist (%d results)", len(resp.Results))
	}
	if !strings.Contains(err.Error(), "not indexed") {
		t.Fatalf("the error does not say the repository is not indexed: %v", err)
	}
}

func TestNearDuplicatesArePrunedAndBudgetPacks(t *testing.T) {
	db := pgtest.Open(t)
	root := indextest.Repo(t)
	// Two copies of the same function in different files.
	src, err := os.ReadFile(filepath.Join(root, "internal/retry/backoff.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "internal/retry2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "internal/retry2/backoff.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	indextest.Git(t, root, "add", "-A")
	indextest.Git(t, root, "commit", "-q", "-m", "copy")
	emb := indextest.Embedder()
	sum, err := index.New(db, emb).Index(context.Background(), root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, sum.RepositoryID, emb)
	resp, err := s.Search(context.Background(), "Backoff", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pruned *Pruned
	for i, p := range resp.Pruned {
		if p.Name == "retry.Backoff" && strings.Contains(p.Reason, "near-duplicate") {
			pruned = &resp.Pruned[i]
		}
	}
	if pruned == nil {
		t.Fatalf("no near-duplicate pruned: results %d, pruned %+v", len(resp.Results), resp.Pruned)
	}
	for _, r := range resp.Results {
		if r.ID == pruned.DuplicateOf {
			goto found
		}
	}
	t.Fatal("the kept copy is not among the results")
found:

	// Budget: whole symbols only; an oversized first result is cut and marked.
	resp, err = s.Search(context.Background(), "retry with backoff", Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, r := range resp.Results {
		total += r.Tokens
		if r.Truncated && i != 0 {
			t.Errorf("result %d truncated: only the first may be", i+1)
		}
	}
	if total > 300 {
		t.Fatalf("packed %d tokens into a budget of 300", total)
	}
	resp, err = s.Search(context.Background(), "Do", Options{Budget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 || !resp.Results[0].Truncated {
		t.Fatalf("a tiny budget keeps one cut result, got %d (truncated %v)", len(resp.Results), len(resp.Results) > 0 && resp.Results[0].Truncated)
	}
	cut := false
	for _, p := range resp.Pruned {
		cut = cut || strings.HasPrefix(p.Reason, "over budget")
	}
	if !cut {
		t.Fatal("items cut by the budget are listed with the reason")
	}
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		q    string
		kind QueryKind
		ids  []string
	}{
		{"isEligibleForRefund", Identifier, []string{"isEligibleForRefund"}},
		{"res.send", Identifier, []string{"res.send"}},
		{"Engine.Run", Identifier, []string{"Engine.Run"}},
		{"refund", Identifier, []string{"refund"}},
		{"how are refunds validated", Semantic, nil},
		{"where is parseConfig called", Semantic, []string{"parseConfig"}},
		{"get the value from the request context", Semantic, nil},
	}
	for _, tt := range tests {
		p := analyze(tt.q, "")
		if p.kind != tt.kind || fmt.Sprint(p.identifiers) != fmt.Sprint(tt.ids) {
			t.Errorf("%q: kind %s ids %v, want %s %v", tt.q, p.kind, p.identifiers, tt.kind, tt.ids)
		}
	}
}

func TestBM25Scorer(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	ctx := context.Background()
	resp, err := s.Search(ctx, "eligible for refund", Options{Lexical: "bm25", Channels: []Channel{Lexical}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 {
		t.Fatal("no results")
	}
	top := map[string]bool{}
	for _, r := range resp.Results[:min(3, len(resp.Results))] {
		top[r.Name] = true
	}
	if !top["IsEligibleForRefund"] && !top["is_eligible_for_refund"] {
		t.Fatalf("bm25 top 3 %v lack the eligibility checks", top)
	}
	for i := 1; i < len(resp.Results); i++ {
		if resp.Results[i].Explain.Channels[Lexical].Score > resp.Results[i-1].Explain.Channels[Lexical].Score {
			t.Fatalf("bm25 scores out of order at %d", i+1)
		}
	}
	for _, q := range []string{"'", "a & b | !c", "払い戻し", strings.Repeat("x", 5000)} {
		if _, err := s.Search(ctx, q, Options{Lexical: "bm25"}); err != nil && !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("%.20q: %v", q, err)
		}
	}
	if _, err := s.Search(ctx, "refund", Options{Lexical: "okapi", Channels: []Channel{Lexical}}); err == nil {
		t.Error("an unknown scorer must be an error")
	}
}
