// Package contradict is spelunk's built-in contradiction heuristic: given two
// statements that an embedder already found similar, it decides whether they
// contradict each other, and why.
//
// It looks for three kinds of evidence, each only between statements about the
// same subject (most content words shared, no differing scope such as
// "development" vs "production" or differing names on both sides):
//
//   - opposite polarity: one clause negates what the other asserts, through a
//     negator (not, never, no longer, n't, without) or the negative side of an
//     antonym pair (disable/enable, forbidden/allowed, async/sync, off/on,
//     private/public, optional/required, avoid/use, ...);
//   - different values of one type: ports and numbers, versions, paths, URLs,
//     durations and sizes (compared in seconds and bytes, so "15 minutes" equals
//     "900 seconds");
//   - different choices for one role: "use pnpm" vs "use yarn", "stored in UTC" vs
//     "stored in local time", named after a cue such as use, with, in, is.
//
// A choice is also read from structure alone: two statements whose content differs
// only in one run of words filling the same predicate slot ("returns JSON" vs
// "returns XML", "runs serially" vs "runs concurrently"; slot.go), a frequency
// ("weekly" vs "monthly", read as interval values), or "only X" against another
// subject (roles.go). Subjects are compared by position (subject.go, roles.go):
// own leading words on both sides, or disjoint subjects of one predicate, are
// different subjects; a modifier on one side only narrows the subject, so its values
// do not clash with the plain subject's.
//
// Paraphrases and agreements carry none of these and are not conflicts; a
// statement that only adds detail (more values, more names) is not either.
// Events ("episode" memories) are compared by polarity only: two deploys on
// different days are both true.
package contradict

import (
	"fmt"
	"sort"
	"strings"
)

// Kind classifies the evidence for a contradiction.
type Kind string

// The kinds of evidence Check reports.
const (
	KindNone     Kind = ""
	KindPolarity Kind = "negation"
	KindValue    Kind = "value"
	KindChoice   Kind = "choice"
)

// Statement is one side of a comparison.
type Statement struct {
	Text string
	// Event marks a statement of something that happened (an episode): values
	// and choices in two events do not contradict each other.
	Event bool
}

// Result is the verdict on a pair of statements.
type Result struct {
	Contradicts bool
	Kind        Kind
	// Reason says what contradicts, for a person: `different port: 8080 vs 9090`.
	Reason string
}

// MaxTextBytes bounds the work per statement: only the first MaxTextBytes bytes of a
// text are compared (memories are short statements; a long one is judged by its
// opening).
const MaxTextBytes = 4 << 10

// maxDiffTokens bounds the clauses the choice alignment runs on (quadratic).
const maxDiffTokens = 64

// Check compares two statements. It is symmetric, and cheap: well under a
// millisecond for statements of a few sentences.
func Check(a, b Statement) Result {
	return check(analyze(a), analyze(b))
}

// check compares two analysed statements; it only reads them.
func check(sa, sb statement) Result {
	// Spelled out, an acronym and its words are one subject (acronym.go).
	xa, oka := spellOut(sa, sb)
	xb, okb := spellOut(sb, sa)
	if oka || okb {
		sa, sb = xa, xb
	}
	names := union(sa.shaped, sb.shaped)
	if r := polarity(sa, sb, names); r.Contradicts {
		return r
	}
	if sa.event && sb.event {
		return Result{}
	}
	if r := values(sa, sb); r.Contradicts {
		return r
	}
	if r := limitClash(sa, sb); r.Contradicts {
		return r
	}
	if r := substitution(sa, sb, names); r.Contradicts {
		return r
	}
	if r := namedChoice(sa, sb, names); r.Contradicts {
		return r
	}
	if r := agentChoice(sa, sb, names); r.Contradicts {
		return r
	}
	if r := abandonedClash(sa, sb, names); r.Contradicts {
		return r
	}
	if r := quantifierClash(sa, sb); r.Contradicts {
		return r
	}
	if r := ownerClash(sa, sb); r.Contradicts {
		return r
	}
	if r := onlyClash(sa, sb); r.Contradicts {
		return r
	}
	if r := orderClash(sa, sb); r.Contradicts {
		return r
	}
	if r := phaseClash(sa, sb); r.Contradicts {
		return r
	}
	if r := timingClash(sa, sb); r.Contradicts {
		return r
	}
	return slotChoice(sa, sb)
}

// minPolarityOverlap is the share of the shorter clause's content that the two
// clauses must have in common for opposite polarity to count as a contradiction.
const minPolarityOverlap = 0.6

// polarity finds two clauses about the same thing with opposite polarity.
func polarity(a, b statement, names map[string]bool) Result {
	for _, ca := range a.clauses {
		for _, cb := range b.clauses {
			if ca.negatedAgainst(cb) == cb.negatedAgainst(ca) {
				continue
			}
			shared := intersect(ca.content, cb.content)
			m := min(len(ca.content), len(cb.content))
			if len(shared) < 2 || float64(len(shared)) < minPolarityOverlap*float64(m) {
				continue
			}
			if differentSubject(ca.content, cb.content, names) || differentSubjects(ca.phrase(), cb.phrase()) || disjointSubjects(ca, cb) {
				continue
			}
			if ownNegation(ca, cb) || ownNegation(cb, ca) || otherPredicate(ca, cb) || otherPredicate(cb, ca) || parallelQualifiers(ca, cb) ||
				partOf(ca.phrase(), cb.phrase()) || partOf(cb.phrase(), ca.phrase()) || narrowedPredicate(ca, cb) || narrowedPredicate(cb, ca) ||
				ownScopes(ca, cb) || postQualified(ca, cb.content) || postQualified(cb, ca.content) {
				continue
			}
			return Result{Contradicts: true, Kind: KindPolarity, Reason: fmt.Sprintf("negation: %s vs %s (about %s)",
				polarWords(ca, cb), polarWords(cb, ca), describe(ca, cb, shared))}
		}
	}
	return Result{}
}

// differentSubject reports whether two sets of content differ on both sides in a
// way that names a different subject: a scope word, a name or a value each.
func differentSubject(x, y map[string]bool, names map[string]bool) bool {
	ex, ey := minus(x, y), minus(y, x)
	has := func(set map[string]bool, pred func(string) bool) bool {
		for k := range set {
			if pred(k) {
				return true
			}
		}
		return false
	}
	isScope := func(k string) bool { return scopeStems[k] }
	isName := func(k string) bool { return names[k] }
	isValue := func(k string) bool { return strings.Contains(k, ":") }
	for _, pred := range []func(string) bool{isScope, isName, isValue} {
		if has(ex, pred) && has(ey, pred) {
			return true
		}
	}
	return false
}

// values finds a value type both statements give, with no value in common, about
// the same subject.
func values(a, b statement) Result {
	if partial(a) || partial(b) {
		return Result{}
	}
	types := make([]string, 0, len(a.values))
	for t := range a.values {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		va, vb := a.values[t], b.values[t]
		if len(vb) == 0 || len(intersect(keys(va), keys(vb))) > 0 || withinBounds(a, b, t) {
			continue
		}
		// A subject narrowed by a phrase or a path of its own ("changes under
		// security/ need two approvals") has values of its own.
		if scopedByPath(a, b) || scopedByPath(b, a) || subjectQualified(a, b) || subjectQualified(b, a) {
			continue
		}
		// A value named after the same thing on both sides ("Go 1.22" vs "Go
		// 1.21", "1000 requests" vs "200 requests") is the same slot however the
		// rest is worded, unless names or scopes differ on both sides.
		named := namedClash(a, b, t)
		if named && differentSubject(a.words, b.words, union(a.shaped, b.shaped)) {
			continue
		}
		if !named && differentSubjects(a.phrase(), b.phrase()) {
			continue
		}
		same := named || sameSubject(a.words, b.words) || labelledClash(a, b, t) || sameSubjectVerbs(a.phrase(), b.phrase())
		if !(same && !narrowerSubject(a.phrase(), b.phrase())) && !boundBroken(a, b, t) {
			continue
		}
		return Result{Contradicts: true, Kind: KindValue, Reason: fmt.Sprintf("different %s: %s vs %s",
			label(t, a.words, b.words), strings.Join(sortedValues(va), ", "), strings.Join(sortedValues(vb), ", "))}
	}
	return Result{}
}

// subjectQualified: the subject of s's first clause is narrowed by a
// prepositional phrase of its own (postQualified).
func subjectQualified(s, other statement) bool {
	return len(s.clauses) > 0 && postQualified(s.clauses[0], other.phrase().keys)
}

// scopedByPath: s's subject gives a path the other statement lacks right after
// a preposition ("changes under security/ need ...").
func scopedByPath(s, other statement) bool {
	if len(s.clauses) == 0 || s.clauses[0].subjEnd <= 0 {
		return false
	}
	subj := s.clauses[0].toks[:s.clauses[0].subjEnd]
	for i, t := range subj {
		if t.kind == tValue && t.vtype == "path" && !other.phrase().keys[t.key] && i > 0 && subj[i-1].kind == tWord && placePrepositions[subj[i-1].lower] {
			return true
		}
	}
	return false
}

// partialQuantifiers open a subject that is only part of a whole: "Most uploads
// are under 2 MB" says what is usual, not a limit, so its values do not clash
// with a rule about all uploads.
var partialQuantifiers = setOf([]string{"most", "many", "some", "few", "several"})

// partial: the statement opens with a partial quantifier.
func partial(s statement) bool {
	return len(s.toks) > 0 && s.toks[0].kind == tWord && partialQuantifiers[s.toks[0].lower]
}

// sameSubject: enough content in common, and any extra content on one side only
// (one statement elaborates on the other rather than talking about something else).
func sameSubject(x, y map[string]bool) bool {
	shared := len(intersect(x, y))
	if shared < 2 && !(shared == 1 && min(len(x), len(y)) <= 2) {
		return false
	}
	if hasScope(minus(x, y)) && hasScope(minus(y, x)) {
		return false
	}
	return len(minus(x, y)) == 0 || len(minus(y, x)) == 0
}

func hasScope(set map[string]bool) bool {
	for k := range set {
		if scopeStems[k] {
			return true
		}
	}
	return false
}

// substitution finds two clauses that are the same except for one short stretch
// right after a choice cue: "use pnpm to install" vs "use yarn to install",
// "stored in UTC" vs "stored in local time".
func substitution(a, b statement, names map[string]bool) Result {
	for _, ca := range a.clauses {
		for _, cb := range b.clauses {
			if ca.negatedAgainst(cb) != cb.negatedAgainst(ca) {
				continue
			}
			if differentSubjects(ca.phrase(), cb.phrase()) {
				continue
			}
			if r := substituted(ca.toks, cb.toks); r.Contradicts {
				return r
			}
		}
	}
	return Result{}
}

// maxChoiceWords bounds the words one choice may span ("AWS Secrets Manager").
const maxChoiceWords = 3

func substituted(x, y []token) Result {
	if len(x) > maxDiffTokens || len(y) > maxDiffTokens {
		return Result{}
	}
	hunks, matched := diff(x, y)
	var only *hunk
	for i := range hunks {
		if contentCount(hunks[i].a) == 0 && contentCount(hunks[i].b) == 0 {
			continue
		}
		if only != nil {
			return Result{}
		}
		only = &hunks[i]
	}
	if only == nil || matched < 2 {
		return Result{}
	}
	na, nb := contentCount(only.a), contentCount(only.b)
	if na == 0 || nb == 0 || na > maxChoiceWords || nb > maxChoiceWords || only.cue == nil {
		return Result{}
	}
	cue := only.cue.lower
	if !cueSet[cue] || hasBound(only.a...) || hasBound(only.b...) || refines(only.a, only.b) || refines(only.b, only.a) {
		return Result{}
	}
	for _, side := range [][]token{only.a, only.b} {
		for _, t := range side {
			if scopeStems[t.key] {
				return Result{}
			}
		}
		if first := firstContent(side); isCopula(cue) && first.kind == tWord && isParticiple(first.lower) {
			return Result{}
		}
	}
	return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different choice after %q: %q vs %q",
		only.cue.surface, surfaces(only.a), surfaces(only.b))}
}

func isCopula(w string) bool {
	switch w {
	case "is", "are", "was", "were", "be":
		return true
	}
	return false
}

func isParticiple(w string) bool {
	return participleSet[w] || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")
}

// label names a value type, more precisely when the statements say what it is.
func label(vtype string, a, b map[string]bool) string {
	if vtype == "number" {
		for _, w := range []string{"port", "version"} {
			if a[w] || b[w] {
				return w
			}
		}
	}
	return vtype
}

// describe lists the subject two clauses share, leaving out the words that carry
// the polarity.
func describe(c, other clause, shared map[string]bool) string {
	polar := map[string]bool{}
	for _, cl := range [][]mark{c.counted(other), other.counted(c)} {
		for _, m := range cl {
			polar[m.key] = true
		}
	}
	var ws []string
	for _, t := range c.toks {
		if shared[t.key] && !t.stop && !polar[t.key] {
			ws = append(ws, t.surface)
		}
	}
	return strings.Join(ws, " ")
}

// polarWords quotes what makes c negative against other ("disabled", "not retry"),
// or, for the affirmative side, the words the other side negates ("enabled").
// Marks both sides share (both say "failed webhooks") cancel out and are left out.
func polarWords(c, other clause) string {
	mine, theirs := c.counted(other), other.counted(c)
	shared := func(ms []mark, m mark) bool {
		for _, o := range ms {
			if o.key == m.key && !o.whole && !m.whole {
				return true
			}
		}
		return false
	}
	var ws []string
	for _, m := range mine {
		if !shared(theirs, m) {
			ws = append(ws, m.surface)
		}
	}
	if len(ws) == 0 {
		negated := map[string]bool{}
		for _, m := range theirs {
			if !shared(mine, m) {
				negated[m.key] = true
			}
		}
		for _, t := range c.toks {
			if negated[t.key] {
				ws = append(ws, t.surface)
			}
		}
	}
	if len(ws) == 0 {
		return "affirmed"
	}
	return fmt.Sprintf("%q", strings.Join(ws, " "))
}

func surfaces(ts []token) string {
	var ws []string
	for _, t := range ts {
		if !t.stop || t.kind == tValue {
			ws = append(ws, t.surface)
		}
	}
	return strings.Join(ws, " ")
}

func contentCount(ts []token) int {
	n := 0
	for _, t := range ts {
		if t.kind == tValue || !t.stop {
			n++
		}
	}
	return n
}

func firstContent(ts []token) token {
	for _, t := range ts {
		if t.kind == tValue || !t.stop {
			return t
		}
	}
	return token{}
}

func sortedValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
