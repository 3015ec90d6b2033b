package tui_test

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestMergeEditorFooter: the merge editor's footer shows the editor's keys,
// not / search and q quit, which type characters there (issue 40).
func TestMergeEditorFooter(t *testing.T) {
	env := tuitest.Open(t, true)
	env.SeedMemories(t)
	tm := teatest.NewTestModel(t, tui.New(env.Backend, tuitest.Config(t)), teatest.WithInitialTermSize(120, 40))
	waitScreen(t, tm, "4 Conflicts (2)")
	tm.Send(key(tea.KeyEsc)) // out of the query box
	tm.Send(runes("4"))
	waitScreen(t, tm, "Conflict 1 of 2")
	tm.Send(runes("m"))
	var footer []byte
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		i := bytes.LastIndex(b, []byte("ctrl+s save"))
		if i < 0 {
			return false
		}
		end := bytes.IndexByte(b[i:], '\n')
		if end < 0 {
			return false
		}
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		footer = b[start : i+end]
		return true
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	for _, bad := range []string{"/ search", "q quit", "tab next tab"} {
		if bytes.Contains(footer, []byte(bad)) {
			t.Errorf("the merge editor's footer advertises %q: %q", bad, footer)
		}
	}
	if !bytes.Contains(footer, []byte("esc cancel")) || !bytes.Contains(footer, []byte("ctrl+c quit")) {
		t.Errorf("the merge editor's footer lacks esc cancel or ctrl+c quit: %q", footer)
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
