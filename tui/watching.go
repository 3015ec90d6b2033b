package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/tui/event"
)

// watchMsg carries one state of the watcher (Config.Watch).
type watchMsg struct {
	ev WatchEvent
	ch <-chan WatchEvent
}

// waitWatch waits for the watcher's next state; a closed channel ends the
// chain.
func waitWatch(ch <-chan WatchEvent) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return nil
		}
		return watchMsg{ev: ev, ch: ch}
	}
}

// onWatch records the watcher's state; after a run the repository status is
// fetched again (the results on screen stay: searching again would move them
// under the cursor).
func (m *Model) onWatch(msg watchMsg) tea.Cmd {
	m.watch = msg.ev
	cmds := []tea.Cmd{waitWatch(msg.ch)}
	if msg.ev.Done && !m.indexing {
		cmds = append(cmds, m.fetchStatus())
	}
	if msg.ev.Err != nil {
		op := "watch"
		if msg.ev.Detail != "" {
			op = "watch (" + msg.ev.Detail + ")"
		}
		cmds = append(cmds, event.Fail(op, msg.ev.Err))
	}
	return tea.Batch(cmds...)
}

// Watch is the watcher's latest state.
func (m *Model) Watch() WatchEvent { return m.watch }

// watchView is the status bar's segment for the watcher, "" without one.
func (m *Model) watchView() string {
	if m.cfg.Watch == nil {
		return ""
	}
	th := m.th
	bar := th.StatusBar
	switch m.watch.State {
	case WatchIdle:
		return bar.Foreground(th.P.Muted).Render("◉ watching ")
	case WatchIndexing:
		return bar.Foreground(th.P.Warn).Render("⟳ watch: indexing… ")
	case WatchStandby:
		return bar.Foreground(th.P.Muted).Render("◌ watched by another spelunk ")
	case WatchFailed:
		return bar.Foreground(th.P.Bad).Render("⚠ watch: run failed ")
	case WatchOff:
		return bar.Foreground(th.P.Bad).Render("✗ watch off ")
	}
	return bar.Foreground(th.P.Muted).Render("◌ watch starting ")
}
