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
	qa, qb := qualified(a, b), qualified(b, a)
	for k := range qa {
		if qb[k] {
			return true
		}
	}
	return false
}

// qualified returns, for each word of c's own that follows a preposition (through
// determiners) and comes right before a content word other shares, the pair of
// that preposition and shared word: "for the public routes" gives "for routes".
func qualified(c, other clause) map[string]bool {
	out := map[string]bool{}
	for i := 1; i+1 < len(c.toks); i++ {
		t, next := c.toks[i], c.toks[i+1]
		if !isContent(t) || other.content[t.key] || !isContent(next) || !other.content[next.key] {
			continue
		}
		j := i - 1
		for j > 0 && c.toks[j].kind == tWord && determiners[c.toks[j].lower] {
			j--
		}
		if p := c.toks[j]; p.kind == tWord && prepositions[p.lower] {
			out[p.lower+" "+next.key] = true
		}
	}
	return out
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

// narrowedPredicate reports whether c's words of its own all sit in phrases of
// place or purpose in its predicate while other has no word of its own:
// "Caching is disabled for the admin pages" against "Caching is enabled" speaks
// of a narrower scope (the admin pages), which may differ from the whole. A
// phrase of means ("signed with HMAC-SHA256") says how, not where.
func narrowedPredicate(c, other clause) bool {
	if len(minus(other.content, c.content)) > 0 || c.subjEnd < 0 {
		return false
	}
	own := 0
	for i, t := range c.toks {
		if !isContent(t) || other.content[t.key] {
			continue
		}
		if i < c.subjEnd || !inPrepositionalPhrase(c.toks, i, other) {
			return false
		}
		own++
	}
	return own > 0
}

// scopePrepositions open a phrase of place or purpose.
var scopePrepositions = setOf([]string{"for", "on", "in", "at"})

// inPrepositionalPhrase reports whether toks[i] follows a scope preposition
// through determiners and words other lacks ("for the admin pages").
func inPrepositionalPhrase(toks []token, i int, other clause) bool {
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		switch {
		case t.kind == tWord && scopePrepositions[t.lower]:
			return true
		case t.kind == tWord && determiners[t.lower]:
		case isContent(t) && !other.content[t.key]:
		default:
			return false
		}
	}
	return false
}

// placePrepositions open a phrase that says where or for what a clause holds.
var placePrepositions = setOf([]string{"in", "inside", "within", "for", "under", "on", "across"})

// ownScopes reports whether both clauses end in a phrase of that kind with only
// words of their own: "forbidden in the Redux reducers" vs "allowed inside the
// cache layer" speak of two places.
func ownScopes(a, b clause) bool {
	return ownScope(a, b) && ownScope(b, a)
}

func ownScope(c, other clause) bool {
	for i := len(c.toks) - 1; i > 0; i-- {
		t := c.toks[i]
		if t.kind == tWord && placePrepositions[t.lower] {
			tail := contentKeys(c.toks[i+1:])
			return len(tail) > 0 && len(intersect(tail, other.content)) == 0
		}
		if isContent(t) && other.content[t.key] {
			return false
		}
	}
	return false
}
