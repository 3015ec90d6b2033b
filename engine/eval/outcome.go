package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

func newOutcome(q Query) QueryOutcome {
	out := QueryOutcome{ID: q.ID, Kind: q.Kind, Query: q.Query, Ranks: map[string]int{}}
	for _, e := range q.Expect {
		out.Answers = append(out.Answers, AnswerRanks{Expect: e, Ranks: map[string]int{}})
	}
	return out
}

// record notes one config's outcome: the first correct rank and, for each
// expected answer, the rank of the first item matching it in the top 10 (the
// window the metrics score).
func (o *QueryOutcome) record(cfg string, first int, items []Ranked, expect []Expect) {
	o.Ranks[cfg] = first
	if len(items) > 10 {
		items = items[:10]
	}
	for j, e := range expect {
		rank := 0
		for i, it := range items {
			if matches(it, e) {
				rank = i + 1
				break
			}
		}
		o.Answers[j].Ranks[cfg] = rank
	}
}

// WriteRankings writes the report as a ranking golden: for each query, where each
// expected answer ranked under each config ("-" = not in the top 10), then the
// summary rows without latencies. Everything in it is a pure function of the
// index and the query set, so two runs on the same fixture write the same bytes,
// and a change of weights shows up as a diff of ranks.
func WriteRankings(w io.Writer, rep *Report) error {
	configs := rankedConfigs(rep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, q := range rep.PerQuery {
		fmt.Fprintf(tw, "%s %s: %s\n", q.ID, q.Kind, q.Query)
		fmt.Fprintf(tw, "  answer\t%s\n", strings.Join(configs, "\t"))
		fmt.Fprintf(tw, "  first correct\t%s\n", rankCells(q.Ranks, configs))
		for _, a := range q.Answers {
			fmt.Fprintf(tw, "  %s\t%s\n", answerLabel(a.Expect), rankCells(a.Ranks, configs))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "config\tkind\tn\thit@1\thit@5\trecall@5\trecall@10\tmrr@10\tndcg@10\tprecision\trecall")
	for _, m := range rep.Results {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\n", m.Config, m.Kind, m.N,
			m.Hit1, m.Hit5, m.Recall5, m.Recall10, m.MRR10, m.NDCG10, optional(m.Precision), optional(m.Recall))
	}
	return tw.Flush()
}

// rankedConfigs lists the configs that have per-query ranks, in report order.
func rankedConfigs(rep *Report) []string {
	var out []string
	if len(rep.PerQuery) == 0 {
		return out
	}
	for _, m := range rep.Results {
		if _, ok := rep.PerQuery[0].Ranks[m.Config]; ok && !slices.Contains(out, m.Config) {
			out = append(out, m.Config)
		}
	}
	return out
}

func rankCells(ranks map[string]int, configs []string) string {
	cells := make([]string, len(configs))
	for i, c := range configs {
		cells[i] = "-"
		if r := ranks[c]; r > 0 {
			cells[i] = fmt.Sprint(r)
		}
	}
	return strings.Join(cells, "\t")
}

func answerLabel(e Expect) string {
	switch {
	case e.Module != "":
		return "module " + e.Module
	case e.Symbol == "":
		return e.Path
	case e.Receiver+e.Class != "":
		return e.Path + " " + e.Receiver + e.Class + "." + e.Symbol
	}
	return e.Path + " " + e.Symbol
}

func optional(x *float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *x)
}
