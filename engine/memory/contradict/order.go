package contradict

import "fmt"

// An order: "merge into main first, then cherry-pick to the release branch" vs
// "land on the release branch first, then merge back into main". Both statements
// name the same two steps or places; each puts a different one first, so both
// cannot hold. What comes first is the content word right before "first", or
// before "then" or "before" joining two steps ("Tag the release, then build",
// "Build the artifacts before tagging the release").

// orderWords mark the step that comes first: the word before them in its clause.
var orderWords = map[string]bool{"first": true}

// sequenceWords join two steps, the first one before them (across a comma:
// "tag the release, then build"). A value next to one places something in time
// instead ("frozen 24 hours before each release").
var sequenceWords = map[string]bool{"then": true, "before": true}

// orderClash finds two statements that each put first something the other names
// but does not put first (not anywhere before its "first": "the migrations run
// first" puts the migrations first as well as "run the migrations first").
func orderClash(a, b statement) Result {
	fa, oka := firstStep(a)
	fb, okb := firstStep(b)
	if !oka || !okb || fa.key == fb.key || !a.words[fb.key] || !b.words[fa.key] {
		return Result{}
	}
	if fa.before[fb.key] || fb.before[fa.key] {
		return Result{}
	}
	if len(intersect(a.words, b.words)) < 3 {
		return Result{}
	}
	return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different order: %s first vs %s first",
		fa.surface, fb.surface)}
}

// step is what a statement puts first: the content word right before "first", and
// the keys of all the content before it in its clause.
type step struct {
	token
	before map[string]bool
}

// firstStep is the step a statement puts first; ok is false when it marks no step
// or more than one.
func firstStep(s statement) (step, bool) {
	var found []step
	for _, c := range s.clauses {
		for i, t := range c.toks {
			if t.kind != tWord || !orderWords[t.lower] {
				continue
			}
			if w, ok := contentBefore(c.toks, i); ok {
				found = append(found, step{w, contentKeys(c.toks[:i])})
			}
		}
	}
	for i, t := range s.toks {
		if t.kind != tWord || !sequenceWords[t.lower] || i == 0 || i+1 == len(s.toks) {
			continue
		}
		if s.toks[i-1].kind == tValue || s.toks[i+1].kind == tValue {
			continue
		}
		if w, ok := contentBefore(s.toks, i); ok {
			found = append(found, step{w, contentKeys(s.toks[:i])})
		}
	}
	// Two order words may mark one step ("X first, then Y").
	for _, f := range found[min(1, len(found)):] {
		if f.key != found[0].key {
			return step{}, false
		}
	}
	if len(found) == 0 {
		return step{}, false
	}
	return found[0], true
}

func contentKeys(ts []token) map[string]bool {
	out := map[string]bool{}
	for _, t := range ts {
		if isContent(t) {
			out[t.key] = true
		}
	}
	return out
}

// contentBefore is the last content word before toks[i] in its clause, order
// words left out ("the code first, then").
func contentBefore(toks []token, i int) (token, bool) {
	for j := i - 1; j >= 0; j-- {
		if toks[j].kind == tWord && !toks[j].stop && !orderWords[toks[j].lower] {
			return toks[j], true
		}
	}
	return token{}, false
}

// A timing: one statement does something before an event, the other does it after
// the same event ("Translations are pulled in before the release branch is cut"
// vs "Translation files get synced into the release branch after it has been
// cut"). The subject (the first content word) and a word of the event are shared.

// timing is where a statement places itself against an event.
type timing struct {
	after       bool
	head        string          // the statement's first content word
	event, what map[string]bool // content after and before the timing word
	eventToks   []token
}

// timingOf finds the one "before" or "after" of s; ok is false with none or
// both, or when a value next to it makes it a distance ("24 hours before").
func timingOf(s statement) (timing, bool) {
	var tm timing
	found := 0
	for i, t := range s.toks {
		if t.kind != tWord || (t.lower != "before" && t.lower != "after") {
			continue
		}
		if i == 0 || s.toks[i-1].kind == tValue || i+1 < len(s.toks) && s.toks[i+1].kind == tValue {
			return tm, false
		}
		found++
		tm = timing{after: t.lower == "after", event: contentKeys(s.toks[i+1:]), what: contentKeys(s.toks[:i]), eventToks: s.toks[i+1:]}
	}
	head := firstContent(s.toks)
	tm.head = head.key
	return tm, found == 1 && head.kind == tWord && len(tm.event) > 0
}

// timingClash finds two statements placing the same thing on both sides of one
// event.
func timingClash(a, b statement) Result {
	ta, oka := timingOf(a)
	tb, okb := timingOf(b)
	if !oka || !okb || ta.after == tb.after || ta.head != tb.head || !ta.what[ta.head] || !tb.what[tb.head] {
		return Result{}
	}
	if len(intersect(ta.event, tb.event)) == 0 || differentSubjects(a.phrase(), b.phrase()) {
		return Result{}
	}
	first, second := "before", "after"
	if ta.after {
		first, second = second, first
	}
	return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different order: %s vs %s %s",
		first, second, surfaces(ta.eventToks))}
}
