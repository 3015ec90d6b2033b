package contradict

import "fmt"

// A clause with a verb marker (copula, modal, auxiliary, negator) splits into a
// subject and a predicate: "Admins | can delete projects". Two clauses that say
// the same predicate of disjoint subjects are about different things ("Staff can
// reset any user's password" vs "Users cannot reset other users' passwords"); a
// subject restricted with "only" excludes every other subject from the same
// predicate ("Only the owner can invite members" vs "Any member can invite
// members").

// minSharedPredicate is how much of the predicate two clauses must share for
// their subjects to be compared: less, and they say different things anyway.
const minSharedPredicate = 2

func verbMarker(t token) bool {
	if t.kind != tWord {
		return false
	}
	switch t.lower {
	case "has", "have", "had":
		return true
	}
	return isCopula(t.lower) || modals[t.lower] || doWords[t.lower]
}

// split returns the content keys of the clause's subject and predicate; ok is
// false without a verb marker or a subject.
func (c clause) split() (subj, pred map[string]bool, ok bool) {
	if c.subjEnd <= 0 {
		return nil, nil, false
	}
	subj, pred = map[string]bool{}, map[string]bool{}
	for i, t := range c.toks {
		if !isContent(t) {
			continue
		}
		if i < c.subjEnd {
			subj[t.key] = true
		} else {
			pred[t.key] = true
		}
	}
	return subj, pred, len(subj) > 0
}

// disjointSubjects: the same predicate said of subjects with no word in common.
func disjointSubjects(a, b clause) bool {
	sa, pa, oka := a.split()
	sb, pb, okb := b.split()
	return oka && okb && len(intersect(sa, sb)) == 0 && len(intersect(pa, pb)) >= minSharedPredicate
}

// onlyClash finds a clause that restricts its predicate to one subject ("Only the
// owner ...") and a clause giving the same predicate, with the same polarity, to
// a subject that is not that one.
func onlyClash(a, b statement) Result {
	for _, ca := range a.clauses {
		for _, cb := range b.clauses {
			for _, p := range [][2]clause{{ca, cb}, {cb, ca}} {
				if r := onlyOver(p[0], p[1]); r.Contradicts {
					return r
				}
			}
		}
	}
	return Result{}
}

func onlyOver(only, other clause) Result {
	if len(only.toks) == 0 || only.toks[0].lower != "only" || only.negatedAgainst(other) != other.negatedAgainst(only) {
		return Result{}
	}
	so, po, ok1 := only.split()
	sx, px, ok2 := other.split()
	if !ok1 || !ok2 || len(minus(so, sx)) == 0 || len(minus(sx, so)) == 0 {
		return Result{}
	}
	if len(minus(po, px)) > 0 || len(minus(px, po)) > 0 || len(po) < minSharedPredicate {
		return Result{}
	}
	return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("only %s, but also %s",
		subjectWords(only), subjectWords(other))}
}

func subjectWords(c clause) string {
	var ts []token
	for _, t := range c.toks[:c.subjEnd] {
		if isContent(t) {
			ts = append(ts, t)
		}
	}
	return surfaces(ts)
}
