package tui_test

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestGraphTabFollowsOpenSymbol: after another symbol is opened, 3 shows that
// symbol's graph, not the one drawn for the first (issue 40).
func TestGraphTabFollowsOpenSymbol(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.Keys("compute_tax", "enter")
	d.WaitFor("results", resultsFor(m, "compute_tax"))
	d.Keys("enter")
	d.WaitFor("symbol", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "compute_tax" })
	d.Keys("c")
	d.WaitFor("callers", func() bool { return m.Active() == event.Graph && !m.Graph().Loading() && len(m.Graph().Rows()) > 3 })
	for i, r := range m.Graph().Rows() {
		if strings.Contains(r, "process_refund") {
			m.Graph().SetCursor(i)
		}
	}
	d.Keys("enter")
	d.WaitFor("caller", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "process_refund" })
	d.Keys("3")
	d.WaitFor("its graph", func() bool { return m.Active() == event.Graph && !m.Graph().Loading() })
	if got := m.Graph().Label(); !strings.Contains(got, "process_refund") {
		t.Fatalf("3 after opening process_refund shows %q, want its graph", got)
	}
	// Back returns to the symbol 3 was pressed on.
	d.Keys("esc")
	if s, _ := m.Symbol().Symbol(); m.Active() != event.Symbol || s.Name != "process_refund" {
		t.Errorf("back: %s showing %s, want the symbol process_refund", m.Active(), s.Name)
	}
}
