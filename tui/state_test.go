package tui_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/backend"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
	"github.com/spelunkhq/spelunk/tui/render"
	"github.com/spelunkhq/spelunk/tui/searchview"
)

// slowSearch is the real backend with a per-query delay on Search, to make the
// order in which answers arrive deterministic.
type slowSearch struct {
	tui.Backend
	mu    sync.Mutex
	delay map[string]time.Duration
	calls []string
}

func (s *slowSearch) Search(ctx context.Context, q string, opts search.Options) (*search.Response, error) {
	s.mu.Lock()
	d := s.delay[q]
	s.calls = append(s.calls, q)
	s.mu.Unlock()
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Backend.Search(ctx, q, opts)
}

func (s *slowSearch) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func newDriver(t *testing.T, b tui.Backend, w, h int, mod ...func(*tui.Config)) (*tui.Model, *tuitest.Driver) {
	t.Helper()
	cfg := tuitest.Config(t)
	for _, f := range mod {
		f(&cfg)
	}
	m := tui.New(b, cfg)
	d := tuitest.NewDriver(t, m, w, h)
	d.WaitFor("status", func() bool { return m.Status().Name != "" || m.LastError() != nil })
	return m, d
}

func resultsFor(m *tui.Model, q string) func() bool {
	return func() bool {
		r := m.Search().Response()
		return r != nil && r.Query == q && !m.Search().Loading()
	}
}

func TestTypingDebouncesAndDropsStaleResults(t *testing.T) {
	env := tuitest.Open(t, true)
	slow := &slowSearch{Backend: env.Backend, delay: map[string]time.Duration{"refund": 800 * time.Millisecond}}
	// A generous debounce, so a loaded CI machine still types the six keys within it.
	m, d := newDriver(t, slow, 120, 40, func(c *tui.Config) { c.Debounce = 300 * time.Millisecond })

	// Keystrokes within the debounce pause make one search, for the whole query.
	start := time.Now()
	d.Keys("Cart.A")
	if took := time.Since(start); took > 250*time.Millisecond {
		t.Errorf("typing 6 keys took %s: Update must not wait on the database", took)
	}
	d.WaitFor("Cart.A results", resultsFor(m, "Cart.A"))
	if calls := slow.Calls(); len(calls) != 1 || calls[0] != "Cart.A" {
		t.Fatalf("searches %q, want exactly one for the whole query", calls)
	}

	// A slow search superseded by a newer query never replaces the newer results.
	for range 6 {
		d.Keys("backspace")
	}
	d.Keys("refund")
	d.WaitFor("the slow search to start", func() bool { return len(slow.Calls()) == 2 })
	for range 6 {
		d.Keys("backspace")
	}
	d.Keys("invoice")
	d.WaitFor("invoice results", resultsFor(m, "invoice"))
	time.Sleep(time.Second) // the slow "refund" answer (or its cancellation) arrives now
	d.Settle()
	if got := m.Search().Response().Query; got != "invoice" {
		t.Fatalf("shown results are for %q, want the latest query %q", got, "invoice")
	}
	if err := m.LastError(); err != nil {
		t.Fatalf("a superseded search reported an error: %v", err)
	}
}

func TestSearchTuningChangesTheRequest(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.Keys("is_eligible_for_refund", "enter")
	d.WaitFor("results", resultsFor(m, "is_eligible_for_refund"))
	if r, _ := m.Search().Selected(); r.Name != "is_eligible_for_refund" {
		t.Fatalf("top result %s, want is_eligible_for_refund", r.Name)
	}
	// The engine's defaults for an identifier query; the keys adjust from them.
	base := m.Search().Response()
	wantLex, wantK := base.Weights[search.Lexical]+0.25+0.25, base.K+10
	tests := []struct {
		keys  []string
		check func(o search.Options) string
	}{
		{[]string{"space"}, func(o search.Options) string { // dense off
			if len(o.Channels) != len(search.AllChannels)-1 || contains(o.Channels, search.Dense) {
				return "channels " + join(o.Channels) + ", want all but dense"
			}
			return ""
		}},
		{[]string{"right", "+", "+"}, func(o search.Options) string { // lexical weight
			if o.Weights[search.Lexical] != wantLex {
				return "lexical weight " + ftoa(o.Weights[search.Lexical]) + ", want " + ftoa(wantLex) + " (the identifier default + 2 × 0.25)"
			}
			return ""
		}},
		{[]string{"]", "]", "["}, func(o search.Options) string {
			if o.K != wantK {
				return "k " + ftoa(o.K) + ", want " + ftoa(wantK) + " (the default + 10 + 10 - 10)"
			}
			return ""
		}},
		{[]string{"left", "space"}, func(o search.Options) string { // dense back on
			if o.Channels != nil {
				return "channels " + join(o.Channels) + ", want nil (all)"
			}
			return ""
		}},
		{[]string{"alt+g"}, func(o search.Options) string { // graph off directly
			if len(o.Channels) != len(search.AllChannels)-1 || contains(o.Channels, search.Graph) {
				return "channels " + join(o.Channels) + ", want all but graph"
			}
			return ""
		}},
		{[]string{"alt+g"}, func(o search.Options) string {
			if o.Channels != nil {
				return "channels " + join(o.Channels) + ", want nil (all)"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		d.Keys(tt.keys...)
		if msg := tt.check(m.Search().Options()); msg != "" {
			t.Errorf("after %q: %s", tt.keys, msg)
		}
	}
	d.WaitFor("re-run with the final settings", func() bool {
		r := m.Search().Response()
		return r != nil && r.K == wantK && r.Weights[search.Lexical] == wantLex && !m.Search().Loading()
	})
	// Dense off: no result carries a dense score.
	d.Keys("alt+d")
	d.WaitFor("re-run without dense", func() bool {
		r := m.Search().Response()
		if r == nil || m.Search().Loading() || len(r.Results) == 0 {
			return false
		}
		for _, res := range r.Results {
			if _, ok := res.Explain.Channels[search.Dense]; ok {
				return false
			}
		}
		return true
	})
	if r, _ := m.Search().Selected(); r.Name != "is_eligible_for_refund" {
		t.Errorf("selection moved to %s across a re-run of the same query", r.Name)
	}
}

func TestJudgmentsAreSavedAsAnEvalQuery(t *testing.T) {
	env := tuitest.Open(t, true)
	var cfgPath string
	m, d := newDriver(t, env.Backend, 120, 40, func(c *tui.Config) { cfgPath = c.EvalPath })
	d.Keys("Cart.Add", "enter")
	d.WaitFor("results", resultsFor(m, "Cart.Add"))
	resp := m.Search().Response()
	if len(resp.Results) < 2 {
		t.Fatalf("%d results, want at least 2", len(resp.Results))
	}
	first, second := resp.Results[0], resp.Results[1]
	d.Keys("m", "down", "x")
	if m.Search().Judgment(first.ID) != searchview.Relevant || m.Search().Judgment(second.ID) != searchview.NotRelevant {
		t.Fatalf("marks: %v %v", m.Search().Judgment(first.ID), m.Search().Judgment(second.ID))
	}
	d.Keys("w")
	d.WaitFor("saved note", func() bool { return strings.Contains(m.Note(), "saved") })
	lines := readLines(t, cfgPath)
	if len(lines) != 1 {
		t.Fatalf("%d lines in %s, want 1", len(lines), cfgPath)
	}
	var q struct {
		ID, Kind, Query string
		Expect          []map[string]any
		Reject          []map[string]any
	}
	if err := json.Unmarshal([]byte(lines[0]), &q); err != nil {
		t.Fatal(err)
	}
	if q.Query != "Cart.Add" || q.Kind != "identifier" || !strings.HasPrefix(q.ID, "tui-") {
		t.Errorf("saved %+v", q)
	}
	if len(q.Expect) != 1 || q.Expect[0]["path"] != first.Path || q.Expect[0]["symbol"] != first.Name {
		t.Errorf("expect %v, want %s:%s", q.Expect, first.Path, first.Name)
	}
	if first.Receiver != "" && q.Expect[0]["receiver"] != strings.TrimLeft(first.Receiver, "*") {
		t.Errorf("expect %v lacks receiver %s", q.Expect, first.Receiver)
	}
	if len(q.Reject) != 1 || q.Reject[0]["symbol"] != second.Name {
		t.Errorf("reject %v, want %s", q.Reject, second.Name)
	}
	// Saving again (one mark removed) replaces the line instead of adding one.
	d.Keys("x", "w")
	d.WaitFor("second save", func() bool {
		return len(readLines(t, cfgPath)) == 1 && !strings.Contains(readLines(t, cfgPath)[0], "reject")
	})
}

func TestNavigationBackStack(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.Keys("compute_tax", "enter")
	d.WaitFor("results", resultsFor(m, "compute_tax"))
	d.Keys("enter")
	d.WaitFor("symbol", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "compute_tax" })
	if m.Active() != event.Symbol {
		t.Fatalf("active %s, want Symbol", m.Active())
	}
	d.Keys("c")
	d.WaitFor("callers", func() bool { return m.Active() == event.Graph && !m.Graph().Loading() && len(m.Graph().Rows()) > 3 })
	rows := strings.Join(m.Graph().Rows(), "\n")
	if !strings.Contains(rows, "process_refund") {
		t.Fatalf("callers of compute_tax lack process_refund:\n%s", rows)
	}
	// Open a caller: it opens at the line of the call.
	for i, r := range m.Graph().Rows() {
		if strings.Contains(r, "process_refund") {
			m.Graph().SetCursor(i)
		}
	}
	d.Keys("enter")
	d.WaitFor("caller", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "process_refund" })
	if line := m.Symbol().CursorLine(); line != 64 {
		t.Errorf("cursor on line %d, want 64 (the call of compute_tax)", line)
	}
	if got := m.History(); len(got) != 3 {
		t.Fatalf("history %q, want search, symbol, graph", got)
	}
	d.Keys("esc")
	if m.Active() != event.Graph || !strings.Contains(strings.Join(m.Graph().Rows(), "\n"), "process_refund") {
		t.Fatalf("back: active %s, want the graph as it was", m.Active())
	}
	d.Keys("backspace")
	if s, _ := m.Symbol().Symbol(); m.Active() != event.Symbol || s.Name != "compute_tax" {
		t.Fatalf("back: active %s showing %s, want Symbol compute_tax", m.Active(), s.Name)
	}
	d.Keys("esc")
	if m.Active() != event.Search || len(m.History()) != 0 {
		t.Fatalf("back: active %s, history %q, want Search and an empty stack", m.Active(), m.History())
	}
	if r, _ := m.Search().Selected(); r.Name != "compute_tax" {
		t.Errorf("selection %s after coming back, want compute_tax", r.Name)
	}
}

func TestSymbolJumps(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.Keys("process_refund", "enter")
	d.WaitFor("results", resultsFor(m, "process_refund"))
	d.Keys("enter")
	d.WaitFor("symbol", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "process_refund" })

	// The definition of the call on the cursor line (line 61 calls
	// is_eligible_for_refund).
	for m.Symbol().CursorLine() < 61 {
		d.Keys("j")
	}
	d.Keys("d")
	d.WaitFor("definition", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "is_eligible_for_refund" })
	d.Keys("esc")
	if s, _ := m.Symbol().Symbol(); s.Name != "process_refund" || m.Symbol().CursorLine() != 61 {
		t.Fatalf("back to %s line %d, want process_refund line 61", s.Name, m.Symbol().CursorLine())
	}
	// The file header.
	d.Keys("H")
	d.WaitFor("file header", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Kind == "module" })
	if s, _ := m.Symbol().Symbol(); s.Path != "py/shop/billing/refunds.py" {
		t.Errorf("file header of %s, want py/shop/billing/refunds.py", s.Path)
	}
	// The file's imports: repository files (expandable) and external modules.
	d.Keys("i")
	d.WaitFor("imports", func() bool { return m.Active() == event.Graph && !m.Graph().Loading() && len(m.Graph().Rows()) > 3 })
	rows := strings.Join(m.Graph().Rows(), "\n")
	for _, want := range []string{"imports of py/shop/billing/refunds.py", "py/shop/billing/tax.py", "py/shop/models.py", "decimal (external)"} {
		if !strings.Contains(rows+m.View(), want) {
			t.Errorf("imports tree lacks %q:\n%s", want, m.View())
		}
	}
	d.Keys("esc")
	// A line with nothing to resolve reports in the status bar and stays.
	d.Keys("esc", "G", "d") // "return total"
	d.WaitFor("error", func() bool { return m.LastError() != nil })
	if !strings.Contains(m.LastError().Error(), "no definition") {
		t.Errorf("error %v, want no definition found", m.LastError())
	}

	// A method's parent.
	d.Keys("/", "ctrl+u", "CardGateway.refund", "enter")
	d.WaitFor("results", resultsFor(m, "CardGateway.refund"))
	d.Keys("enter")
	d.WaitFor("method", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Kind == "method" })
	d.Keys("p")
	d.WaitFor("parent", func() bool { s, ok := m.Symbol().Symbol(); return ok && s.Name == "CardGateway" })
}

func TestGraphMarksCycles(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 120, 40)
	// In js/lib/response.js, send calls json and json calls send.
	d.Keys("res.json", "enter")
	d.WaitFor("results", resultsFor(m, "res.json"))
	if r, _ := m.Search().Selected(); r.Name != "json" {
		t.Fatalf("top result %s, want json", r.Name)
	}
	d.Keys("C")
	d.WaitFor("callees", func() bool { return m.Active() == event.Graph && !m.Graph().Loading() && len(m.Graph().Rows()) > 3 })
	idx := -1
	for i, r := range m.Graph().Rows() {
		if strings.HasSuffix(r, "res.send") {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("callees of json lack send:\n%s", strings.Join(m.Graph().Rows(), "\n"))
	}
	m.Graph().SetCursor(idx)
	d.Keys("l")
	d.WaitFor("second hop", func() bool { return !m.Graph().Loading() && len(m.Graph().Rows()) > idx+1 })
	rows := strings.Join(m.Graph().Rows(), "\n")
	if !strings.Contains(rows, "json") || !strings.Contains(m.View(), "↻") {
		t.Fatalf("callees of send do not mark json as a cycle:\n%s", m.View())
	}
	// A cycle is not expanded again.
	for i, r := range m.Graph().Rows() {
		if i > idx && strings.Contains(r, "json") {
			m.Graph().SetCursor(i)
		}
	}
	n := len(m.Graph().Rows())
	d.Keys("l")
	d.Settle()
	if len(m.Graph().Rows()) != n {
		t.Errorf("expanding a cycle node changed the tree")
	}
}

func TestConflictResolutionAndUndo(t *testing.T) {
	env := tuitest.Open(t, true)
	seeded := env.SeedMemories(t)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.WaitFor("queue", func() bool { return m.Conflicts().Loaded() })
	q := m.Conflicts().Queue()
	if q.Len() != len(seeded.Conflicts) || q.Len() != 2 {
		t.Fatalf("queue %d, want the 2 seeded conflicts", q.Len())
	}
	first, _ := q.Current()
	if first.ID != seeded.Conflicts[0] {
		t.Fatalf("current %s, want the oldest %s", first.ID, seeded.Conflicts[0])
	}
	d.Keys("esc", "4", "n")
	d.Keys("port 8081 is the one in the proxy config", "enter")
	d.Keys("a")
	d.WaitFor("resolved", func() bool { return q.Len() == 1 && !m.Conflicts().Busy() })
	c, err := env.Memory.Conflict(context.Background(), first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != memory.ConflictResolved || c.Resolution != "keep:"+first.Sides[0].ID || c.Note != "port 8081 is the one in the proxy config" {
		t.Fatalf("database: status %s resolution %q note %q", c.Status, c.Resolution, c.Note)
	}
	kept, _ := env.Memory.Get(context.Background(), first.Sides[0].ID)
	lost, _ := env.Memory.Get(context.Background(), first.Sides[1].ID)
	if kept.Status != memory.StatusActive || lost.Status != memory.StatusSuperseded {
		t.Errorf("statuses after keep A: %s / %s, want ACTIVE / SUPERSEDED", kept.Status, lost.Status)
	}
	// Undo puts it back, in the queue and in the database.
	d.Keys("u")
	d.WaitFor("undone", func() bool { cur, _ := q.Current(); return q.Len() == 2 && cur.ID == first.ID && !m.Conflicts().Busy() })
	c, _ = env.Memory.Conflict(context.Background(), first.ID)
	if c.Status != memory.ConflictOpen {
		t.Fatalf("after undo the conflict is %s, want open", c.Status)
	}
	// Skip, then keep both on the second; invalidate the focused side of the first.
	d.Keys("s")
	if cur, _ := q.Current(); cur.ID != seeded.Conflicts[1] {
		t.Fatalf("skip: current %s, want %s", cur.ID, seeded.Conflicts[1])
	}
	d.Keys("B")
	d.WaitFor("kept both", func() bool { return q.Len() == 1 && !m.Conflicts().Busy() })
	c, _ = env.Memory.Conflict(context.Background(), seeded.Conflicts[1])
	if c.Resolution != "both" {
		t.Errorf("resolution %q, want both", c.Resolution)
	}
	d.Keys("l", "x")
	d.WaitFor("invalidated", func() bool { return q.Len() == 0 && !m.Conflicts().Busy() })
	gone, _ := env.Memory.Get(context.Background(), first.Sides[1].ID)
	if gone.Status != memory.StatusInvalidated {
		t.Errorf("focused side B is %s, want INVALIDATED", gone.Status)
	}
	if !strings.Contains(m.View(), "Queue empty: 2 resolved") {
		t.Errorf("empty queue view:\n%s", m.View())
	}
}

func TestConflictMergeInApp(t *testing.T) {
	env := tuitest.Open(t, true)
	seeded := env.SeedMemories(t)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.WaitFor("queue", func() bool { return m.Conflicts().Loaded() })
	d.Keys("esc", "4", "m")
	if !m.Conflicts().Capturing() {
		t.Fatal("merge without $EDITOR did not open the in-app editor")
	}
	// Keys go to the editor, not to the tabs or quit: "q1" is typed.
	d.Keys("q1 The checkout API listens on 8081; 9090 was the old port.")
	d.Keys("ctrl+s")
	d.WaitFor("merged", func() bool { return m.Conflicts().Queue().Len() == 1 && !m.Conflicts().Busy() })
	if m.Active() != event.Conflicts {
		t.Fatalf("typing in the editor switched to %s", m.Active())
	}
	c, _ := env.Memory.Conflict(context.Background(), seeded.Conflicts[0])
	if !strings.HasPrefix(c.Resolution, "merge:") {
		t.Fatalf("resolution %q, want merge:<id>", c.Resolution)
	}
	merged, err := env.Memory.Get(context.Background(), strings.TrimPrefix(c.Resolution, "merge:"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(merged.Content, "q1 The checkout API listens on 8081") {
		t.Errorf("merged memory %q", merged.Content)
	}
}

func TestMemoryBriefing(t *testing.T) {
	env := tuitest.Open(t, true)
	env.SeedMemories(t)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.Keys("esc", "5")
	d.WaitFor("briefing", func() bool { return m.Memory().Loaded() })
	b := m.Memory().Briefing()
	if b.OpenConflicts != 2 || len(b.Nuggets) != 3 || b.State == nil || len(b.Memories) == 0 {
		t.Fatalf("briefing %+v", b)
	}
	d.Keys("f", "webhook retries", "enter")
	d.WaitFor("ranked briefing", func() bool { return m.Memory().Briefing().Ranking == "similarity" })
	if top := m.Memory().Briefing().Memories[0].Content; !strings.Contains(top, "webhook") {
		t.Errorf("top memory for %q: %q", "webhook retries", top)
	}
	if !strings.Contains(m.View(), `Top memories for "webhook retries"`) {
		t.Errorf("view lacks the query title:\n%s", m.View())
	}
}

func TestGlobalKeys(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 80, 24)
	// The query box has the focus: digits and q are typed, not tab switches or quit.
	d.Keys("q1")
	if m.Active() != event.Search || d.Quit() || m.Search().Query() != "q1" {
		t.Fatalf("typing q1: active %s quit %v query %q", m.Active(), d.Quit(), m.Search().Query())
	}
	d.Keys("esc") // leaves the box
	for _, tt := range []struct {
		key  string
		want event.Pane
	}{{"2", event.Symbol}, {"3", event.Graph}, {"4", event.Conflicts}, {"5", event.Memory}, {"tab", event.Search},
		{"shift+tab", event.Memory}, {"shift+tab", event.Conflicts}, {"1", event.Search}} {
		d.Keys(tt.key)
		if m.Active() != tt.want {
			t.Errorf("%s: active %s, want %s", tt.key, m.Active(), tt.want)
		}
	}
	d.Keys("3", "/")
	if m.Active() != event.Search || !m.Search().Capturing() {
		t.Errorf("/: active %s capturing %v, want the focused query box", m.Active(), m.Search().Capturing())
	}
	d.Keys("esc", "?")
	if !m.HelpShown() {
		t.Fatal("? did not open the help")
	}
	d.Keys("esc")
	if m.HelpShown() {
		t.Fatal("esc did not close the help")
	}
	// Mouse: a click on a tab switches to it; the wheel scrolls the results.
	d.Send(tea.MouseMsg{X: 35, Y: 0, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	if m.Active() != event.Conflicts {
		t.Errorf("click on the tab bar at x=35: active %s, want Conflicts", m.Active())
	}
	d.Keys("1", "/", "ctrl+u", "refund", "enter")
	d.WaitFor("results", resultsFor(m, "refund"))
	d.Send(tea.MouseMsg{X: 10, Y: 10, Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	if m.Search().SelectedIndex() != 1 {
		t.Errorf("wheel down: selection %d, want 1", m.Search().SelectedIndex())
	}
	d.Keys("q")
	d.WaitFor("quit", d.Quit)
}

func TestResizeKeepsTheLayout(t *testing.T) {
	env := tuitest.Open(t, true)
	env.SeedMemories(t)
	m, d := newDriver(t, env.Backend, 120, 40)
	d.Keys("refund", "enter")
	d.WaitFor("results", resultsFor(m, "refund"))
	d.Keys("enter")
	d.WaitFor("symbol", func() bool { _, ok := m.Symbol().Symbol(); return ok })
	sizes := []struct{ w, h int }{{80, 24}, {100, 30}, {60, 15}, {30, 8}, {10, 3}, {1, 1}, {200, 60}, {80, 24}}
	for _, p := range []string{"1", "2", "3", "4", "5"} {
		d.Keys(p)
		for _, s := range sizes {
			d.Send(tea.WindowSizeMsg{Width: s.w, Height: s.h})
			d.Settle(20 * time.Millisecond)
			v := m.View()
			lines := strings.Split(v, "\n")
			if len(lines) != s.h {
				t.Errorf("pane %s at %dx%d: %d lines", p, s.w, s.h, len(lines))
			}
			for i, l := range lines {
				if w := render.Width(l); w > s.w {
					t.Errorf("pane %s at %dx%d: line %d is %d wide", p, s.w, s.h, i, w)
				}
			}
		}
	}
}

func TestErrorsGoToTheStatusBar(t *testing.T) {
	env := tuitest.Open(t, true)
	m, d := newDriver(t, env.Backend, 120, 40)
	// A query the engine refuses.
	d.Keys("!!!", "enter")
	d.WaitFor("query error", func() bool { return m.LastError() != nil })
	if v := m.View(); !strings.Contains(lastLine(v), "search:") {
		t.Errorf("status bar lacks the error:\n%s", lastLine(v))
	}
	d.Keys("ctrl+l")
	if m.LastError() != nil {
		t.Fatal("ctrl+l did not clear the error")
	}
	// The database goes away: every pane reports, nothing hangs or panics.
	env.DB.Pool.Close()
	d.Keys("/", "ctrl+u", "refund", "enter")
	d.WaitFor("database error", func() bool { return m.LastError() != nil })
	for _, k := range []string{"4", "r", "5", "r", "R"} {
		d.Keys(k)
		d.Settle(50 * time.Millisecond)
	}
	d.WaitFor("index error", func() bool { return !m.Indexing() })
	d.Settle()
	if m.LastError() == nil || !strings.Contains(lastLine(m.View()), "✗") {
		t.Errorf("no error in the status bar after the database closed:\n%s", m.View())
	}
	// Still responsive.
	d.Keys("1")
	if m.Active() != event.Search {
		t.Error("keys stopped working after database errors")
	}
}

func TestEmbedderDownKeepsSearching(t *testing.T) {
	env := tuitest.Open(t, true)
	// The same model, its server down: the engine answers without the dense
	// channel and says why.
	down := backend.New(env.DB, env.Repo, downEmbedder{env.Emb}, backend.Options{Actor: "tester"})
	m, d := newDriver(t, down, 120, 40)
	d.Keys("refund window", "enter")
	d.WaitFor("results", resultsFor(m, "refund window"))
	r := m.Search().Response()
	if len(r.Results) == 0 {
		t.Fatal("no results with the embedder down")
	}
	mark := fmt.Sprintf("dense %.2f !", r.Weights[search.Dense])
	if r.Unavailable[search.Dense] == "" || !strings.Contains(m.View(), mark) || !strings.Contains(m.View(), "dense unavailable") {
		t.Errorf("the dense channel's outage is not shown:\n%s", m.View())
	}
	d.WaitFor("a note about it", func() bool { return strings.Contains(m.Note(), "dense unavailable") })
	if m.LastError() != nil {
		t.Errorf("a partial outage is an error: %v", m.LastError())
	}
	// The briefing falls back to the latest memories.
	d.Keys("5", "f", "webhooks", "enter")
	d.WaitFor("briefing", func() bool { return m.Memory().Loaded() && !strings.Contains(m.View(), "loading") })
	if !strings.Contains(m.View(), "embedder unavailable: latest instead") {
		t.Errorf("the briefing does not say it could not rank by the query:\n%s", m.View())
	}
}

// downEmbedder is the fixture's model with its backend down.
type downEmbedder struct{ *embed.Hashing }

func (downEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("embedding server: connection refused: %w", embed.ErrUnavailable)
}

func TestOpeningAnUnindexedRepositoryIndexesIt(t *testing.T) {
	env := tuitest.Open(t, false)
	m, d := newDriver(t, env.Backend, 120, 40, func(c *tui.Config) { c.NoAutoIndex = false })
	d.WaitFor("indexing to start", func() bool { return m.Indexing() })
	if !strings.Contains(lastLine(m.View()), "⟳") {
		t.Errorf("no progress in the status bar:\n%s", lastLine(m.View()))
	}
	// Searching works while indexing.
	d.Keys("refund", "enter")
	d.WaitFor("indexed", func() bool { return !m.Indexing() && m.Status().Indexed && !m.Status().Stale }, 60*time.Second)
	d.WaitFor("results after indexing", func() bool { r := m.Search().Response(); return r != nil && len(r.Results) > 0 })
	if m.LastError() != nil {
		t.Fatalf("error: %v", m.LastError())
	}
	// The working tree changes: R re-indexes it.
	if err := os.WriteFile(env.Root+"/billing/new.go", []byte("package billing\n\n// Novel is new.\nfunc Novel() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.Keys("esc", "R")
	d.WaitFor("re-indexed", func() bool { return !m.Indexing() && m.Status().WorkingTree }, 60*time.Second)
	if errors.Is(m.LastError(), context.Canceled) || m.LastError() != nil {
		t.Fatalf("re-index error: %v", m.LastError())
	}
}

func contains(cs []search.Channel, c search.Channel) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

func join(cs []search.Channel) string {
	var s []string
	for _, c := range cs {
		s = append(s, string(c))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func ftoa(f float64) string { b, _ := json.Marshal(f); return string(b) }

func lastLine(v string) string { return v[strings.LastIndexByte(v, '\n')+1:] }

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}
