package contradict

import "fmt"

// A phase choice: one step done in two phases of the software's life. "Static
// assets are fingerprinted during the build" and "Asset fingerprinting happens at
// deploy time" put one step in two places; the phases are siblings, so both
// cannot hold.

// phaseWords are the phases a step is done in.
var phaseWords = setOf([]string{"build", "compile", "deploy", "deployment", "release", "merge", "commit", "startup", "boot", "install", "runtime"})

// phaseCues put a phase after them: "during the build", "at deploy time", "on
// merge".
var phaseCues = setOf([]string{"during", "at", "on"})

// minPhaseShared is how many content words besides the phases the two sides
// must share to be about one step.
const minPhaseShared = 2

// phaseOf returns the one phase s names after a phase cue, or before "time".
func phaseOf(s statement) (token, bool) {
	var found []token
	for i, t := range s.toks {
		if t.kind != tWord || !phaseWords[t.lower] {
			continue
		}
		timed := i+1 < len(s.toks) && s.toks[i+1].lower == "time"
		if timed || phaseCued(s.toks, i) || t.lower == "runtime" {
			found = append(found, t)
		}
	}
	if len(found) == 0 {
		return token{}, false
	}
	for _, f := range found[1:] {
		if ownKey(f.lower) != ownKey(found[0].lower) {
			return token{}, false
		}
	}
	return found[0], true
}

// phaseCued: a phase cue before toks[i], through determiners ("during the").
func phaseCued(toks []token, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch t := toks[j]; {
		case t.kind == tWord && phaseCues[t.lower]:
			return true
		case t.kind == tWord && (determiners[t.lower] || t.lower == "each" || t.lower == "every"):
		default:
			return false
		}
	}
	return false
}

// phaseClash finds one step in two phases.
func phaseClash(a, b statement) Result {
	if hasMarks(a) || hasMarks(b) {
		return Result{}
	}
	pa, oka := phaseOf(a)
	pb, okb := phaseOf(b)
	if !oka || !okb || ownKey(pa.lower) == ownKey(pb.lower) {
		return Result{}
	}
	shared := intersect(a.words, b.words)
	delete(shared, ownKey("time"))
	if len(shared) < minPhaseShared || b.words[pa.key] || a.words[pb.key] {
		return Result{}
	}
	return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different phase: %s vs %s", pa.surface, pb.surface)}
}
