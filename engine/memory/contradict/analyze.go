package contradict

import "strings"

// clause is a stretch of a statement that negation applies to as a whole.
type clause struct {
	toks    []token         // words (negators left out) and values, in order
	content map[string]bool // keys of content words and values
	marks   []mark          // the clause's negations
	// subjEnd is the index in toks of the first verb marker (copula, modal,
	// auxiliary or negator): the words before it are the clause's subject. -1
	// when the clause has none.
	subjEnd int
}

// mark is one negation in a clause. A negation of the whole clause ("do not",
// "must never", "not allowed", "forbidden") always counts; a negation of one word
// ("does not retry", "disabled") counts only against a clause that mentions that
// word.
type mark struct {
	surface string // as written: "not retry", "disabled"
	whole   bool
	key     string // word-level: the key of the negated word ("" when none follows)
	// absence: an absence word ("a missing email"). It only answers a negation of
	// the same word in the other clause ("without an email"): on its own it names
	// a narrower subject ("missing translations"), not an opposite.
	absence bool
}

// statement is the analysis of one memory's text.
type statement struct {
	event   bool
	text    string // as given, for spellOut
	clauses []clause
	words   map[string]bool              // content word keys of the whole statement
	values  map[string]map[string]string // value type -> key -> as written
	bounds  map[string]bound             // value key -> the bound it is given as ("at least 30 days")
	ph      phrase                       // the statement as one phrase (phrase())
	shaped  map[string]bool              // word keys written like names somewhere
	toks    []token                      // all word and value tokens
}

func analyze(s Statement) statement {
	st := statement{
		event:  s.Event,
		text:   s.Text,
		words:  map[string]bool{},
		values: map[string]map[string]string{},
		shaped: map[string]bool{},
		bounds: map[string]bound{},
	}
	var raw []token
	flush := func() {
		if c, ok := st.clause(raw); ok {
			st.clauses = append(st.clauses, c)
		}
		raw = raw[:0]
	}
	text := s.Text
	if len(text) > MaxTextBytes {
		text = text[:MaxTextBytes]
	}
	for _, t := range tokenize(text) {
		if t.kind == tBreak || (t.kind == tWord && clauseBreakSet[t.lower]) {
			flush()
			continue
		}
		raw = append(raw, t)
	}
	flush()
	st.ph = st.buildPhrase()
	return st
}

// clause analyses the tokens of one clause and records them in the statement.
func (st *statement) clause(raw []token) (clause, bool) {
	c := clause{content: map[string]bool{}, subjEnd: -1}
	for i, t := range raw {
		if c.subjEnd < 0 && (t.neg || verbMarker(t)) {
			c.subjEnd = len(c.toks)
		}
		if t.kind == tValue {
			if st.values[t.vtype] == nil {
				st.values[t.vtype] = map[string]string{}
			}
			st.values[t.vtype][t.key] = t.surface
			if b := boundBefore(raw, i); b != noBound {
				st.bounds[t.key] = b
			}
			c.content[t.key] = true
			c.toks = append(c.toks, t)
			st.toks = append(st.toks, t)
			continue
		}
		if t.flip && attributive(raw, i) {
			t.flip, t.key = false, ownKey(t.lower)
		}
		switch {
		case t.neg:
			key, surface := nextContent(raw, i)
			m := mark{surface: t.surface, whole: negatesClause(raw, i), key: key, absence: absenceSet[t.lower]}
			if surface != "" {
				m.surface += " " + surface
			}
			c.marks = append(c.marks, m)
		case t.flip:
			c.marks = append(c.marks, mark{surface: t.surface, whole: clauseFlips[t.key], key: t.key})
		}
		if t.neg {
			continue
		}
		c.toks = append(c.toks, t)
		st.toks = append(st.toks, t)
		if t.shaped {
			st.shaped[t.key] = true
		}
		if !t.stop {
			c.content[t.key] = true
			st.words[t.key] = true
		}
	}
	return c, len(c.toks) > 0 || len(c.marks) > 0
}

// determiners open a noun phrase: a negative antonym right after one, before a
// noun, names a kind of thing, not a polarity ("the asynchronous client" is another
// client than "the synchronous client", not its negation).
var determiners = setOf([]string{"the", "a", "an", "our", "its", "their", "this", "that", "these", "those", "your", "my"})

func attributive(raw []token, i int) bool {
	if i+1 >= len(raw) {
		return false
	}
	next := raw[i+1]
	if next.kind != tWord || next.stop || next.neg {
		return false
	}
	if i == 0 {
		return leadsSubject(raw, i+1)
	}
	// Between two content words an adjective or participle qualifies the
	// second ("retries failed charges"); a verb there ends in -s ("the linter
	// forbids unused imports"), an adverb in -ly ("generated asynchronously").
	prev := raw[i-1]
	if prev.kind == tWord && !prev.stop && !prev.neg && !prev.flip && !strings.HasSuffix(raw[i].lower, "s") && !strings.HasSuffix(raw[i].lower, "ly") {
		return true
	}
	// After a preposition it names a kind ("blocked for unverified users").
	return determiners[prev.lower] || prev.kind == tWord && prepositions[prev.lower]
}

// leadsSubject reports whether the content words from raw[i] run straight into a
// verb marker: an antonym opening the clause then qualifies its subject ("Manual
// failover is discouraged" is about manual failover), where an imperative has an
// object instead ("Disable the cache", "Disallow root login").
func leadsSubject(raw []token, i int) bool {
	for ; i < len(raw); i++ {
		switch t := raw[i]; {
		case verbMarker(t):
			return true
		case t.kind == tWord && (prepositions[t.lower] || determiners[t.lower]):
			// "Offline data in the mobile app is ...": the subject's own
			// qualifier.
		case t.kind != tWord || t.stop || t.neg:
			return false
		}
	}
	return false
}

// ownKey is a word's stem with synonyms merged but no antonym mapping.
func ownKey(lower string) string {
	s := stem(lower)
	if syn, ok := synonymStems[s]; ok {
		return syn
	}
	return s
}

// negatesClause reports whether the negator at raw[i] negates its whole clause: an
// imperative ("Never squash", "Do not deploy"), a negated modal ("must not",
// "cannot", "should never") or a negated permission ("not allowed", "not needed").
func negatesClause(raw []token, i int) bool {
	if absenceSet[raw[i].lower] {
		return false
	}
	first := 0
	for first < len(raw) && raw[first].kind != tWord {
		first++
	}
	switch {
	case i == first:
		return true
	case i == first+1 && doWords[raw[first].lower]:
		return true
	case raw[i].lower == "cannot":
		return true
	case i > 0 && modals[raw[i-1].lower]:
		return true
	}
	for j := i + 1; j < len(raw); j++ {
		if raw[j].kind == tWord && raw[j].stop {
			continue
		}
		return raw[j].kind == tWord && permissions[raw[j].key]
	}
	return false
}

// nextContent is the first content word or value after raw[i], the word a negator
// negates: its key and surface ("" when there is none: the negation then counts).
func nextContent(raw []token, i int) (string, string) {
	for j := i + 1; j < len(raw); j++ {
		if raw[j].kind == tValue || (!raw[j].stop && !raw[j].neg) {
			return raw[j].key, raw[j].surface
		}
	}
	return "", ""
}

// negatedAgainst reports the clause's polarity as seen from other. Clause-level
// negations always count; a word-level one only when other mentions the word:
// "does not retry" against "retries", "disabled" against "enabled". Otherwise it
// negates a predicate of its own: "uploads over 10 MB are rejected" says nothing
// opposite to "the upload limit is 10 MB".
func (c clause) negatedAgainst(other clause) bool {
	return len(c.counted(other))%2 == 1
}

// counted returns the marks of c that count against other.
func (c clause) counted(other clause) []mark {
	var out []mark
	for _, m := range c.marks {
		if m.absence && !other.marksWord(m.key) {
			continue
		}
		if m.whole || m.key == "" || other.content[m.key] {
			out = append(out, m)
			continue
		}
		if head, ok := c.switchedOff(m, other); ok {
			m.key = head
			out = append(out, m)
		}
	}
	return out
}

// switchedOff reports whether m switches off the act c's subject names, which
// other states in its predicate: "TLS verification is disabled" against "the
// client verifies TLS certificates", "Retries are disabled" against "the webhook
// is retried". It returns the key of that act.
func (c clause) switchedOff(m mark, other clause) (string, bool) {
	if m.key != enabledKey || c.subjEnd <= 0 {
		return "", false
	}
	head := lastContent(c.toks[:c.subjEnd])
	if head.kind != tWord {
		return "", false
	}
	for i, t := range other.toks {
		if t.kind == tWord && t.key == head.key {
			return head.key, other.subjEnd < 0 || i > other.subjEnd
		}
	}
	return "", false
}

// marksWord reports whether one of the clause's word-level negations is of key.
func (c clause) marksWord(key string) bool {
	for _, m := range c.marks {
		if !m.whole && m.key == key {
			return true
		}
	}
	return false
}
