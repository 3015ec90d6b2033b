package tui_test

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestExplainFinalFitsAt80x24: at 80×24 the explain panel keeps its "= final"
// row on screen (issue 40): what gives way is detail, not the answer.
func TestExplainFinalFitsAt80x24(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 80, 24)
	d.Keys("compute_tax", "enter")
	d.WaitFor("results", resultsFor(m, "compute_tax"))
	d.Keys("esc", "e") // to the results, then the explain panel
	view := m.View()
	for _, want := range []string{"explain · #1", "fused (Σ contrib)", "= final"} {
		if !strings.Contains(view, want) {
			t.Errorf("at 80×24 the explain panel lacks %q:\n%s", want, view)
		}
	}
	if n := len(strings.Split(view, "\n")); n > 24 {
		t.Errorf("the view has %d lines at 80×24", n)
	}
}
