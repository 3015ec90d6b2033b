package graphview_test

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestGraphFieldWriters runs the real program over the indexed fixture: a
// struct's graph has a fields group; a field opens to its writers and readers,
// and a writer is reached with the access line and opens to its own callers.
func TestGraphFieldWriters(t *testing.T) {
	env := tuitest.Open(t, true)
	m := tui.New(env.Backend, tuitest.Config(t))
	d := tuitest.NewDriver(t, m, 140, 40)
	d.WaitFor("status", func() bool { return m.Status().Name != "" || m.LastError() != nil })
	d.Keys("Limiter", "enter")
	d.WaitFor("results", func() bool { r, ok := m.Search().Selected(); return ok && r.Name == "Limiter" && r.Kind == "struct" })
	d.Keys("c")
	rows := func() string { return strings.Join(m.Graph().Rows(), "\n") }
	d.WaitFor("graph", func() bool {
		return m.Active() == event.Graph && !m.Graph().Loading() && strings.Contains(rows(), "fields")
	})
	// moveTo walks the cursor down to the first row containing text, expanding it.
	moveTo := func(text string) {
		t.Helper()
		for range 60 {
			if strings.Contains(m.Graph().Rows()[m.Graph().Cursor()], text) {
				d.Keys("l")
				d.WaitFor(text+" loaded", func() bool { return !m.Graph().Loading() })
				return
			}
			d.Keys("down")
		}
		t.Fatalf("no row %q in:\n%s", text, rows())
	}
	moveTo("fields")
	d.WaitFor("fields", func() bool { return strings.Contains(rows(), "Limiter.buckets") })
	moveTo("Limiter.buckets")
	moveTo("writers")
	d.WaitFor("writers", func() bool { return strings.Contains(rows(), "Limiter.refill") })
	var writer string
	for _, r := range strings.Split(m.View(), "\n") {
		if strings.Contains(r, "Limiter.refill") {
			writer = r
		}
	}
	if !strings.Contains(writer, "writes @") || strings.Contains(writer, "[inferred]") {
		t.Errorf("writer row: %q\n%s", writer, rows())
	}
	moveTo("Limiter.refill")
	d.WaitFor("refill's callers", func() bool { return strings.Contains(rows(), "Limiter.Allow") })
}
