package eval

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
