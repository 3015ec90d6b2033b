package tui_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestFlowStaleFiles runs the real program over a repository edited while it
// runs: the status bar counts the stale files and the search marks the results
// from them; R indexes the working tree and all is fresh; an edit after that is
// stale again (issue 14: a working-tree index used to hide later edits).
func TestFlowStaleFiles(t *testing.T) {
	env := tuitest.Open(t, true)
	cfg := tuitest.Config(t)
	cfg.StatusEvery = 20 * time.Millisecond // the status refreshes as in use, only faster
	tm := teatest.NewTestModel(t, tui.New(env.Backend, cfg), teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "shop @", "✓ fresh")

	refund := filepath.Join(env.Root, "billing", "refund.go")
	orig, err := os.ReadFile(refund)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(head string) {
		t.Helper()
		if err := os.WriteFile(refund, append([]byte(head), orig...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("// a new first line moves every definition down\n")
	waitScreen(t, tm, "⚠ 1 stale file")

	tm.Type("IsEligibleForRefund")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "▸  1   method ⚠ Invoice.", "⚠ stale: changed on disk since indexed")

	tm.Send(key(tea.KeyEsc)) // out of the query box, so R reaches the root
	tm.Send(runes("R"))
	// Indexed; the search ran again: from the working tree (●), at the lines the
	// edit moved the method to, no longer marked stale.
	waitScreen(t, tm, "+ working tree", "✓ fresh", "▸  1   method ● Invoice.", "refund.go:36-46")

	edit("// edited again\n")
	waitScreen(t, tm, "⚠ 1 stale file")
	tm.Send(runes("q"))

	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if st := m.Status(); !st.Stale || st.StaleFiles != 1 || !st.WorkingTree {
		t.Errorf("final status: stale %v, %d files, working tree %v (%s); want stale, 1 file, over a working-tree index",
			st.Stale, st.StaleFiles, st.WorkingTree, st.StaleReason)
	}
	if r, ok := m.Search().Selected(); !ok || r.Name != "IsEligibleForRefund" || r.Revision != "working-tree" {
		t.Errorf("selected after R: %s revision %s; want IsEligibleForRefund from the working tree", r.Name, r.Revision)
	}
}

// TestFlowIncompleteIndex runs the real program over an index whose last run
// stopped before it finished: the status bar gives pg.Repository.Incomplete's
// warning (the CLI's and MCP's), not only "⚠ stale: the last run did not
// finish", from the status fetched off the Update path, and R, a run that
// finishes, clears it (issue 36, 5).
func TestFlowIncompleteIndex(t *testing.T) {
	env := tuitest.Open(t, true)
	if _, err := env.DB.Pool.Exec(context.Background(), `UPDATE repositories SET indexing_started = now()`); err != nil {
		t.Fatal(err)
	}
	cfg := tuitest.Config(t)
	cfg.StatusEvery = 20 * time.Millisecond
	tm := teatest.NewTestModel(t, tui.New(env.Backend, cfg), teatest.WithInitialTermSize(160, 40))
	waitScreen(t, tm, "shop @", "⚠ index incomplete: the last run, started", "R re-index")

	tm.Send(key(tea.KeyEsc)) // out of the query box, so R reaches the root
	tm.Send(runes("R"))
	waitScreen(t, tm, "✓ fresh")
	tm.Send(runes("q"))
	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if st := m.Status(); st.Incomplete != "" {
		t.Errorf("status after R: incomplete %q; want none once a run finished", st.Incomplete)
	}
}
