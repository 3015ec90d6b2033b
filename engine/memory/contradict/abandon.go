package contradict

import (
	"fmt"
	"regexp"
)

// An abandoned name: one statement says a tool or service is gone ("We moved off
// Jenkins last year", "We no longer use LaunchDarkly", "migrated from MongoDB to
// Postgres", "replaced Travis with GitHub Actions"), the other says it is in use
// ("Jenkins runs all of our CI jobs", "Feature flags are managed in
// LaunchDarkly"). The name is what both share; what it is used for may differ.

// leavingVerbs leave the name that follows their particle ("moved off X",
// "migrated the warehouse away from X", "switched from X").
var leavingVerbs = setOf([]string{"move", "moved", "moving", "migrate", "migrated", "migrating", "switch", "switched", "switching"})

// leavingParticles follow a leaving verb.
var leavingParticles = setOf([]string{"off", "from", "away"})

// removalVerbs drop the name that is their object ("dropped Travis", "retired
// the Jenkins server", "replaced Travis with ...").
var removalVerbs = setOf([]string{"dropped", "removed", "retired", "replaced", "decommissioned", "sunset", "abandoned", "ditched"})

// useVerbs, negated, say a name is not used ("no longer use X").
var useVerbs = setOf([]string{"use", "uses", "using", "used", "rely", "run", "runs"})

// useKeys are the keys of useVerbs, which a word-level negation names.
var useKeys = func() map[string]bool {
	out := map[string]bool{}
	for w := range useVerbs {
		out[ownKey(w)] = true
	}
	return out
}()

// abandoned returns the names s says are gone, by key.
func abandoned(s statement, names map[string]bool) map[string]token {
	out := map[string]token{}
	for _, c := range s.clauses {
		negatedUse := false
		for _, m := range c.marks {
			negatedUse = negatedUse || m.whole || useKeys[m.key]
		}
		leaving, named, verb := -1, -1, -1
		for i, t := range c.toks {
			switch {
			case t.kind != tWord:
			case leavingVerbs[t.lower]:
				verb = i
			case leavingParticles[t.lower] && verb >= 0 && i-verb <= 3:
				// "moved off X", "migrated the warehouse from X"
				leaving = i
			case removalVerbs[t.lower] && named >= 0 && i-named <= 3 && passiveBetween(c.toks[named+1:i]):
				// "CircleCI was retired", not "GitHub Actions replaced Travis"
				out[c.toks[named].key] = c.toks[named]
			case removalVerbs[t.lower]:
				leaving = i
			case useVerbs[t.lower] && negatedUse:
				leaving = i
			case names[t.key] && leaving >= 0 && i-leaving <= 4:
				out[t.key] = t
				leaving = -1 // "from X to Y": Y is the new one
			case names[t.key]:
				named = i
			}
		}
	}
	return out
}

// abandonedClash finds a name one side says is gone and the other names in a
// clause of its own that neither negates it nor says it is gone too.
func abandonedClash(a, b statement, names map[string]bool) Result {
	for _, p := range [][2]statement{{a, b}, {b, a}} {
		gone := abandoned(p[0], names)
		if len(gone) == 0 {
			continue
		}
		again := abandoned(p[1], names)
		for _, c := range p[1].clauses {
			if len(c.marks) > 0 {
				continue
			}
			for _, t := range c.toks {
				g, ok := gone[t.key]
				if !ok || again[t.key].key != "" || t.kind != tWord || setAside(p[1].text, t.surface) {
					continue
				}
				return Result{Contradicts: true, Kind: KindPolarity, Reason: fmt.Sprintf("%s is gone vs %s is in use", g.surface, t.surface)}
			}
		}
	}
	return Result{}
}

// setAside reports whether text names surface as what it does not use: "Raw SQL
// is used instead of an ORM", "rather than Jenkins".
func setAside(text, surface string) bool {
	re, err := regexp.Compile(`(?i)\b(?:instead of|rather than)\s+(?:\w+\s+){0,2}` + regexp.QuoteMeta(surface))
	return err == nil && re.MatchString(text)
}

// passiveBetween: a copula stands between a name and the participle after it.
func passiveBetween(ts []token) bool {
	for _, t := range ts {
		if t.kind == tWord && isCopula(t.lower) {
			return true
		}
	}
	return false
}
