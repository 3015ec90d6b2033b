package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/eval"
)

func newEvalHistoryCmd(g *globals) *cobra.Command {
	var opts eval.HistoryOptions
	var features string
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Benchmark file and function localisation on the repository's own commits",
		Long: "Turn the repository's git history into localisation queries: each small first-parent commit that\n" +
			"changes existing source files becomes a query (its message, trailers and issue numbers removed)\n" +
			"whose answers are the files and definitions it changed. The index is built at each commit's parent\n" +
			"under a separate key (ROOT" + eval.HistoryKeySuffix + "), oldest first and incrementally, so your own index is\n" +
			"untouched. Scores are strict: a query hits at k when all min(k, |gold|) gold items are in the top k.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if opts.Baseline != "" && opts.Baseline != "bm25" {
				return usagef("--baseline %q: the only baseline is bm25", opts.Baseline)
			}
			// 0 is no default here (the flags' defaults are 150 and 5): the engine
			// would have replaced it by one silently.
			if err := oneOf("fusion", opts.Fusion, fusions...); err != nil {
				return err
			}
			if opts.Commits < 1 || opts.MaxFiles < 1 {
				return usagef("--commits and --max-files must be at least 1 (got %d and %d)", opts.Commits, opts.MaxFiles)
			}
			root, emb, db, err := openForIndexing(ctx, g)
			if err != nil {
				return err
			}
			defer db.Close()
			closeFeatures, err := openFeatures(features, &opts.Features)
			if err != nil {
				return err
			}
			defer closeFeatures()
			tty := isatty.IsTerminal(os.Stderr.Fd()) && !g.json
			if tty {
				opts.Progress = printHistoryProgress()
			}
			rep, err := eval.RunHistory(ctx, db, emb, root, opts)
			if tty {
				statusLine("")
			}
			if err != nil {
				if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
					return fmt.Errorf("eval history: %w (the history index is kept; a re-run continues from it)", err)
				}
				return err
			}
			if g.json {
				return json.NewEncoder(os.Stdout).Encode(rep)
			}
			printHistoryReport(rep, emb.Name())
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Commits, "commits", 150, "queries: the newest N qualifying commits")
	f.StringVar(&opts.Since, "since", "", "only commits after this revision")
	f.IntVar(&opts.MaxFiles, "max-files", 5, "skip commits that change more files than this")
	f.StringVar(&opts.Baseline, "baseline", "", "also score a baseline: bm25 (plain BM25 over whole files)")
	f.BoolVar(&opts.PerQuery, "per-query", false, "include each query's gold and first gold-file rank per config (--json)")
	f.StringVar(&opts.Fusion, "fusion", "", "how a question is fused: learned (the built-in ranker) or rrf; default rrf unless the ranker is marked default (--weights or --k mean rrf)")
	f.StringVar(&features, "features", "", "also write the ranker's training data (JSON lines) to this file")
	return cmd
}

// printHistoryProgress draws one status line: commit i/N, phase, elapsed and ETA.
func printHistoryProgress() func(eval.HistoryProgress) {
	last := time.Time{}
	return func(p eval.HistoryProgress) {
		if p.Index != nil && time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		line := fmt.Sprintf("commit %d/%d %s  %s", p.Step, p.Total, shortRev(p.Commit), p.Phase)
		if p.Total == 0 {
			line = p.Phase + " commits"
		}
		if ip := p.Index; ip != nil && ip.FilesTotal > 0 {
			line += fmt.Sprintf(" (%s %d/%d files)", ip.Phase, ip.FilesDone, ip.FilesTotal)
		}
		statusLine(clipColumns(line+"  elapsed "+p.Elapsed.Round(time.Second).String()+etaSuffix(p.ETA), terminalWidth(os.Stderr)-1))
	}
}

func printHistoryReport(rep *eval.HistoryReport, model string) {
	fmt.Printf("%d queries from %d commits of %s (%s)\n", rep.Queries, rep.CommitsConsidered, rep.Repository, model)
	if len(rep.Skipped) > 0 {
		keys := make([]string, 0, len(rep.Skipped))
		for k := range rep.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, rep.Skipped[k])
		}
		fmt.Printf("skipped: %s\n", strings.Join(parts, ", "))
	}
	fmt.Println()
	fmt.Println("| config | n | file@1 | file@3 | file@5 | file@10 | MRR | fn n | fn@5 | fn@10 | p50 ms | p95 ms |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	opt := func(x *float64) string {
		if x == nil {
			return "-"
		}
		return fmt.Sprintf("%.3f", *x)
	}
	for _, m := range rep.Results {
		fn := fmt.Sprint(m.FunctionN)
		if m.Function5 == nil {
			fn = "-"
		}
		fmt.Printf("| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s | %.2f | %.2f |\n",
			m.Config, m.N, m.File1, m.File3, m.File5, m.File10, m.MRR, fn, opt(m.Function5), opt(m.Function10), m.P50MS, m.P95MS)
	}
}
