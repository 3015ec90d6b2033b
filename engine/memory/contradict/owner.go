package contradict

import "fmt"

// An owner clash: two statements give the same thing two different owners. A
// thing has one owner, so "The platform team owns the Terraform modules" and
// "The Terraform modules belong to the data team" cannot both hold, although
// "Admins can delete projects" and "Members can delete projects" can: only the
// relations below are exclusive. The owner is the subject of an active relation
// ("X owns", "X is responsible for") and what follows "by" or "to" in a passive
// one ("owned by X", "belongs to X", "handled by X").

// ownerWords name an exclusive relation between an owner and a thing.
var ownerWords = setOf([]string{
	"own", "owns", "owned", "owner", "owners", "belong", "belongs", "belonged",
	"maintain", "maintains", "maintained", "maintainer", "maintainers",
	"handle", "handles", "handled", "responsible",
})

// ownerCues take the owner after a passive relation word.
var ownerCues = setOf([]string{"by", "to"})

// genericOwners name the kind of an owner, not which one: "the data team" and
// "the platform team" share "team" and are still two owners.
var genericOwners = setOf([]string{"team", "teams", "group", "squad", "department", "org"})

// ownership is one relation: who owns, and what.
type ownership struct {
	owner, thing []token
}

// ownershipOf finds the exclusive relation of a clause, if it has one.
func ownershipOf(c clause) (ownership, bool) {
	if len(c.marks) > 0 {
		return ownership{}, false
	}
	for i, t := range c.toks {
		if t.kind != tWord || !ownerWords[t.lower] {
			continue
		}
		before, after := contentOf(c.toks[:i], false), c.toks[i+1:]
		if len(after) > 0 && ownerCues[after[0].lower] {
			return ownership{owner: contentOf(after[1:], true), thing: before}, true
		}
		return ownership{owner: before, thing: contentOf(after, true)}, true
	}
	return ownership{}, false
}

// contentOf returns the content words and values of ts, without relation words;
// upTo stops at the first clause-internal preposition after some content, where
// an adjunct starts ("the feature store since 2023").
func contentOf(ts []token, upTo bool) []token {
	var out []token
	for _, t := range ts {
		if upTo && len(out) > 0 && t.kind == tWord && adjunctStarts[t.lower] {
			break
		}
		if isContent(t) && !(t.kind == tWord && (ownerWords[t.lower] || placeWords[t.lower])) {
			out = append(out, t)
		}
	}
	return out
}

// placeWords are prepositions the stop words lack: "the Terraform under infra/"
// is the Terraform of infra/.
var placeWords = setOf([]string{"under", "inside", "within", "across", "below", "beneath"})

var adjunctStarts = setOf([]string{"since", "after", "before", "during", "until", "when", "end"})

// ownerClash finds two clauses giving one thing owners with no word in common.
func ownerClash(a, b statement) Result {
	for _, ca := range a.clauses {
		oa, ok := ownershipOf(ca)
		if !ok {
			continue
		}
		for _, cb := range b.clauses {
			ob, ok := ownershipOf(cb)
			if !ok || !sameThing(oa.thing, ob.thing) {
				continue
			}
			wa, wb := ownerKeys(oa.owner), ownerKeys(ob.owner)
			if len(wa) == 0 || len(wb) == 0 || len(intersect(wa, wb)) > 0 {
				continue
			}
			return Result{Contradicts: true, Kind: KindChoice, Reason: fmt.Sprintf("different owner of %s: %s vs %s",
				surfaces(oa.thing), surfaces(oa.owner), surfaces(ob.owner))}
		}
	}
	return Result{}
}

func ownerKeys(ts []token) map[string]bool {
	out := map[string]bool{}
	for _, t := range ts {
		if !genericOwners[t.lower] {
			out[t.key] = true
		}
	}
	return out
}

// sameThing: the two things share a word, and at most one has words of its own
// (one names it more fully; two own words on each side are two things).
func sameThing(x, y []token) bool {
	kx, ky := contentKeys(x), contentKeys(y)
	if len(intersect(kx, ky)) == 0 {
		return false
	}
	return len(minus(kx, ky)) == 0 || len(minus(ky, kx)) == 0
}
