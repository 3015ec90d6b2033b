package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/eval"
	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/search"
)

func newEvalCmd(g *globals) *cobra.Command {
	var queries string
	var baseline, perQuery bool
	var lexical, weights, tests, fusion, features, expand string
	var k, testFactor float64
	cmd := &cobra.Command{
		Use:   "eval --queries FILE",
		Short: "Measure retrieval on a query set: hit@k, recall, MRR, nDCG and latency per channel and query kind",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if queries == "" {
				return usagef("--queries FILE is required (JSON lines, see docs/ARCHITECTURE.md §7)")
			}
			for _, err := range []error{floatIn("k", k, 0, maxRRFK), floatIn("test-factor", testFactor, 0, 1), oneOf("lexical", lexical, lexicalScorers...),
				oneOf("tests", tests, graph.TestsValues...), oneOf("fusion", fusion, fusions...),
				oneOf("expand", expand, expandModes...)} {
				if err != nil {
					return err
				}
			}
			qs, err := eval.Load(queries)
			if err != nil {
				return err
			}
			root, emb, db, err := openForIndexing(ctx, g)
			if err != nil {
				return err
			}
			defer db.Close()
			// Index first (a no-op when the index is current).
			sum, err := index.New(db, emb).Index(ctx, root, index.Options{})
			if err != nil {
				return err
			}
			r := &eval.Runner{DB: db, RepoID: sum.RepositoryID, Searcher: search.New(db, sum.RepositoryID, emb), Lexical: lexical,
				Tests: graph.Tests(tests)}
			if r.Tune, err = tuneOptions(weights, k); err != nil {
				return err
			}
			r.Tune.TestFactor = testFactor
			r.Tune.Fusion, r.Tune.Expand = fusion, expand
			closeFeatures, err := openFeatures(features, &r.Features)
			if err != nil {
				return err
			}
			defer closeFeatures()
			if baseline {
				run, n, err := eval.WindowBaseline(ctx, db, sum.RepositoryID, root, emb)
				if err != nil {
					return err
				}
				if !g.json {
					fmt.Fprintf(os.Stderr, "baseline: %d fixed %d-token windows\n", n, eval.WindowTokens)
				}
				r.Extra = map[string]func(context.Context, eval.Query) ([]eval.Ranked, error){"window512-dense": run}
			}
			rep, err := r.Run(ctx, qs)
			if err != nil {
				return err
			}
			if !perQuery {
				rep.PerQuery = nil
			}
			if g.json {
				return json.NewEncoder(os.Stdout).Encode(rep)
			}
			printEvalReport(rep, root, emb.Name())
			return nil
		},
	}
	cmd.Flags().StringVar(&queries, "queries", "", "query file (JSON lines)")
	cmd.Flags().BoolVar(&baseline, "baseline", false, "also measure fixed 512-token windows with dense-only retrieval")
	cmd.Flags().StringVar(&lexical, "lexical", "", "lexical scorer: "+search.DefaultLexical+" (the default and, since migration 0018, the only one)")
	cmd.Flags().StringVar(&weights, "weights", "", "fusion weights for every search, e.g. dense=0.5,lexical=1 (default: by query kind)")
	cmd.Flags().Float64Var(&testFactor, "test-factor", 0, "score multiplier for tests, examples and prose (0 = the default)")
	cmd.Flags().Float64Var(&k, "k", 0, "RRF constant k for every search (0 = the default)")
	cmd.Flags().StringVar(&fusion, "fusion", "", "how a question is fused: learned (the built-in ranker) or rrf; default rrf unless the ranker is marked default (--weights or --k mean rrf)")
	cmd.Flags().StringVar(&expand, "expand", "", expandHelp)
	cmd.Flags().StringVar(&tests, "tests", "include", "graph questions: answers in test code include (listed), exclude or only")
	cmd.Flags().StringVar(&features, "features", "", "also write each question's ranker inputs (JSON lines) to this file")
	cmd.Flags().BoolVar(&perQuery, "per-query", false, "include each query's first correct rank per config (--json)")
	cmd.AddCommand(newEvalHistoryCmd(g))
	return cmd
}

// tuneOptions parses --weights and --k into the search options an evaluation
// runs with.
func tuneOptions(weights string, k float64) (search.Options, error) {
	opts := search.Options{K: k}
	if weights == "" {
		return opts, nil
	}
	w, err := parseWeights(weights)
	if err != nil {
		return opts, err
	}
	opts.Weights = w
	return opts, nil
}

// printGraphSets adds the whole-answer precision and recall of the graph
// questions (callers, callees, imports against their complete lists).
func printGraphSets(rep *eval.Report) {
	header := false
	for _, m := range rep.Results {
		if m.Precision == nil || m.Kind != "graph" {
			continue
		}
		if !header {
			fmt.Println("\ngraph answers as sets (micro-averaged over every link returned / expected):")
			fmt.Println("| config | n | precision | recall |")
			fmt.Println("|---|---|---|---|")
			header = true
		}
		fmt.Printf("| %s | %d | %.3f | %.3f |\n", m.Config, m.N, *m.Precision, *m.Recall)
	}
}

// printEvalReport prints the table of an eval run.
func printEvalReport(rep *eval.Report, root, model string) {
	fmt.Printf("%d queries on %s (%s)\n\n", rep.Queries, root, model)
	fmt.Println("| config | kind | n | hit@1 | hit@5 | recall@5 | recall@10 | MRR@10 | nDCG@10 | p50 ms | p95 ms |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range rep.Results {
		if slices.Contains(eval.GraphConfidenceConfigs, m.Config) {
			continue // set-only rows: printGraphSets
		}
		fmt.Printf("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n",
			m.Config, m.Kind, m.N, m.Hit1, m.Hit5, m.Recall5, m.Recall10, m.MRR10, m.NDCG10, m.P50MS, m.P95MS)
	}
	printGraphSets(rep)
}

// openFeatures creates --features FILE and points *w at it (nothing when path
// is empty); the returned function closes it.
func openFeatures(path string, w *io.Writer) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--features: %w", err)
	}
	*w = f
	return func() { f.Close() }, nil
}
