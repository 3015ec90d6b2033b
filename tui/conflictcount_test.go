package tui_test

import (
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestConflictCountsAgree: with two open conflicts and a stale memory the
// Conflicts tab's count and the Memory tab's say the same (issue 40): the
// items waiting for a person, conflicts and stale memories alike.
func TestConflictCountsAgree(t *testing.T) {
	env := tuitest.Open(t, true)
	env.SeedMemories(t)
	a, err := env.Memory.Add(context.Background(), memory.NewMemory{Kind: memory.KindRule, Author: "agent-claude",
		Text: "`Invoice.IsEligibleForRefund` rejects unpaid invoices before the window check."})
	if err != nil || len(a.Memory.Anchors) != 1 {
		t.Fatalf("add: %v, anchors %+v", err, a.Memory.Anchors)
	}
	editAndIndex(t, env, "billing/refund.go", "> RefundWindow {", "> 2*RefundWindow {")

	tm := teatest.NewTestModel(t, tui.New(env.Backend, tuitest.Config(t)), teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "4 Conflicts (3)")
	tm.Send(key(tea.KeyEsc))
	tm.Send(runes("5"))
	waitScreen(t, tm, "3 to review: 2 open conflicts, 1 stale memory")
	tm.Send(runes("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
}
