package graph

import (
	"fmt"
	"strings"
)

// Confidence says how an edge's target was chosen (edges.confidence, issue 12).
type Confidence string

// Confidences, best first.
const (
	Exact       Confidence = "exact"      // by scope or type
	Inferred    Confidence = "inferred"   // by import, module or a unique name
	Ambiguous   Confidence = "ambiguous"  // several candidates remain
	NotResolved Confidence = "unresolved" // no target
)

// Levels lists the confidences best first.
var Levels = []Confidence{Exact, Inferred, Ambiguous, NotResolved}

// rank orders confidences: 0 is exact; an unknown value ranks as unresolved.
func (c Confidence) rank() int {
	for i, l := range Levels {
		if c == l {
			return i
		}
	}
	return len(Levels) - 1
}

// AtLeast reports whether c is min or better; an empty min admits everything.
func (c Confidence) AtLeast(min Confidence) bool {
	return min == "" || c.rank() <= min.rank()
}

// ParseConfidence reads a confidence name; the empty string is no filter.
func ParseConfidence(s string) (Confidence, error) {
	if s == "" {
		return "", nil
	}
	for _, l := range Levels {
		if string(l) == s {
			return l, nil
		}
	}
	names := make([]string, len(Levels))
	for i, l := range Levels {
		names[i] = string(l)
	}
	return "", fmt.Errorf("confidence must be one of %s (got %q)", strings.Join(names, ", "), s)
}

// admitted lists the confidences at least min, as the text[] a query filters on.
func admitted(min Confidence) []string {
	var out []string
	for _, l := range Levels {
		if l.AtLeast(min) {
			out = append(out, string(l))
		}
	}
	return out
}
