package contradict

import (
	"strconv"
	"strings"
)

// A value given as a bound ("at least 30 days", "at most 100 requests", "up to
// 5 retries") is a range: a value inside it on the other side refines it ("kept
// 35 days"), it does not contradict it.

type bound uint8

const (
	noBound bound = iota
	lowerBound
	upperBound
)

// boundWords are the words right before a value that make it a bound. "at least"
// and "at most" are read by their second word.
var boundWords = map[string]bound{
	"least": lowerBound, "above": lowerBound, "minimum": lowerBound, "min": lowerBound, "exceed": lowerBound,
	"most": upperBound, "below": upperBound, "under": upperBound, "within": upperBound, "maximum": upperBound,
	"max": upperBound, "up": upperBound,
}

// comparatives make a bound with "than": "more than 5", "fewer than 10".
var comparatives = map[string]bound{"more": lowerBound, "greater": lowerBound, "less": upperBound, "fewer": upperBound}

// boundBefore reads the bound of the value at raw[i] from the word before it, or
// the one before that when a preposition or article sits between ("up to 5", "a
// maximum of 10").
func boundBefore(raw []token, i int) bound {
	for j := i - 1; j >= max(i-3, 0); j-- {
		t := raw[j]
		if t.kind != tWord {
			return noBound
		}
		if b, ok := boundWords[t.lower]; ok {
			return b
		}
		if b := comparatives[t.lower]; b != noBound {
			return b
		}
		if !t.stop {
			return noBound
		}
	}
	return noBound
}

// boundWord: a word that makes the value after it a bound.
func boundWord(t token) bool {
	if t.kind != tWord {
		return false
	}
	_, ok := boundWords[t.lower]
	return ok || comparatives[t.lower] != noBound
}

// hasBound reports whether a stretch of tokens gives a bound: a choice between
// such stretches is a range against a value, not two values.
func hasBound(ts ...token) bool {
	for _, t := range ts {
		if boundWord(t) {
			return true
		}
	}
	return false
}

// withinBounds reports whether one side gives only bounds for a value type and
// the other only exact values that lie within all of them: the two statements
// give compatible values ("kept at least 30 days" vs "kept 35 days"). Two bounds
// with different limits differ ("at most 3" vs "at most 5").
func withinBounds(a, b statement, vtype string) bool {
	return satisfies(a, b, vtype) || satisfies(b, a, vtype)
}

// satisfies: every value of vtype in s is a bound, and every value of it in o
// is an exact value within all of them.
func satisfies(s, o statement, vtype string) bool {
	bounded, exact := s.values[vtype], o.values[vtype]
	if len(bounded) == 0 || len(exact) == 0 {
		return false
	}
	for bk := range bounded {
		kind := s.bounds[bk]
		limit, ok := magnitude(bk)
		if kind == noBound || !ok {
			return false
		}
		for ek := range exact {
			v, ok := magnitude(ek)
			if !ok || o.bounds[ek] != noBound || (kind == lowerBound && v < limit) || (kind == upperBound && v > limit) {
				return false
			}
		}
	}
	return true
}

// magnitude reads the number of a value key ("duration:86400"); versions, paths
// and URLs have none.
func magnitude(key string) (float64, bool) {
	i := strings.IndexByte(key, ':')
	if i < 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(key[i+1:], 64)
	return f, err == nil
}

// refines reports whether class is an indefinite description with no name in it
// ("a statically typed language", "a managed service") and name names something
// ("Go", "Datadog"): the name is one member of the class, a refinement of it.
func refines(class, name []token) bool {
	first := 0
	for first < len(class) && class[first].kind == tBreak {
		first++
	}
	if first == len(class) || (class[first].lower != "a" && class[first].lower != "an") {
		return false
	}
	for _, t := range class {
		if t.shaped || t.kind == tValue {
			return false
		}
	}
	for _, t := range name {
		if t.shaped {
			return true
		}
	}
	return false
}

// boundBroken reports whether one side bounds a value of vtype and the other
// gives exact values outside the bound, about subjects with a head noun in
// common: "Code coverage must stay above 80 percent" vs "The coverage gate is 65
// percent". A value outside a limit clashes with it whatever qualifies the
// subject; subjects of their own on both sides are still told apart (by
// differentSubjects, before).
func boundBroken(a, b statement, vtype string) bool {
	return (outside(a, b, vtype) || outside(b, a, vtype)) && (sharesHead(a, b) || sharesHead(b, a))
}

// outside: every value of vtype in s is a bound and some exact value of it in
// o lies outside one of them.
func outside(s, o statement, vtype string) bool {
	bounded, exact := s.values[vtype], o.values[vtype]
	if len(bounded) == 0 || len(exact) == 0 {
		return false
	}
	broken := false
	for bk := range bounded {
		kind := s.bounds[bk]
		limit, ok := magnitude(bk)
		if kind == noBound || !ok {
			return false
		}
		for ek := range exact {
			v, ok := magnitude(ek)
			if ok && o.bounds[ek] == noBound && (kind == lowerBound && v < limit || kind == upperBound && v > limit) {
				broken = true
			}
		}
	}
	return broken
}

// sharesHead: the last content word of s's subject (before its first verb
// marker) is a word of o.
func sharesHead(s, o statement) bool {
	if len(s.clauses) == 0 {
		return false
	}
	c := s.clauses[0]
	if c.subjEnd <= 0 {
		return false
	}
	head := lastContent(c.toks[:c.subjEnd])
	return head.kind == tWord && o.words[head.key]
}
