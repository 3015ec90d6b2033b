package contradict

// Stemmed and set forms of the lexicon, built once.
var (
	negatorSet     = setOf(negators)
	absenceSet     = setOf(absenceWords)
	stopSet        = setOf(stopWords)
	clauseBreakSet = setOf(clauseBreaks)
	cueSet         = setOf(choiceCues)
	participleSet  = setOf(participles)
	scopeStems     = map[string]bool{}
	antonymStems   = map[string]string{}
	synonymStems   = map[string]string{}
	permissions    = map[string]bool{} // keys of permissionWords
	clauseFlips    = map[string]bool{} // keys (positive side) of clauseFlipWords
	enabledKey     string              // the key "disabled", "off" and "on" flip or map to
)

func init() {
	for k, v := range synonyms {
		if s, t := stem(k), stem(v); s != t {
			synonymStems[s] = t
		}
	}
	for k, v := range antonyms {
		pos := stem(v)
		if syn, ok := synonymStems[pos]; ok {
			pos = syn
		}
		key := stem(k)
		if syn, ok := synonymStems[key]; ok {
			key = syn
		}
		antonymStems[key] = pos
	}
	for _, w := range permissionWords {
		k, _ := canonical(w)
		permissions[k] = true
	}
	for _, w := range clauseFlipWords {
		k, _ := canonical(w)
		clauseFlips[k] = true
	}
	enabledKey, _ = canonical("enabled")
	for _, w := range scopeWords {
		k, _ := canonical(w)
		scopeStems[k] = true
	}
}

func setOf(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
