package eval

import (
	"context"

	"github.com/spelunkhq/spelunk/engine/graph"
)

// Set metrics for graph questions: a caller/callee answer is a set, judged
// whole against the hand-checked complete list (issue 12: precision and recall
// of direct calls), not by the rank of its first correct item.

// setCounts are one query's counts: items returned, those matching an expected
// item, expected items, and those found.
type setCounts struct {
	returned, correct, expected, found int
}

func scoreSet(items []Ranked, expect []Expect) setCounts {
	c := setCounts{returned: len(items), expected: len(expect)}
	found := make([]bool, len(expect))
	for _, it := range items {
		ok := false
		for j, e := range expect {
			if matches(it, e) {
				ok, found[j] = true, true
			}
		}
		if ok {
			c.correct++
		}
	}
	for _, f := range found {
		if f {
			c.found++
		}
	}
	return c
}

// setMetrics micro-averages the counts: precision over every item returned,
// recall over every item expected. Nil when no query was a set question.
func setMetrics(cs []setCounts) (precision, recall *float64) {
	var sum setCounts
	for _, c := range cs {
		sum.returned += c.returned
		sum.correct += c.correct
		sum.expected += c.expected
		sum.found += c.found
	}
	if sum.expected == 0 {
		return nil, nil
	}
	p, r := 1.0, float64(sum.found)/float64(sum.expected)
	if sum.returned > 0 {
		p = float64(sum.correct) / float64(sum.returned)
	}
	round := func(x float64) *float64 { v := float64(int(x*1000+0.5)) / 1000; return &v }
	return round(p), round(r)
}

// GraphConfidenceConfigs are the graph walk restricted to its more confident
// edges, reported for graph questions only: precision bought with recall.
var GraphConfidenceConfigs = []string{"graph>=inferred", "graph=exact"}

type samplesAdder func(cfg string, c setCounts)

// graphAtConfidence scores a graph question's walk again with only inferred
// and better edges, then only exact ones.
func (r *Runner) graphAtConfidence(ctx context.Context, q Query, add samplesAdder) error {
	if q.Kind != "graph" || len(q.Expect) == 0 || q.Relation == "imports" || q.Relation == "importers" {
		return nil
	}
	for i, min := range []graph.Confidence{graph.Inferred, graph.Exact} {
		items, err := r.walk(ctx, q, min)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			items = nil
		}
		add(GraphConfidenceConfigs[i], scoreSet(items, q.Expect))
	}
	return nil
}
