package tui_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// waitScreen waits until the program's output contains every string.
func waitScreen(t *testing.T, tm *teatest.TestModel, what ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range what {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func key(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// TestFlowSearchSymbolCallersBack runs the real program: search, select, open the
// symbol, its callers, then back twice.
func TestFlowSearchSymbolCallersBack(t *testing.T) {
	env := tuitest.Open(t, true)
	tm := teatest.NewTestModel(t, tui.New(env.Backend, tuitest.Config(t)), teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "shop @")

	tm.Type("compute_tax")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "▸  1", "compute_tax", "explain · #1")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "[2 Symbol]", "def compute_tax(")
	tm.Send(runes("c"))
	waitScreen(t, tm, "[3 Graph]", "call graph of compute_tax", "process_refund")
	tm.Send(key(tea.KeyEsc))
	waitScreen(t, tm, "[2 Symbol]")
	tm.Send(key(tea.KeyBackspace))
	waitScreen(t, tm, "[1 Search]")
	tm.Send(runes("q"))

	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if m.Active() != event.Search || len(m.History()) != 0 {
		t.Errorf("final: active %s history %q, want Search and an empty back stack", m.Active(), m.History())
	}
	if r, ok := m.Search().Selected(); !ok || r.Name != "compute_tax" {
		t.Errorf("final selection %v, want compute_tax", r.Name)
	}
	if s, _ := m.Symbol().Symbol(); s.Name != "compute_tax" {
		t.Errorf("symbol pane shows %s, want compute_tax", s.Name)
	}
}

// TestFlowResolveConflict resolves a conflict in the real program and checks the
// queue and the database.
func TestFlowResolveConflict(t *testing.T) {
	env := tuitest.Open(t, true)
	seeded := env.SeedMemories(t)
	tm := teatest.NewTestModel(t, tui.New(env.Backend, tuitest.Config(t)), teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "4 Conflicts (2)")
	tm.Send(key(tea.KeyEsc)) // out of the query box
	tm.Send(runes("4"))
	waitScreen(t, tm, "Conflict 1 of 2", "listens on port 9090")
	tm.Send(runes("b"))
	waitScreen(t, tm, "Conflict 1 of 1", "1 resolved")
	tm.Send(runes("q"))
	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if n := m.Conflicts().Queue().Len(); n != 1 {
		t.Errorf("queue %d, want 1", n)
	}
	c, err := env.Memory.Conflict(context.Background(), seeded.Conflicts[0])
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != memory.ConflictResolved || !strings.HasPrefix(c.Resolution, "keep:") || c.Resolver != "tester" {
		t.Fatalf("database: status %s resolution %q resolver %q, want resolved keep:<B> by tester", c.Status, c.Resolution, c.Resolver)
	}
	kept, err := env.Memory.Get(context.Background(), strings.TrimPrefix(c.Resolution, "keep:"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kept.Content, "9090") || kept.Status != memory.StatusActive {
		t.Errorf("kept %q (%s), want side B (port 9090) ACTIVE", kept.Content, kept.Status)
	}
}
