package contradict

import (
	"fmt"
	"strings"
)

// A named choice: each statement names something the other does not, each right
// after a choice cue, and the rest is the same subject: "MySQL as the primary
// datastore" vs "PostgreSQL as our primary datastore". The verb that takes the name
// may differ ("is built with Docusaurus" vs "is generated with MkDocs", "uses Bazel
// for builds" vs "builds are driven by Gradle"): it says how the slot is filled,
// not what the statement is about. Two different verbs with two different
// prepositions ("built with Vite" vs "written in TypeScript") name two different
// slots, and are left alone.

// namedChoice finds names that differ on both sides, each named after a choice cue,
// in statements otherwise about the same subject.
func namedChoice(a, b statement, names map[string]bool) Result {
	na, nb := namedOnly(a, b, names), namedOnly(b, a, names)
	if differentSubjects(a.phrase(), b.phrase()) {
		return Result{}
	}
	if len(na) == 0 || len(nb) == 0 || hasScope(keys(na)) || hasScope(keys(nb)) {
		return Result{}
	}
	sa, oka := cueSlot(a, na)
	sb, okb := cueSlot(b, nb)
	// Names of their own in both subjects are two subjects ("Customers in the
	// EU are served from eu-west-1" vs "Customers in the US ...").
	if !oka || !okb || (sa.inSubject && sb.inSubject) {
		return Result{}
	}
	// Two verbs of their own with two cues are two slots; a word the other side
	// also has is no verb of its own ("written with k6" vs "We write our load
	// tests in Locust").
	if sa.verb != "" && sb.verb != "" && sa.verb != sb.verb && sa.cue != sb.cue && !b.words[sa.verb] && !a.words[sb.verb] {
		return Result{}
	}
	// What differs is the filler: the names and the words of their noun phrase
	// ("OAuth 2 bearer tokens" vs "HMAC-signed requests"). Names both sides give
	// are the subject ("Terraform state ... Terraform Cloud").
	plainA, plainB := minus(minus(a.words, keys(na)), sa.filler), minus(minus(b.words, keys(nb)), sb.filler)
	// The verb that takes the name says how the slot is filled; a word the other
	// side has too is not such a verb ("stores invoices in" vs "invoices live in").
	// The words before the cues are verbs when one is a participle ("shipped
	// to" vs "go to") or the other side's is a word both share ("invoices live
	// in" vs "stores invoices in"); otherwise they are two objects, two slots
	// ("stores receipts in" vs "stores invoices in").
	verbal := isParticiple(sa.verbWord) || isParticiple(sb.verbWord)
	verbA := sa.verb != "" && !plainB[sa.verb] && (verbal || plainA[sb.verb])
	verbB := sb.verb != "" && !plainA[sb.verb] && (verbal || plainB[sa.verb])
	if verbA {
		delete(plainA, sa.verb)
	}
	if verbB {
		delete(plainB, sb.verb)
	}
	shared, extraA, extraB := len(intersect(plainA, plainB)), len(minus(plainA, plainB)), len(minus(plainB, plainA))
	// One shared word is enough when it is all either side says besides the
	// name ("Logs are shipped to Elasticsearch" vs "Logs go to Loki").
	if shared == 0 || (shared == 1 && extraA+extraB > 0) || (extraA > 0 && extraB > 0 && !reworded(sa, sb, plainA, plainB)) ||
		(extraA > 0 && extraB > 0 && (ownInSubject(a, plainB) || ownInSubject(b, plainA))) {
		return Result{}
	}
	// Extra words ahead of the shared subject narrow it ("Thumbnail images are
	// stored on the CDN" vs "Images are stored in S3").
	if (leadsWith(a, minus(plainA, plainB), plainB) && !agentSubject(a, b)) || (leadsWith(b, minus(plainB, plainA), plainA) && !agentSubject(b, a)) {
		return Result{}
	}
	return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different choice: %s vs %s",
		strings.Join(sortedValues(na), ", "), strings.Join(sortedValues(nb), ", "))}
}

// maxRewordedWords bounds the words of their own two statements naming a choice
// may have besides it: the verbs the same slot is said with.
const maxRewordedWords = 3

// reworded reports whether two statements that each have words of their own
// besides the names still fill one slot with them: the same cue, after a word
// both share (or none), in the predicate ("The service authenticates users with
// SAML" vs "Users sign in to the service with OpenID Connect"). A word of its
// own right before the cue is an object of its own ("stores invoices in" vs
// "stores receipts in"), a name in the subject a subject of its own ("Customers
// in the EU").
func reworded(sa, sb slot, plainA, plainB map[string]bool) bool {
	both := intersect(plainA, plainB)
	// The cues are no words of their own ("over" is no stop word).
	cues := map[string]bool{ownKey(sa.cue): true, ownKey(sb.cue): true}
	own := len(minus(minus(plainA, plainB), cues)) + len(minus(minus(plainB, plainA), cues))
	if len(both) < 2 || own > maxRewordedWords {
		return false
	}
	if sa.inSubject || sb.inSubject {
		return false
	}
	sharedA, sharedB := sa.before == "" || both[sa.before], sb.before == "" || both[sb.before]
	if sa.cue == sb.cue {
		return sharedA && sharedB
	}
	// Two cues: one side's own word before its cue is the verb the filler is
	// said with ("travel over RabbitMQ" vs "exchange events via Kafka"); two are
	// two objects ("stores invoices in" vs "stores receipts in").
	return sharedA || sharedB
}

// ownInSubject reports whether s has a content word other lacks before its
// first verb marker: a subject of its own ("Config files for the agents are
// written in TOML" vs "Config files for the server are ...").
func ownInSubject(s statement, other map[string]bool) bool {
	for _, c := range s.clauses {
		for i, t := range c.toks {
			if c.subjEnd < 0 || i >= c.subjEnd {
				break
			}
			if t.kind == tWord && !t.stop && !other[t.key] && !s.shaped[t.key] {
				return true
			}
		}
	}
	return false
}

// namedOnly returns the names (key -> as written) s has and other does not.
func namedOnly(s, other statement, names map[string]bool) map[string]string {
	out := map[string]string{}
	for _, t := range s.toks {
		if t.kind == tWord && !t.stop && names[t.key] && !other.words[t.key] {
			out[t.key] = t.surface
		}
	}
	return out
}

// slot is where a statement names its choice: the cue before the name, and the
// content word right before a preposition cue, the verb that takes the name
// ("built" in "built with Docusaurus"; "" when the cue is the verb: "uses Bazel").
type slot struct {
	cue, verb string
	verbWord  string // the verb as written, lower case
	// filler: the content keys of the noun phrase after the cue, up to the next
	// stop word ("OAuth 2 bearer tokens" in "with OAuth 2 bearer tokens for ...").
	filler map[string]bool
	// before: the key of the content word right before the cue ("" when none);
	// inSubject: the name comes before the clause's first verb marker.
	before    string
	inSubject bool
}

// cueSlot finds the first of the names that follows a choice cue, possibly
// through other names and determiners ("in AWS Secrets Manager", "use the MySQL").
func cueSlot(s statement, only map[string]string) (slot, bool) {
	for _, c := range s.clauses {
		for i, t := range c.toks {
			if _, ok := only[t.key]; !ok || t.kind != tWord {
				continue
			}
			if sl, ok := cueBefore(c.toks, i); ok {
				sl.filler = nounPhrase(c.toks, i)
				sl.inSubject = c.subjEnd >= 0 && i < c.subjEnd
				return sl, true
			}
		}
	}
	return slot{}, false
}

// maxNameModifiers bounds the words cueBefore looks back through.
const maxNameModifiers = 2

func cueBefore(toks []token, i int) (slot, bool) {
	// Up to maxNameModifiers words may stand between the cue and the name:
	// "to our self-hosted Loki stack".
	modifiers := 0
	for j := i - 1; j >= 0; j-- {
		p := toks[j]
		if cueSet[p.lower] {
			sl := slot{cue: p.lower}
			if j > 0 && isContent(toks[j-1]) {
				sl.before = toks[j-1].key
			}
			if j > 0 && p.stop && toks[j-1].kind == tWord && !toks[j-1].stop && !toks[j-1].shaped {
				sl.verb, sl.verbWord = toks[j-1].key, toks[j-1].lower
			}
			return sl, true
		}
		if determiners[p.lower] || p.shaped {
			continue
		}
		if p.kind == tWord && !p.stop && !p.neg && modifiers < maxNameModifiers {
			modifiers++
			continue
		}
		break
	}
	return slot{}, false
}

// nounPhrase returns the keys of the run of content words and values from toks[i]
// to the next stop word or negator.
func nounPhrase(toks []token, i int) map[string]bool {
	out := map[string]bool{}
	for ; i < len(toks) && isContent(toks[i]) && !toks[i].neg; i++ {
		if toks[i].kind == tWord && cueSet[toks[i].lower] {
			break
		}
		out[toks[i].key] = true
	}
	return out
}

// leadsWith reports whether one of extra comes in s before its first word of
// shared.
func leadsWith(s statement, extra, shared map[string]bool) bool {
	for _, t := range s.toks {
		switch {
		case !isContent(t):
		case shared[t.key]:
			return false
		case extra[t.key]:
			return true
		}
	}
	return false
}
