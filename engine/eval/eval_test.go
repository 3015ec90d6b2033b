package eval_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/eval"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
	goldenfile "github.com/spelunkhq/spelunk/internal/golden"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestReadRejectsBadLines(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"id":"x","kind":"nope","query":"q"}`, "unknown kind"},
		{`{"id":"x","kind":"graph","query":"q"}`, "needs anchor and relation"},
		{`{"id":"x","kind":"graph","query":"q","anchor":{"symbol":"A"},"relation":"siblings"}`, "unknown relation"},
		{`not json`, "x.jsonl:1"},
	} {
		_, err := eval.Read(strings.NewReader(tt.in), "x.jsonl")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.want)
		}
	}
	qs, err := eval.Read(strings.NewReader("\n// comment\n{\"kind\":\"semantic\",\"query\":\"q\",\"expect\":[],\"extra\":1}\n"), "x")
	if err != nil || len(qs) != 1 || qs[0].ID != "line-3" {
		t.Fatalf("got %+v, %v", qs, err)
	}
}

var update = flag.Bool("update", false, "rewrite "+rankingsGolden+" from this run")

// rankingsGolden records where each expected answer of the fixture eval ranked.
const rankingsGolden = "../../testdata/eval/fixture.rankings.golden"

// TestFixtureEval runs the committed query set: the README table comes from the same
// run with the GloVe embedder (spelunk eval); here the hashing embedder keeps the
// test independent of installed data. It checks floors and the fusion rule, and
// the ranking golden: where every expected answer ranked under every config, so
// that a change of weights or scoring is reviewed as a diff of ranks.
func TestFixtureEval(t *testing.T) {
	fx := indextest.FixtureOrdered(t)
	qs, err := eval.Load(filepath.Join(indextest.FixtureDir(), "..", "eval", "fixture.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 40 {
		t.Fatalf("%d queries, want >= 40", len(qs))
	}
	r := &eval.Runner{DB: fx.DB, RepoID: fx.RepoID, Searcher: search.New(fx.DB, fx.RepoID, fx.Emb)}
	rep, err := r.Run(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	var golden strings.Builder
	fmt.Fprintf(&golden, "# Ranking golden: testdata/eval/fixture.jsonl on testdata/fixture, hashing embedder (%d dims).\n", fx.Emb.Dims())
	fmt.Fprintf(&golden, "# Rank of the first correct item and of each expected answer in the top 10, per config (- = absent).\n\n")
	if err := eval.WriteRankings(&golden, rep); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, rankingsGolden, golden.String(), *update, "go test ./engine/eval -run TestFixtureEval -update")
	get := func(config, kind string) eval.Metrics {
		for _, m := range rep.Results {
			if m.Config == config && m.Kind == kind {
				return m
			}
		}
		t.Fatalf("no row %s/%s", config, kind)
		return eval.Metrics{}
	}
	for _, kind := range []string{"semantic", "identifier", "graph"} {
		h := get("hybrid", kind)
		best := 0.0
		for _, c := range []string{"lexical", "dense", "symbol", "graph"} {
			best = math.Max(best, get(c, kind).Hit5)
		}
		t.Logf("%-10s hybrid hit@5 %.3f, best single channel %.3f", kind, h.Hit5, best)
		if h.Hit5 < best {
			t.Errorf("%s: hybrid hit@5 %.3f is below the best single channel %.3f", kind, h.Hit5, best)
		}
	}
	if id := get("hybrid", "identifier"); id.Hit1 < 0.9 {
		t.Errorf("identifier hit@1 %.3f < 0.9", id.Hit1)
	}
	if g := get("graph", "graph"); g.Recall10 < 0.95 {
		t.Errorf("graph recall@10 %.3f < 0.95", g.Recall10)
	}
}
