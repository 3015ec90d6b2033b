package symbols

import "strings"

// Choice is what a name decides among the definitions it matches.
type Choice struct {
	Matches []Symbol // the distinct definitions, in Find's order
	// Chosen is the definition to act on: the only one, the one whose
	// qualified name the name is, or the only one outside tests among the
	// best matches. Nil when several are equally good: the caller lists
	// Matches and acts on none (issue 37).
	Chosen *Symbol
}

// Inherited says the chosen definition is a base type's member that name
// (Type.member) reached through Type's bases (Inherited).
func (c Choice) Inherited(name string) bool {
	if c.Chosen == nil {
		return false
	}
	s := *c.Chosen
	typ, member, ok := cutLast(name, ".")
	return ok && s.Name == member && s.Parent != "" && s.Parent != typ && !strings.HasSuffix(s.Parent, "."+typ) &&
		!strings.EqualFold(s.QualifiedName, name)
}

// Choose decides which of syms (Find's or Inherited's answer for name) a
// command acts on.
func Choose(name string, syms []Symbol) Choice {
	c := Choice{Matches: distinctDefs(syms)}
	if len(c.Matches) == 1 {
		c.Chosen = &c.Matches[0]
		return c
	}
	if best := bestTier(name, c.Matches); len(best) == 1 {
		c.Chosen = &best[0]
	}
	return c
}

// bestTier are the matches name names best: those whose qualified name it
// is, else those whose name it is, else all (case-insensitive matches); of
// those, the ones outside tests when there are any.
func bestTier(name string, syms []Symbol) []Symbol {
	var tier []Symbol
	for _, test := range []func(Symbol) bool{
		func(s Symbol) bool { return s.QualifiedName == name },
		func(s Symbol) bool { return s.Name == name },
		func(Symbol) bool { return true },
	} {
		for _, s := range syms {
			if test(s) {
				tier = append(tier, s)
			}
		}
		if len(tier) > 0 {
			break
		}
	}
	var code []Symbol
	for _, s := range tier {
		if !s.IsTest {
			code = append(code, s)
		}
	}
	if len(code) > 0 {
		return code
	}
	return tier
}

// distinctDefs drops repeated definitions of one qualified name in one file
// (a property's getter and setter, overloads): one definition to pick.
func distinctDefs(syms []Symbol) []Symbol {
	seen := map[string]bool{}
	out := syms[:0:0]
	for _, s := range syms {
		k := s.Path + "\x00" + s.QualifiedName
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
