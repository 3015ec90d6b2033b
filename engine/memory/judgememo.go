package memory

import (
	"context"

	"github.com/spelunkhq/spelunk/engine/memory/contradict"
)

// memoJudge is the judge of one batch. With the built-in heuristic it analyses
// each claim once (contradict.Analyze) however many pairs the claim is in: a
// batch of similar memories meets the same texts again and again, and the
// analysis is nearly all of a check's cost. Any other judge is asked as it is.
type memoJudge struct {
	judge Judge
	memo  map[Claim]*contradict.Analysis // nil unless the judge is the heuristic
}

func newMemoJudge(j Judge) *memoJudge {
	m := &memoJudge{judge: j}
	if _, ok := j.(HeuristicJudge); ok {
		m.memo = map[Claim]*contradict.Analysis{}
	}
	return m
}

// Judge gives the verdict HeuristicJudge.Judge gives (or the wrapped judge's).
func (j *memoJudge) Judge(ctx context.Context, a, b Claim) (Verdict, error) {
	if j.memo == nil {
		return j.judge.Judge(ctx, a, b)
	}
	r := contradict.CheckAnalyzed(j.analysis(a), j.analysis(b))
	return Verdict{Contradicts: r.Contradicts, Reason: r.Reason}, nil
}

func (j *memoJudge) analysis(c Claim) *contradict.Analysis {
	an, ok := j.memo[c]
	if !ok {
		an = analyses.get(c)
		j.memo[c] = an
	}
	return an
}

// warm analyses the claims the memo lacks, over the cores, before a run's
// judging asks for them one by one in order (an analysis depends on its claim
// alone, so the order of the analyses changes nothing).
func (j *memoJudge) warm(claims []Claim) {
	if j.memo == nil {
		return
	}
	var todo []Claim
	seen := map[Claim]bool{}
	for _, c := range claims {
		if _, ok := j.memo[c]; !ok && !seen[c] {
			seen[c] = true
			todo = append(todo, c)
		}
	}
	ans := make([]*contradict.Analysis, len(todo))
	parallel(len(todo), func(i int) { ans[i] = analyses.get(todo[i]) })
	for i, c := range todo {
		j.memo[c] = ans[i]
	}
}
