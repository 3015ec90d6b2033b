package contradict

import "fmt"

// A limit against a refusal: "The upload limit for attachments is 25 MB" and
// "The API rejects any attachment larger than 10 MB" both give the largest
// attachment accepted, and they give two. What is refused above a value is the
// limit, though the value is written as a lower bound of what is refused.

var (
	limitNouns    = setOf([]string{"limit", "limits", "maximum", "max", "cap", "capped", "ceiling"})
	refusalWords  = setOf([]string{"reject", "rejects", "rejected", "refuse", "refuses", "refused", "block", "blocks", "blocked", "deny", "denies", "denied", "drop", "drops", "dropped", "fail", "fails"})
	overWords     = setOf([]string{"larger", "bigger", "greater", "more", "longer", "higher", "over", "above", "exceeding", "exceed", "exceeds"})
	limitedValues = setOf([]string{"size", "number", "duration", "percent"})
)

// limitValue is the value a statement gives as a limit (after a limit noun) or
// as the threshold of a refusal (after "larger than", "over" in a statement that
// refuses); refusal says which.
func limitValue(s statement) (v token, refusal, ok bool) {
	hasLimit, hasRefusal := false, false
	for _, t := range s.toks {
		hasLimit = hasLimit || t.kind == tWord && limitNouns[t.lower]
		hasRefusal = hasRefusal || t.kind == tWord && refusalWords[t.lower]
	}
	if hasLimit == hasRefusal {
		return token{}, false, false
	}
	for i, t := range s.toks {
		if t.kind != tValue || !limitedValues[t.vtype] {
			continue
		}
		if hasLimit {
			return t, false, true
		}
		if thresholdBefore(s.toks, i) {
			return t, true, true
		}
	}
	return token{}, false, false
}

// thresholdBefore: "larger than", "over", "more than" right before toks[i].
func thresholdBefore(toks []token, i int) bool {
	for j := i - 1; j >= max(i-2, 0); j-- {
		t := toks[j]
		if t.kind == tWord && overWords[t.lower] {
			return true
		}
		if t.kind != tWord || t.lower != "than" {
			return false
		}
	}
	return false
}

// limitClash finds a limit and a refusal threshold of one type that differ, for
// the same thing.
func limitClash(a, b statement) Result {
	va, ra, oka := limitValue(a)
	vb, rb, okb := limitValue(b)
	if !oka || !okb || ra == rb || va.vtype != vb.vtype || va.key == vb.key {
		return Result{}
	}
	// What is refused is what is limited: the word before the threshold
	// ("attachment larger than") is a word of the limit's statement.
	refused, limited := b, a
	if ra {
		refused, limited = a, b
	}
	if thing := refusedThing(refused); thing == "" || !limited.words[thing] {
		return Result{}
	}
	return Result{Contradicts: true, Kind: KindValue, Reason: fmt.Sprintf("different limit: %s vs %s", va.surface, vb.surface)}
}

// refusedThing is the key of the content word right before a refusal's
// threshold: "attachment" in "rejects any attachment larger than 10 MB".
func refusedThing(s statement) string {
	for i, t := range s.toks {
		if t.kind == tWord && overWords[t.lower] && i > 0 && isContent(s.toks[i-1]) && s.toks[i-1].kind == tWord {
			return s.toks[i-1].key
		}
	}
	return ""
}
