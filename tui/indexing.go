package tui

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/tui/event"
)

// Indexing runs in a goroutine started by a command; its progress comes back
// through a one-slot channel (the latest snapshot wins, so a slow UI never slows
// the indexer) that a chain of commands listens to, one message at a time.
type (
	indexProgressMsg struct {
		seq      uint64
		p        Progress
		progress <-chan Progress
		done     <-chan indexDoneMsg
	}
	indexDoneMsg struct {
		seq uint64
		res IndexResult
		err error
	}
)

// startIndex starts an indexing run unless one is running.
func (m *Model) startIndex() tea.Cmd {
	if m.indexing {
		return event.Note("already indexing")
	}
	m.indexSeq++
	seq := m.indexSeq
	ctx, cancel := context.WithCancel(context.Background())
	m.indexing, m.indexCancel = true, cancel
	m.progress = Progress{Phase: "starting"}
	progress := make(chan Progress, 1)
	done := make(chan indexDoneMsg, 1)
	b := m.b
	start := func() tea.Msg {
		go func() {
			res, err := b.Index(ctx, func(p Progress) {
				select {
				case progress <- p:
				default: // replace the unread snapshot with this newer one
					select {
					case <-progress:
					default:
					}
					select {
					case progress <- p:
					default:
					}
				}
			})
			done <- indexDoneMsg{seq: seq, res: res, err: err}
		}()
		return nil
	}
	return tea.Batch(start, waitIndex(seq, progress, done))
}

// waitIndex waits for the next progress snapshot or the end of the run.
func waitIndex(seq uint64, progress <-chan Progress, done <-chan indexDoneMsg) tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-progress:
			return indexProgressMsg{seq: seq, p: p, progress: progress, done: done}
		case d := <-done:
			return d
		}
	}
}

func (m *Model) onIndexed(msg indexDoneMsg) tea.Cmd {
	if msg.seq != m.indexSeq {
		return nil
	}
	m.indexing = false
	if m.indexCancel != nil {
		m.indexCancel()
		m.indexCancel = nil
	}
	cmds := []tea.Cmd{m.fetchStatus(), m.search.Rerun()}
	switch {
	case errors.Is(msg.err, context.Canceled):
		cmds = append(cmds, event.Note("indexing cancelled"))
	case msg.err != nil:
		cmds = append(cmds, event.Fail("index", msg.err))
	default:
		r := msg.res
		text := fmt.Sprintf("indexed %s (%d symbols, %d embedded) in %s", plural(r.FilesIndexed, "file"), r.Symbols, r.Embedded, r.Duration.Round(1e7))
		if r.FilesIndexed == 0 && r.FilesDeleted == 0 {
			text = "index up to date"
		}
		cmds = append(cmds, event.Note("%s", text))
	}
	return tea.Batch(cmds...)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
