package tui_test

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestGraphExpandOnLastRowScrolls: expanding the node on the last visible row
// scrolls its children into view (issue 40).
func TestGraphExpandOnLastRowScrolls(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 120, 12) // seven rows of tree: the callees group is the last one on screen
	d.Keys("compute_tax", "enter")
	d.WaitFor("results", resultsFor(m, "compute_tax"))
	d.Keys("enter")
	d.WaitFor("symbol", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "compute_tax" })
	d.Keys("c")
	d.WaitFor("callers", func() bool { return m.Active() == event.Graph && !m.Graph().Loading() && len(m.Graph().Rows()) > 3 })
	d.Keys("G") // the last row: the callees group, collapsed
	last := len(m.Graph().Rows())
	if !strings.Contains(m.Graph().Rows()[last-1], "callees") {
		t.Fatalf("last row %q, want the callees group\n%s", m.Graph().Rows()[last-1], strings.Join(m.Graph().Rows(), "\n"))
	}
	d.Keys("l")
	d.WaitFor("callees", func() bool { return !m.Graph().Loading() && len(m.Graph().Rows()) > last })
	child := strings.TrimSpace(strings.TrimLeft(m.Graph().Rows()[last], "│├└─ "))
	if view := m.View(); !strings.Contains(view, child) {
		t.Fatalf("after expanding the last row its first child %q is not on screen:\n%s", child, view)
	}
}
