package memory

import (
	"context"

	"github.com/spelunkhq/spelunk/engine/memory/contradict"
)

// Claim is one side of a contradiction check.
type Claim struct {
	Kind Kind
	Text string
}

// Verdict is a judge's answer for a pair of claims.
type Verdict struct {
	Contradicts bool
	// Reason says why, for the person resolving the conflict.
	Reason string
}

// Judge decides whether two claims contradict each other. The store only asks
// about pairs that are similar enough (Options.Threshold); a model-backed judge
// can replace the heuristic. A judge error fails the write.
type Judge interface {
	Judge(ctx context.Context, a, b Claim) (Verdict, error)
}

// HeuristicJudge is the built-in judge: negation and antonym cues, different
// values for one subject, different choices for one role (see package
// engine/memory/contradict). Episodes are compared by polarity only.
type HeuristicJudge struct{}

// Judge implements Judge.
func (HeuristicJudge) Judge(_ context.Context, a, b Claim) (Verdict, error) {
	r := contradict.Check(claimStatement(a), claimStatement(b))
	return Verdict{Contradicts: r.Contradicts, Reason: r.Reason}, nil
}

// claimStatement is the heuristic's view of a claim: episodes are events.
func claimStatement(c Claim) contradict.Statement {
	return contradict.Statement{Text: c.Text, Event: c.Kind == KindEpisode}
}
