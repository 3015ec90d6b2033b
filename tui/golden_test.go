package tui_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/internal/golden"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
	"github.com/spelunkhq/spelunk/tui/render"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// updating reports whether -update was given. The flag itself is registered by
// charmbracelet/x/exp/golden (imported through teatest); the golden views here
// share it.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// recording reports whether -record was given: the golden tests then search
// live and rewrite their recorded answers (testdata/tui/searches_*.json).
var recording = flag.Bool("record", false, "record the golden screens' search answers from live searches on the fixture")

// goldenDir is testdata/tui at the repository root.
func goldenDir() string { return filepath.Join("..", "testdata", "tui") }

// replayed is the backend of a golden test: live but for Search, which answers
// from testdata/tui/searches_<name>.json (see tuitest.Replay).
func replayed(t *testing.T, env *tuitest.Env, name string) *tuitest.Replayed {
	return tuitest.Replay(t, env, filepath.Join(goldenDir(), "searches_"+name+".json"), *recording)
}

// Timings, durations and memory/conflict ids vary between runs: they are masked
// with characters of the same width so the layout stays checked.
var (
	timings = regexp.MustCompile(` *\d+(\.\d+)?(ms|µs|s)\b`)
	ids     = regexp.MustCompile(`(conflict |· |← |kept |invalidated |of )[0-9a-f]{8}\b`)
)

// scrub masks what varies between runs, and the fixture's revision, which
// changes whenever a file is added to the fixture.
func scrub(s, revision string) string {
	for n := len(revision); n >= 7; n-- {
		s = strings.ReplaceAll(s, revision[:n], strings.Repeat("#", n))
	}
	s = timings.ReplaceAllStringFunc(s, func(m string) string {
		unit := strings.TrimLeft(m, " 0123456789.")
		return strings.Repeat(" ", len([]rune(m))-len([]rune(unit))-1) + "#" + unit
	})
	s = ids.ReplaceAllStringFunc(s, func(m string) string { return m[:len(m)-8] + "########" })
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.TrimRight(l, " "))
	}
	return strings.Join(out, "\n") + "\n"
}

// checkGolden compares a view with testdata/tui/name.golden (-update rewrites
// it) and checks the view's geometry: exactly h lines of at most w cells.
func checkGolden(t *testing.T, env *tuitest.Env, name, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		if got := render.Width(l); got > w {
			t.Errorf("%s: line %d is %d cells wide, want at most %d: %q", name, i+1, got, w, l)
		}
	}
	got := scrub(view, env.Revision(t))
	golden.Check(t, filepath.Join(goldenDir(), name+".golden"), got, updating(),
		"go test ./tui -run Golden -update")
}

// TestGoldenViews drives every pane to a state with real data from the indexed
// fixture and checks its view at 120x40 and 80x24. The Search pane's answers are
// replayed from a recording of real searches, so that these screens follow the
// screen code, not the ranking.
func TestGoldenViews(t *testing.T) {
	env := tuitest.Open(t, true)
	env.SeedMemories(t)
	backend := replayed(t, env, "views")
	for _, size := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		suffix := fmt.Sprintf("_%dx%d", size.w, size.h)
		m := tui.New(backend, tuitest.Config(t))
		d := tuitest.NewDriver(t, m, size.w, size.h)
		d.WaitFor("status and conflicts", func() bool { return m.Status().Name != "" && m.Conflicts().Loaded() })
		d.Settle()
		checkGolden(t, env, "search_empty"+suffix, m.View(), size.w, size.h)

		d.Keys("refund window")
		d.WaitFor("results", func() bool { r := m.Search().Response(); return r != nil && r.Query == "refund window" })
		d.Keys("down", "down")
		d.WaitFor("preview", func() bool { return !strings.Contains(m.View(), "highlighting…") })
		checkGolden(t, env, "search"+suffix, m.View(), size.w, size.h)

		d.Keys("e")
		if size.w < 100 {
			checkGolden(t, env, "search_explain"+suffix, m.View(), size.w, size.h)
		}
		d.Keys("e", "m", "down", "x", "space", "right", "+")
		d.WaitFor("re-run without dense", func() bool {
			r := m.Search().Response()
			return r != nil && !m.Search().Loading() && r.Weights["lexical"] == 1.25 && func() bool {
				for _, res := range r.Results {
					if _, ok := res.Explain.Channels["dense"]; ok {
						return false
					}
				}
				return true
			}()
		})
		d.Settle()
		checkGolden(t, env, "search_tuned"+suffix, m.View(), size.w, size.h)

		// process_refund: a decorated Python function with calls to follow.
		d.Keys("/")
		for range len("refund window") {
			d.Keys("backspace")
		}
		d.Keys("process_refund", "enter")
		d.WaitFor("process_refund first", func() bool {
			r, ok := m.Search().Selected()
			return ok && r.Name == "process_refund" && m.Search().Response().Query == "process_refund"
		})
		d.Keys("enter")
		d.WaitFor("symbol", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "process_refund" })
		d.Keys("j", "j", "j", "j")
		checkGolden(t, env, "symbol"+suffix, m.View(), size.w, size.h)

		d.Keys("C")
		d.WaitFor("callees", func() bool { return m.Active() == event.Graph && !m.Graph().Loading() && len(m.Graph().Rows()) > 4 })
		d.Keys("e")
		d.WaitFor("second hop", func() bool { return !m.Graph().Loading() })
		checkGolden(t, env, "graph"+suffix, m.View(), size.w, size.h)

		d.Keys("4")
		d.WaitFor("conflict rendered", func() bool { return !strings.Contains(m.View(), "rendering…") })
		checkGolden(t, env, "conflicts"+suffix, m.View(), size.w, size.h)

		d.Keys("5")
		d.WaitFor("briefing", func() bool { return m.Memory().Loaded() })
		checkGolden(t, env, "memory"+suffix, m.View(), size.w, size.h)

		d.Keys("?")
		checkGolden(t, env, "help_memory"+suffix, m.View(), size.w, size.h)
		d.Keys("?", "1", "?")
		checkGolden(t, env, "help_search"+suffix, m.View(), size.w, size.h)
	}
}
