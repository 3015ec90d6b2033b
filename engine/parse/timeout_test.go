package parse

import (
	"strings"
	"testing"
	"time"
)

// TestParseTimeoutIsPartial: a parse cut short by the time budget still
// gives a file (its text in blocks), marked partial with a note, so that the
// index counts it among the partial files instead of passing it off as clean.
// Not parallel: it sets the package's budget.
func TestParseTimeoutIsPartial(t *testing.T) {
	saved := parseTimeout
	parseTimeout = func(int) time.Duration { return time.Microsecond }
	defer func() { parseTimeout = saved }()
	src := []byte(strings.Repeat("func f(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn b + a*2\n}\n\n", 5000))
	f, err := Parse("big.go", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Partial || !strings.Contains(strings.Join(f.Notes, "; "), "timed out") {
		t.Fatalf("partial %v, notes %v: want a partial file noting the timeout", f.Partial, f.Notes)
	}
	checkInvariants(t, f, src)
	parseTimeout = saved
	if f, err = Parse("big.go", src, Options{}); err != nil || f.Partial {
		t.Fatalf("with the normal budget: partial %v, err %v, notes %v", f.Partial, err, f.Notes)
	}
}
