package eval

import "testing"

func TestGraphAnswersScoredAsSets(t *testing.T) {
	expect := []Expect{{Path: "a.go", Symbol: "A"}, {Path: "b.go", Symbol: "B"}, {Path: "c.go", Symbol: "C"}}
	q1 := scoreSet([]Ranked{{path: "a.go", name: "A"}, {path: "b.go", name: "B"}, {path: "x.go", name: "X"}, {path: "y.go", name: "Y"}}, expect)
	q2 := scoreSet(nil, expect[:1])
	if q1 != (setCounts{returned: 4, correct: 2, expected: 3, found: 2}) || q2 != (setCounts{expected: 1}) {
		t.Fatalf("counts %+v %+v", q1, q2)
	}
	p, r := setMetrics([]setCounts{q1, q2})
	if p == nil || r == nil || *p != 0.5 || *r != 0.5 {
		t.Fatalf("precision %v recall %v, want 0.5 and 0.5 (2 of 4 returned, 2 of 4 expected)", p, r)
	}
	if p, r := setMetrics(nil); p != nil || r != nil {
		t.Fatal("no graph question must leave the metrics out")
	}
}
