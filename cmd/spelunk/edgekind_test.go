package main

import (
	"strings"
	"testing"
)

// TestCallersMarkInheritance: a subclass listed among a class's callers says
// the link is inheritance, not a call (issue 40); a call stays unmarked.
func TestCallersMarkInheritance(t *testing.T) {
	_, repo := indexedFixture(t)
	code, out, errOut := spelunk(t, "callers", "RefundError", "--repo", repo)
	if code != 0 {
		t.Fatalf("callers: %d %s", code, errOut)
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "RefundWindowExpired") {
			line = l
		}
	}
	if !strings.Contains(line, "[inherits]") {
		t.Fatalf("the subclass's line %q does not say [inherits]\n%s", line, out)
	}
	code, out, _ = spelunk(t, "callees", "IssueRefund", "--repo", repo)
	if code != 0 || strings.Contains(out, "[calls]") {
		t.Fatalf("callees marks plain calls: %d\n%s", code, out)
	}
}
