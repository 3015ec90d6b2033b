package contradict

// When the polarity of two clauses cannot be read off their negations: each
// negates something, but not the same word, or one denies a predicate the other
// does not state.

// ownNegation reports whether c negates a word that other does not mention (a
// negator or a negative antonym of a predicate of its own: "are not visible to
// guests", "swap is disabled"). Against a clause that negates too ("guests cannot
// view", "run without swap"), two negations of different words say nothing about
// which side is opposite: most often the same thing twice, in other words.
func ownNegation(c, other clause) bool {
	if len(other.marks) == 0 {
		return false
	}
	for _, m := range c.marks {
		if !m.absence && !m.whole && m.key != "" && !other.content[m.key] {
			return true
		}
	}
	return false
}

// otherPredicate reports whether c denies a predicate other does not state
// ("guests cannot edit dashboards") while other states one of its own ("guests
// can view dashboards"): the two predicates differ, so the polarities do not
// oppose each other.
func otherPredicate(c, other clause) bool {
	_, pred, ok := other.split()
	if !ok {
		return false
	}
	for _, m := range c.counted(other) {
		if m.key == "" || other.content[m.key] {
			continue
		}
		for k := range pred {
			if !c.content[k] {
				return true
			}
		}
	}
	return false
}

// parallelQualifiers reports whether two clauses each qualify one shared noun
// with a word of their own, in the same place: "enabled for the public routes"
// vs "disabled for the webhook routes" speak of two sets of routes, so their
// polarities do not oppose each other.
func parallelQualifiers(a, b clause) bool {
	ra, oka := ownRun(a.phrase(), b.phrase())
	rb, okb := ownRun(b.phrase(), a.phrase())
	if !oka || !okb || ra.last || rb.last || ra.head.kind != tWord || ra.head.key != rb.head.key {
		return false
	}
	return ra.anchor.key == rb.anchor.key
}

// partOf reports whether p's subject is a part of o's: p opens with words of its
// own joined to the shared words by a preposition ("The autocomplete endpoint of
// the search API" against "The search API"). Its head noun is its own, so what
// it denies does not deny o.
func partOf(p, o phrase) bool {
	lead := leadingOnly(p, o)
	if len(lead) == 0 {
		return false
	}
	last := lead[len(lead)-1]
	for i, t := range p.toks {
		if verbMarker(t) {
			return false // the words of its own are in its predicate
		}
		if t.kind != last.kind || t.key != last.key || t.surface != last.surface {
			continue
		}
		return i+1 < len(p.toks) && p.toks[i+1].kind == tWord && prepositions[p.toks[i+1].lower]
	}
	return false
}
