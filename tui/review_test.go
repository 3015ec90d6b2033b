package tui_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// editAndIndex replaces old with new in a fixture file, commits and re-indexes.
func editAndIndex(t *testing.T, env *tuitest.Env, path, old, new string) {
	t.Helper()
	file := filepath.Join(env.Root, path)
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), old) {
		t.Fatalf("%s: %v, or no %q", path, err, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tuitest.Git(t, env.Root, "commit", "-qam", "edit "+path)
	if _, err := index.New(env.DB, env.Emb).Index(context.Background(), env.Root, index.Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestFlowReviewStaleMemory drives the real program through the review side of
// the Conflicts queue: a memory whose anchored method changed is listed with
// the method's diff; c confirms it (ACTIVE again, anchor current); a second,
// after its function changes, is edited in the in-app editor (e, ctrl+s): the
// corrected memory supersedes it.
func TestFlowReviewStaleMemory(t *testing.T) {
	env := tuitest.Open(t, true)
	ctx := context.Background()
	add := func(text string) string {
		a, err := env.Memory.Add(ctx, memory.NewMemory{Kind: memory.KindRule, Author: "agent-claude", Text: text})
		if err != nil || len(a.Memory.Anchors) != 1 {
			t.Fatalf("add %q: %v, anchors %+v", text, err, a.Memory.Anchors)
		}
		return a.Memory.ID
	}
	first := add("`Invoice.IsEligibleForRefund` rejects unpaid invoices before the window check.")
	second := add("PartialRefundCents() never refunds more items than were bought.")
	editAndIndex(t, env, "billing/refund.go", "> RefundWindow {", "> 2*RefundWindow {")

	tm := teatest.NewTestModel(t, tui.New(env.Backend, tuitest.Config(t)), teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "4 Conflicts (1)")
	tm.Send(key(tea.KeyEsc))
	tm.Send(runes("4"))
	waitScreen(t, tm, "Review 1 of 1", "code this memory is about changed", "changed  Invoice.IsEligibleForRefund · billing/refund.go",
		"+    if now.Sub(*inv.PaidAt) > 2*RefundWindow {", "c confirm")
	tm.Send(runes("c"))
	waitScreen(t, tm, "No open conflicts")

	editAndIndex(t, env, "billing/refund.go", "if n > it.Quantity {", "if n >= it.Quantity {")
	tm.Send(runes("r"))
	waitScreen(t, tm, "Review 1 of 1", "billing.PartialRefundCents")
	tm.Send(runes("e"))
	waitScreen(t, tm, "Edit: the corrected memory supersedes this one")
	tm.Type(" Checked with >= now.")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	waitScreen(t, tm, "No open conflicts")
	// The Memory tab's briefing shows each memory's anchors and their state.
	tm.Send(runes("5"))
	waitScreen(t, tm, "anchors: Invoice.IsEligibleForRefund current", "anchors: billing.PartialRefundCents current")
	tm.Send(runes("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))

	m, err := env.Memory.Get(ctx, first)
	if err != nil || m.Status != memory.StatusActive || m.Anchors[0].State != memory.AnchorCurrent {
		t.Fatalf("confirmed memory: %s %+v (%v), want ACTIVE and current", m.Status, m.Anchors, err)
	}
	old, err := env.Memory.Get(ctx, second)
	if err != nil || old.Status != memory.StatusSuperseded || old.SupersededBy == "" {
		t.Fatalf("edited memory: %s (%v), want SUPERSEDED", old.Status, err)
	}
	nw, err := env.Memory.Get(ctx, old.SupersededBy)
	if err != nil || !strings.Contains(nw.Content, "Checked with >= now.") || nw.Status != memory.StatusActive ||
		len(nw.Anchors) != 1 || nw.Anchors[0].State != memory.AnchorCurrent {
		t.Fatalf("new memory: %+v (%v), want the edited text ACTIVE with a current anchor", nw, err)
	}
}
