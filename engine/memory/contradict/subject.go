package contradict

import "slices"

// A statement's subject is what comes first: "Audit logs are kept 1 year" is about
// audit logs, "Admins can delete projects" about admins. Two statements whose
// leading words differ on both sides ("Admins can ..." vs "Members cannot ...",
// "The customer API returns JSON" vs "The partner API returns XML") are about
// different things; one whose subject carries a modifier the other lacks ("Audit
// logs" vs "Logs") is about a narrower thing, which may have values of its own.
// Words are told apart by position only, relative to the words both share: no
// list of role or entity nouns is needed.

// phrase is an ordered run of tokens with the set of its content keys.
type phrase struct {
	toks []token
	keys map[string]bool
}

func (c clause) phrase() phrase { return phrase{c.toks, c.content} }

// phrase is the whole statement as a phrase, built once by analyze.
func (s statement) phrase() phrase {
	if s.ph.keys != nil {
		return s.ph
	}
	return s.buildPhrase()
}

func (s statement) buildPhrase() phrase {
	keys := make(map[string]bool, len(s.words))
	for k := range s.words {
		keys[k] = true
	}
	for _, vs := range s.values {
		for k := range vs {
			keys[k] = true
		}
	}
	return phrase{s.toks, keys}
}

func isContent(t token) bool { return t.kind == tValue || !t.stop }

// leadingOnly returns the content tokens of p that come before the first content
// word it shares with o and that o lacks: the subject words of p's own. A choice
// verb in front ("Use Redis ...") is an imperative, not a subject.
func leadingOnly(p, o phrase) []token {
	var out []token
	for _, t := range p.toks {
		if !isContent(t) {
			continue
		}
		if o.keys[t.key] {
			break
		}
		if t.kind == tWord && cueSet[t.lower] {
			continue
		}
		out = append(out, t)
	}
	return out
}

// differentSubjects: both phrases open with words of their own.
func differentSubjects(a, b phrase) bool {
	return len(leadingOnly(a, b)) > 0 && len(leadingOnly(b, a)) > 0
}

// modifiers returns the content tokens of p, absent from o, that come before a
// shared content word which itself comes before p's first value absent from o:
// the words that narrow the subject the value is given for ("Audit logs are kept
// 1 year", "the rate limit for the search endpoint is 20"). Words after the shared
// context elaborate instead ("capped at 30 seconds").
func modifiers(p, o phrase) []token {
	var pending, out []token
	shared := false       // a shared content word came before pending
	postModifier := false // pending opens right after a preposition
	for i, t := range p.toks {
		if verbMarker(t) { // the subject ends: its own words narrow it
			out = append(out, pending...)
			pending = pending[:0]
		}
		if !isContent(t) {
			continue
		}
		if t.kind == tValue && !o.keys[t.key] {
			break
		}
		// A shared word labelling the value ("pin Python 3.11") starts the
		// predicate: the words before it are its verb, not a modifier.
		if o.keys[t.key] && labelsValue(p, o, i) {
			// ... unless the words before it follow a shared one and a
			// preposition: they qualify the subject ("code review of security
			// fixes requires two"), where "come back as HTTP 400" is a verb.
			if shared && postModifier {
				out = append(out, pending...)
			}
			break
		}
		if o.keys[t.key] {
			out = append(out, pending...)
			pending = pending[:0]
			shared = true
			continue
		}
		if t.kind == tWord && (cueSet[t.lower] || pronounVerb(p.toks, i)) {
			continue
		}
		if len(pending) == 0 {
			postModifier = afterPreposition(p.toks, i)
		}
		pending = append(pending, t)
	}
	return out
}

// narrowerSubject: one side qualifies the subject the other states plainly. A
// word naming the kind of value given is no qualifier: "The OAuth callback URL
// is /auth/callback" gives the OAuth callback's path.
func narrowerSubject(a, b phrase) bool {
	return narrowing(modifiers(a, b)) || narrowing(modifiers(b, a))
}

// valueNouns name a kind of value: a number's, a path's or a duration's.
var valueNouns = setOf([]string{"url", "path", "port", "address", "version", "size", "limit", "count", "ttl", "timeout", "interval"})

// narrowing: a modifier qualifies the subject unless it names the kind of value
// given or bounds it ("the pool's maximum size is 50" gives the pool's limit,
// as "holds at most 20" does).
func narrowing(mods []token) bool {
	for _, t := range mods {
		// A name ("the Kafka events topic") says which thing the other side means,
		// unless it is a scope ("the Android app").
		if !valueNouns[t.lower] && !boundWord(t) && !(t.shaped && !t.start && !scopeStems[t.key]) {
			return true
		}
	}
	return false
}

// labelledClash finds a value of type vtype that both statements give in their
// predicate right after the same word, with different values: "pin Python 3.11"
// vs "runs on Python 3.9". The word says what the value is of, so the rest of the
// wording ("pin" vs "runs on") may differ. A labelled value followed by a verb is
// part of the subject instead ("Python 3.8 support is deprecated").
func labelledClash(a, b statement, vtype string) bool {
	if hasScope(minus(a.words, b.words)) && hasScope(minus(b.words, a.words)) {
		return false
	}
	la, lb := labelledValues(a, vtype), labelledValues(b, vtype)
	for label, va := range la {
		if vb, ok := lb[label]; ok && len(intersect(va, vb)) == 0 {
			return true
		}
	}
	return false
}

// labelledValues maps the key of the content word before each predicate value of
// vtype to the values it labels.
func labelledValues(s statement, vtype string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for i, t := range s.toks {
		if t.kind != tValue || t.vtype != vtype || i == 0 {
			continue
		}
		if !verbless(s.toks[i+1:]) {
			continue
		}
		// The label is one or two content words right before the value ("Python
		// 3.11", "HTTP status 422"), after some other content (a value that opens
		// the statement is its subject: "Port 8080 serves ...").
		for j := i - 1; j >= max(i-2, 1); j-- {
			prev := s.toks[j]
			if prev.kind != tWord || prev.stop || !hasContent(s.toks[:j]) {
				break
			}
			if out[prev.key] == nil {
				out[prev.key] = map[string]bool{}
			}
			out[prev.key][t.key] = true
		}
	}
	return out
}

// verbless: no copula, modal or auxiliary follows.
func verbless(after []token) bool {
	for _, t := range after {
		if t.kind == tWord && (isCopula(t.lower) || modals[t.lower] || doWords[t.lower]) {
			return false
		}
	}
	return true
}

func hasContent(ts []token) bool {
	for _, t := range ts {
		if isContent(t) {
			return true
		}
	}
	return false
}

// labelsValue reports whether p.toks[i] is the first of at most two words right
// before a value o lacks ("Python 3.11", "HTTP status 422").
func labelsValue(p, o phrase, i int) bool {
	for k := i + 1; k < min(i+3, len(p.toks)); k++ {
		t := p.toks[k]
		if t.kind == tValue {
			return !o.keys[t.key]
		}
		if t.stop {
			return false
		}
	}
	return false
}

// afterPreposition reports whether toks[i] follows a preposition, through
// determiners ("of the billing service").
func afterPreposition(toks []token, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch {
		case toks[j].kind != tWord:
			return false
		case prepositions[toks[j].lower]:
			return true
		case !determiners[toks[j].lower]:
			return false
		}
	}
	return false
}

// minVerbSubject is how many content words two statements must share for a
// value given with different verbs to be about the same thing.
const minVerbSubject = 2

// maxOwnVerbWords bounds the words of its own each side may give its value with
// ("are valid for", "are deleted after", "keep").
const maxOwnVerbWords = 2

// sameSubjectVerbs: the statements share their subject and differ only in a
// word or two each after it, the verb the value is given with ("Password reset
// links are valid for 15 minutes" vs "A password reset link expires after 24
// hours", "Backups are retained for 30 days" vs "We keep backups for 90 days").
// An own word ahead of the shared ones is a subject of its own ("Refresh tokens
// expire ..."), one right after a preposition a qualifier ("timeouts for reads"),
// one after the value what the value is of ("Port 9100 serves Prometheus
// metrics").
func sameSubjectVerbs(a, b phrase) bool {
	shared := intersect(a.keys, b.keys)
	ra, rb := ownContent(a, b), ownContent(b, a)
	// One shared word is subject enough when it is all the content besides the
	// verbs ("Backups are retained" vs "We keep backups").
	lone := len(shared) == 1 && wordCount(a) == len(ra)+1 && wordCount(b) == len(rb)+1
	if (len(shared) < minVerbSubject && !lone) || len(ra) == 0 || len(rb) == 0 || len(ra) > maxOwnVerbWords || len(rb) > maxOwnVerbWords {
		return false
	}
	for _, side := range []struct {
		p, o phrase
		own  []token
	}{{a, b, ra}, {b, a, rb}} {
		for _, w := range side.own {
			if leadsPhrase(side.p, w, shared) || qualifies(side.p, w) || afterValue(side.p, side.o, w) {
				return false
			}
		}
	}
	return true
}

// wordCount counts p's content words, values left out.
func wordCount(p phrase) int {
	n := 0
	for _, t := range p.toks {
		if t.kind == tWord && isContent(t) {
			n++
		}
	}
	return n
}

// afterValue reports whether w comes after the first value of p that o lacks.
func afterValue(p, o phrase, w token) bool {
	seen := false
	for _, t := range p.toks {
		switch {
		case t.kind == tValue && !o.keys[t.key]:
			seen = true
		case t.key == w.key:
			return seen
		}
	}
	return false
}

// qualifies reports whether w comes right after a preposition in p (through
// determiners): it names what the statement is about, not how.
func qualifies(p phrase, w token) bool {
	for i, t := range p.toks {
		if t.key == w.key && t.kind == tWord {
			return afterPreposition(p.toks, i)
		}
	}
	return false
}

// timeWords place a value in time; they go with the verb, not the subject
// ("expires after 24 hours").
var timeWords = setOf([]string{"after", "before", "during"})

// ownContent returns p's content words that o lacks (values, prepositions and
// time words left out).
func ownContent(p, o phrase) []token {
	var out []token
	for _, t := range p.toks {
		if t.kind == tWord && !t.stop && !o.keys[t.key] && !prepositions[t.lower] && !timeWords[t.lower] {
			out = append(out, t)
		}
	}
	return out
}

// leadsPhrase reports whether w comes before the first shared content word of p.
// The word after an opening personal pronoun is its verb, not a subject ("We
// keep backups ..."); words after the verb may still be ("We keep audit logs").
func leadsPhrase(p phrase, w token, shared map[string]bool) bool {
	for i, t := range p.toks {
		switch {
		case !isContent(t):
		case shared[t.key]:
			return false
		case pronounVerb(p.toks, i):
		case t.key == w.key:
			return true
		}
	}
	return false
}

// pronounVerb reports whether toks[i] is the first content word after an
// opening personal pronoun: its verb.
func pronounVerb(toks []token, i int) bool {
	if len(toks) == 0 || toks[0].kind != tWord || !pronouns[toks[0].lower] {
		return false
	}
	for j := 1; j < i; j++ {
		if isContent(toks[j]) {
			return false
		}
	}
	return i > 0 && isContent(toks[i])
}

// pronouns open a statement whose subject is the people it is about: the words
// after one are a verb ("We keep backups", "They deploy on Fridays").
var pronouns = setOf([]string{"we", "you", "they", "i"})

// namedClash finds a value of vtype both statements name after the same thing
// with different values: a name right before a version or number ("Go 1.22",
// "Node 18"), or the noun a number counts right after it ("1000 requests",
// "3 projects").
func namedClash(a, b statement, vtype string) bool {
	if vtype != "version" && vtype != "number" {
		return false
	}
	na, nb := namedValues(a, vtype), namedValues(b, vtype)
	for name, va := range na {
		if vb, ok := nb[name]; ok && len(intersect(va, vb)) == 0 {
			return true
		}
	}
	return false
}

// namedValues maps what each value of vtype in s is named after to the values.
func namedValues(s statement, vtype string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	add := func(name, v string) {
		if out[name] == nil {
			out[name] = map[string]bool{}
		}
		out[name][v] = true
	}
	for i, t := range s.toks {
		if t.kind != tValue || t.vtype != vtype {
			continue
		}
		if i > 0 && s.toks[i-1].kind == tWord && s.toks[i-1].shaped {
			add("name:"+s.toks[i-1].key, t.key)
		}
		if vtype == "number" {
			noun, ok := countedNoun(s.toks[i+1:])
			// "retries 3 times" counts retries, as "3 retries" does.
			if ok && noun.lower == "times" && i > 0 && s.toks[i-1].kind == tWord && !s.toks[i-1].stop {
				noun = s.toks[i-1]
			}
			if ok {
				add("count:"+noun.key, t.key)
			}
		}
	}
	return out
}

// maxCountedWords bounds the noun phrase a number counts ("25 concurrent jobs").
const maxCountedWords = 3

// countedNoun is the noun a number counts: the last word of the run of content
// words right after it, up to a preposition or time word ("two approvals before
// merging" counts approvals).
func countedNoun(after []token) (token, bool) {
	var last token
	n := 0
	for _, t := range after {
		if t.kind != tWord || t.stop || t.neg || n == maxCountedWords || timeWords[t.lower] || prepositions[t.lower] {
			break
		}
		last, n = t, n+1
	}
	return last, n > 0
}

// ofOnly is the one preposition postQualified trusts without a verb marker.
var ofOnly = setOf([]string{"of"})

// postQualified reports whether c's subject carries a prepositional phrase of
// words other lacks: "Line length in generated files", "Canary deploys of the
// checkout service" are narrower than "Line length", "Canary deploys".
func postQualified(c clause, other map[string]bool) bool {
	end, preps := c.subjEnd, prepositions
	if end < 0 {
		// No verb marker ("Canary deploys of X get 1 percent"): the subject
		// runs up to the clause's first value, and only "of" surely qualifies
		// it ("CI authenticates with ..." is a verb's).
		end, preps = slices.IndexFunc(c.toks, func(t token) bool { return t.kind == tValue }), ofOnly
	}
	if end <= 0 {
		return false
	}
	subj := c.toks[:end]
	for i, t := range subj {
		if i == 0 || t.kind != tWord || !preps[t.lower] || !isContent(subj[i-1]) {
			continue
		}
		own := contentKeys(subj[i+1:])
		if len(own) > 0 && len(intersect(own, other)) == 0 {
			return true
		}
	}
	return false
}
