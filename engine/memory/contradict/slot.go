package contradict

import (
	"fmt"
)

// A slot choice: two statements that say the same thing except for what fills one
// slot of the predicate, "The endpoint returns JSON" vs "... returns XML", "update
// PRs weekly" vs "... monthly", "tests run serially" vs "... concurrently". The
// two fillers are siblings (values of one slot), so both cannot hold. This needs no
// list of formats, protocols or modes: the structure says that A and B are
// alternatives. The word order may differ ("The gateway emits its logs as JSON"
// vs "Logs from the gateway are emitted as logfmt"), the context may not.

// maxSlotWords bounds the words of one slot filler ("the RFC 7807 problem
// details", "the local time zone"): a noun phrase with its qualifiers.
const maxSlotWords = 4

// additives mark a statement that adds to another instead of replacing it: "the
// linter also checks for shadowed variables".
var additives = map[string]bool{"also": true, "too": true, "additionally": true, "besides": true}

// slotChoice finds two statements whose content differs only in one run of up to
// maxChoiceWords words on each side, in the predicate of both, filling the same
// slot: after the same word, after a choice cue on both sides, or as the last word
// of both.
func slotChoice(a, b statement) Result {
	if a.event || b.event || hasMarks(a) || hasMarks(b) || additive(a) || additive(b) || subjectQualified(a, b) || subjectQualified(b, a) {
		return Result{}
	}
	if r := slotPhrases(a.phrase(), b.phrase()); r.Contradicts {
		return r
	}
	// A statement of several clauses may clash in one of them only ("Logs go
	// to Loki, which keeps them 30 days" vs "Logs go to Datadog").
	if len(a.clauses) == 1 && len(b.clauses) == 1 {
		return Result{}
	}
	for _, ca := range a.clauses {
		for _, cb := range b.clauses {
			if r := slotPhrases(ca.phrase(), cb.phrase()); r.Contradicts {
				return r
			}
		}
	}
	return Result{}
}

// slotPhrases is slotChoice on two phrases: statements or clauses.
func slotPhrases(pa, pb phrase) Result {
	if shared := len(intersect(pa.keys, pb.keys)); shared == 0 || (shared == 1 && !(loneSubject(pa, pb) && loneSubject(pb, pa))) {
		return Result{}
	}
	ra, oka := ownRun(pa, pb)
	rb, okb := ownRun(pb, pa)
	if !oka || !okb || hasScopeToken(ra.toks) || hasScopeToken(rb.toks) || ra.bounded() || rb.bounded() {
		return Result{}
	}
	if !sameSlot(ra, rb) || classOf(ra, rb) || classOf(rb, ra) || (ra.sequence() && rb.sequence()) {
		return Result{}
	}
	return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different choice for one slot: %q vs %q",
		surfaces(ra.toks), surfaces(rb.toks))}
}

// loneSubject: the one word p shares with o is p's subject, its first content
// word, right before a copula ("Secrets are injected as ...").
func loneSubject(p, o phrase) bool {
	for i, t := range p.toks {
		if !isContent(t) {
			continue
		}
		return o.keys[t.key] && i+1 < len(p.toks) && isCopula(p.toks[i+1].lower)
	}
	return false
}

// run is a statement's own stretch of content: its tokens, the token just before
// it, and whether it ends the statement's content.
type run struct {
	toks   []token
	anchor token
	last   bool
	// head is the statement's last content word, after the run (all shared, as
	// the run is the only content of its own): the run qualifies it ("use ARM64
	// machines" vs "are x86-64 machines", "the main branch" vs "a dedicated
	// release branch").
	head token
	// verb is the word that takes the filler after a preposition, when the run
	// opens with it ("is built with hugo": verb built, anchor with, toks hugo).
	verb *token
	// indefinite: the run follows "a" or "an", a class of things ("a managed
	// service") rather than one of them.
	indefinite bool
	// linksCue: the run's first word is followed by a choice cue ("stored in").
	linksCue bool
}

// sequence: the run only says what comes first ("first", "before", "then"):
// two such runs put the same step first in other words (orderClash compares the
// steps).
func (r run) sequence() bool {
	for _, t := range r.toks {
		if t.kind != tWord || !orderWords[t.lower] && !sequenceWords[t.lower] {
			return false
		}
	}
	return len(r.toks) > 0
}

// named: the run names something (a name or a value), as "Datadog" does and "a
// managed service" does not.
func (r run) named() bool {
	for _, t := range r.toks {
		if t.shaped || t.kind == tValue {
			return true
		}
	}
	return false
}

// classOf: x is an indefinite class with no name in it and y is only a name,
// one member of the class ("a statically typed language" vs "Go"): y refines x.
// A name with a noun of its own is a kind of its own ("RFC 7807 problem details"
// vs "a plain string message").
func classOf(x, y run) bool { return x.indefinite && !x.named() && y.onlyNames() }

// onlyNames: every word of the run is a name or a value.
func (r run) onlyNames() bool {
	for _, t := range r.toks {
		if !t.shaped && t.kind != tValue {
			return false
		}
	}
	return len(r.toks) > 0
}

// bounded: the run gives a range ("within a day", "at most 100"), which admits
// the other side's filler rather than replacing it. A bound word bounds only a
// quantity after it: "uses least connections" names a policy, "a file under
// /var/log" a place.
func (r run) bounded() bool {
	seq := append([]token{r.anchor}, r.toks...)
	for i, t := range seq {
		if boundWord(t) && hasQuantity(seq[i+1:]) {
			return true
		}
	}
	return false
}

func hasQuantity(ts []token) bool {
	for _, t := range ts {
		if _, ok := magnitude(t.key); ok && t.kind == tValue {
			return true
		}
	}
	return false
}

// ownRun returns the one contiguous run of p's content that o lacks. It fails
// when p has no such content, more than one run, a run longer than
// maxChoiceWords, or a run before any content both share (a subject, not a
// predicate).
func ownRun(p, o phrase) (run, bool) {
	var r run
	start, end, sharedBefore := -1, -1, false
	for i, t := range p.toks {
		if !isContent(t) {
			continue
		}
		if o.keys[t.key] {
			if start >= 0 && end < 0 {
				end = i
			}
			if start < 0 {
				sharedBefore = true
			}
			continue
		}
		if start >= 0 && end >= 0 {
			return run{}, false // a second run
		}
		if start < 0 {
			start = i
		}
	}
	if start < 0 || !sharedBefore {
		return run{}, false
	}
	if end < 0 {
		end, r.last = len(p.toks), true
	} else {
		r.head = lastContent(p.toks[end:])
	}
	for _, t := range p.toks[start:end] {
		if isContent(t) {
			r.toks = append(r.toks, t)
		}
	}
	if len(r.toks) > maxSlotWords || !inPredicate(p.toks[end:], o) {
		return run{}, false
	}
	// The slot is named by the word before the noun phrase, not its article:
	// "in the local time zone" fills the slot "in UTC" does.
	at := start - 1
	for at > 0 && p.toks[at].kind == tWord && determiners[p.toks[at].lower] {
		r.indefinite = r.indefinite || p.toks[at].lower == "a" || p.toks[at].lower == "an"
		at--
	}
	r.anchor = p.toks[at]
	// A choice cue that opens the run is where the slot starts: "using argon2"
	// fills the slot "with bcrypt" does.
	if first := p.toks[start]; len(r.toks) > 1 && first.kind == tWord && cueSet[first.lower] && !isCopula(first.lower) {
		r.anchor, r.toks = first, r.toks[1:]
		start++
	}
	if start+1 < len(p.toks) {
		next := p.toks[start+1]
		r.linksCue = next.kind == tWord && cueSet[next.lower]
	}
	r.splitVerb(p.toks, start, end)
	if r.verb != nil {
		start += 2
	}
	if spansPreposition(p.toks[start:end]) {
		return run{}, false
	}
	return r, true
}

// prepositions between two words of a run make it two slots: an object and its
// complement ("prints errors to stderr" vs "prints results to stdout"). A verb
// marker inside it does too: a qualifier of the subject and a value ("for
// enterprise customers is 1000").
var prepositions = setOf([]string{"of", "to", "in", "on", "at", "for", "with", "by", "from", "into", "onto", "via", "over", "through"})

func spansPreposition(ts []token) bool {
	content, split := false, false
	for _, t := range ts {
		switch {
		case isContent(t) && split:
			return true
		case isContent(t):
			content = true
		case content && t.kind == tWord && (prepositions[t.lower] || verbMarker(t)):
			split = true
		}
	}
	return false
}

// splitVerb moves a passive verb that opens the run into r.verb when a preposition
// cue follows it: the filler is what comes after the preposition, as in
// namedChoice ("is built with hugo" vs "is generated with mkdocs").
func (r *run) splitVerb(toks []token, start, end int) {
	first := toks[start]
	if len(r.toks) < 2 || start+2 >= end || first.kind != tWord || first.shaped {
		return
	}
	if !isCopula(r.anchor.lower) && !isParticiple(first.lower) {
		return
	}
	cue := toks[start+1]
	k := start + 2 // the filler, after any article ("from the develop branch")
	for k < end && toks[k].kind == tWord && determiners[toks[k].lower] {
		k++
	}
	if cue.kind != tWord || !cue.stop || !cueSet[cue.lower] || k >= end || !isContent(toks[k]) {
		return
	}
	r.verb, r.anchor, r.toks = &toks[start], cue, r.toks[1:]
}

// sameSlot reports whether two runs fill the same slot. After a copula, a run
// opening with a participle is a different verb, not a different value ("is built
// with Vite" vs "is written in TypeScript").
func sameSlot(x, y run) bool {
	// Two verbs with two prepositions are two slots ("built with vite" vs
	// "written in typescript").
	if x.verb != nil && y.verb != nil && x.verb.key != y.verb.key && x.anchor.key != y.anchor.key {
		return false
	}
	if participleRun(x) && participleRun(y) && x.verb == nil && y.verb == nil && !x.linksCue && !y.linksCue && x.naming() == y.naming() {
		// Two states the subject is put in, nothing else different: "are
		// deleted after processing" vs "are kept after processing". A participle
		// that only leads to a shared filler through a cue is the same verb said
		// another way ("stored in Redis" vs "kept in Redis").
		return true
	}
	for _, r := range []run{x, y} {
		if participleRun(r) {
			return false
		}
	}
	switch {
	case x.anchor.key == y.anchor.key:
		return true
	case !x.last && !y.last && x.head.kind == tWord && x.head.key == y.head.key:
		// Two qualifiers of one head noun in the predicate, with nothing else
		// different: "two-space indentation" vs "tab indentation".
		return true
	case cueSet[x.anchor.lower] && cueSet[y.anchor.lower] && !isCopula(x.anchor.lower) && !isCopula(y.anchor.lower):
		return true
	}
	if !x.last || !y.last {
		return false
	}
	// The complement of several words that ends both statements, after a cue on
	// each side, names how the thing is done: "is cursor-based" vs "paginates with
	// page and offset parameters". A one-word complement after a copula is a
	// quality instead ("is strict" vs "validated with a JSON schema").
	if len(x.toks) == 1 && len(y.toks) == 1 {
		return true
	}
	return len(x.toks) >= 2 && len(y.toks) >= 2 && cueSet[x.anchor.lower] && cueSet[y.anchor.lower]
}

// naming: the run's participle takes a name or an identifier straight after it
// ("are named release/x.y"): it gives a value, not a state the subject is put
// in ("is protected"), though two such runs fill one slot ("is called
// orders_prod" vs "is named shop_main"). A quantity there says how ("removed one
// release after rollout").
func (r run) naming() bool {
	if len(r.toks) < 2 {
		return false
	}
	next := r.toks[1]
	if next.kind == tValue {
		_, quantity := magnitude(next.key)
		return !quantity
	}
	return next.shaped
}

// participleRun: the run opens with a participle after a copula ("are purged
// after 30 days").
func participleRun(r run) bool {
	first := r.toks[0]
	return isCopula(r.anchor.lower) && first.kind == tWord && isParticiple(first.lower)
}

// inPredicate reports whether what follows a run leaves it in the predicate: a
// verb after it ("The cache TTL is 5 minutes") makes it the subject, and a value
// both sides give after it is the predicate itself ("entries expire after 5
// minutes").
func inPredicate(after []token, o phrase) bool {
	for _, t := range after {
		if t.kind == tValue && o.keys[t.key] {
			return false
		}
	}
	return verbless(after)
}

func lastContent(ts []token) token {
	for i := len(ts) - 1; i >= 0; i-- {
		if isContent(ts[i]) {
			return ts[i]
		}
	}
	return token{}
}

func hasMarks(s statement) bool {
	for _, c := range s.clauses {
		if len(c.marks) > 0 {
			return true
		}
	}
	return false
}

func additive(s statement) bool {
	for _, t := range s.toks {
		if t.kind == tWord && additives[t.lower] {
			return true
		}
	}
	return false
}

func hasScopeToken(ts []token) bool {
	for _, t := range ts {
		if scopeStems[t.key] {
			return true
		}
	}
	return false
}
