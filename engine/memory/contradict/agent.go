package contradict

import "fmt"

// An agent choice: one statement names what does something in the passive
// ("Infrastructure is provisioned with Terraform"), the other in the active, as
// the subject of the same verb ("Pulumi provisions our infrastructure"). The two
// fill one slot, the doer, with nothing else different. The active side's
// subject opens its sentence, so its capital says nothing about a name: the
// verb the passive side names its filler after is what makes it the doer.

// agentCues take the doer after a passive participle.
var agentCues = setOf([]string{"with", "by", "using", "via", "through"})

// agentChoice finds that pair, either way round.
func agentChoice(a, b statement, names map[string]bool) Result {
	for _, p := range [][2]statement{{a, b}, {b, a}} {
		if r := agentOver(p[0], p[1], names); r.Contradicts {
			return r
		}
	}
	return Result{}
}

func agentOver(passive, active statement, names map[string]bool) Result {
	if len(passive.clauses) != 1 || len(active.clauses) != 1 || hasMarks(passive) || hasMarks(active) {
		return Result{}
	}
	pt, at := passive.clauses[0].toks, active.clauses[0].toks
	if len(at) < 3 || at[0].kind != tWord || at[0].stop || passive.words[at[0].key] || !capitalised(at[0].surface) {
		return Result{}
	}
	verb := at[1]
	if verb.kind != tWord || verb.stop || !passive.words[verb.key] {
		return Result{}
	}
	for i := 2; i+1 < len(pt); i++ {
		v, cue, name := pt[i-1], pt[i], pt[i+1]
		if v.key != verb.key || !isParticiple(v.lower) || !agentCues[cue.lower] || !names[name.key] || active.words[name.key] {
			continue
		}
		filler := nounPhrase(pt, i+1)
		rest := minus(passive.words, filler)
		own := minus(active.words, map[string]bool{at[0].key: true})
		if len(rest) < 2 || len(minus(rest, own)) > 0 || len(minus(own, rest)) > 0 {
			return Result{}
		}
		return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different choice: %s vs %s", name.surface, at[0].surface)}
	}
	return Result{}
}

func capitalised(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }

// agentSubject reports whether s opens with a doer of its own, the subject of a
// verb other gives in the passive ("The team tracks bugs in Jira" vs "Bugs are
// tracked in Linear"): the doer is left out of other, not a narrower subject.
func agentSubject(s, other statement) bool {
	if len(s.clauses) == 0 {
		return false
	}
	toks := s.clauses[0].toks
	i := 0
	for i < len(toks) && toks[i].kind == tWord && determiners[toks[i].lower] {
		i++
	}
	// Up to maxDoerWords words of its own ("The platform team hosts ...").
	for n := 0; n < maxDoerWords && i+1 < len(toks) && isContent(toks[i]) && !other.words[toks[i].key]; n++ {
		if verb := toks[i+1]; verb.kind == tWord && !verb.stop && passiveIn(other, verb.key) {
			return true
		}
		i++
	}
	return false
}

// maxDoerWords bounds the words of a doer named as the subject.
const maxDoerWords = 2

// passiveIn reports whether s has the verb key as a participle after a copula.
func passiveIn(s statement, key string) bool {
	for _, c := range s.clauses {
		for i := 1; i < len(c.toks); i++ {
			if t := c.toks[i]; t.key == key && isParticiple(t.lower) && isCopula(c.toks[i-1].lower) {
				return true
			}
		}
	}
	return false
}
