package contradict

import "fmt"

// A quantifier clash: a statement about all of something ("All services emit
// their logs as JSON", "Every commit on main is deployed") against one about an
// exception among them: a part that still does otherwise or does without ("Some
// of our services still log plain text", "Most PRs get merged without a
// review"), or a restriction to a kind of them ("Only tagged commits on main
// reach production"). A part that merely does something more ("Some services
// also export metrics") is no exception, and is left alone.

var universalWords = setOf([]string{"all", "every", "each"})

// quantified is a statement's leading quantifier and the content words after it.
type quantified struct {
	universal, partial, only bool
	head                     []token // the content words right after the quantifier
}

func quantifierOf(s statement) (quantified, bool) {
	var q quantified
	for i, t := range s.toks {
		if t.kind != tWord {
			return q, false
		}
		if !t.stop && !partialQuantifiers[t.lower] {
			if !(q.universal || q.partial || q.only) {
				return q, false
			}
			q.head = contentRun(s.toks[i:])
			return q, len(q.head) > 0
		}
		switch {
		case universalWords[t.lower]:
			q.universal = true
		case partialQuantifiers[t.lower]:
			q.partial = true
		case t.lower == "only":
			q.only = true
		}
	}
	return q, false
}

// contentRun is the run of content words toks starts with.
func contentRun(toks []token) []token {
	var out []token
	for _, t := range toks {
		if !isContent(t) || t.neg {
			break
		}
		out = append(out, t)
	}
	return out
}

// quantifierClash finds a rule about all and an exception among the same things.
func quantifierClash(a, b statement) Result {
	qa, oka := quantifierOf(a)
	qb, okb := quantifierOf(b)
	if !oka || !okb {
		return Result{}
	}
	type side struct {
		q quantified
		s statement
	}
	for _, p := range [][2]side{{{qa, a}, {qb, b}}, {{qb, b}, {qa, a}}} {
		rule, part := p[0], p[1]
		if !rule.q.universal || part.q.universal || !sharesHeadWord(rule.q.head, part.q.head) {
			continue
		}
		exception := part.q.only && len(part.q.head) > 1 || part.q.partial && hasException(part.s)
		shared := intersect(rule.s.words, part.s.words)
		if !exception || len(minus(shared, contentKeys(rule.q.head))) == 0 {
			continue
		}
		return Result{Contradicts: true, Kind: KindPolarity, Reason: fmt.Sprintf("exception to a rule: %q vs %q",
			surfaces(rule.q.head), surfaces(part.q.head))}
	}
	return Result{}
}

// sharesHeadWord: the first word of one run is a word of the other ("services"
// in "Docker services"; "commits" in "tagged commits").
func sharesHeadWord(x, y []token) bool {
	kx, ky := contentKeys(x), contentKeys(y)
	return ky[x[0].key] || kx[y[0].key]
}

// hasException: the part does otherwise ("still"), or without (a negation).
func hasException(s statement) bool {
	if hasMarks(s) {
		return true
	}
	for _, t := range s.toks {
		if t.kind == tWord && t.lower == "still" {
			return true
		}
	}
	return false
}
