package conflictview

// The second kind of item in the queue (issue 17): a memory whose anchored code
// changed, was removed or renamed since it was written. A person confirms it
// (it still holds), edits it (a corrected memory supersedes it) or invalidates
// it.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/tui/render"
)

// Reviewer is implemented by a backend that also serves the review queue of
// stale memories; without it the pane lists disputes only.
type Reviewer interface {
	// Review lists the memories whose anchored code changed, as Stale items.
	Review(ctx context.Context) ([]Conflict, error)
	// ReviewAction confirms (Confirm), supersedes with Text (Edit) or
	// invalidates (Invalidate, Note as the reason) the memory id.
	ReviewAction(ctx context.Context, memoryID string, r Resolution) error
}

// loadItems reads both kinds of item.
func loadItems(ctx context.Context, b Backend) ([]Conflict, error) {
	items, err := b.Conflicts(ctx)
	if err != nil {
		return nil, err
	}
	if rv, ok := b.(Reviewer); ok {
		stale, err := rv.Review(ctx)
		if err != nil {
			return nil, err
		}
		items = append(items, stale...)
	}
	return items, nil
}

// staleKey handles the keys of a stale item.
func (m *Model) staleKey(msg tea.KeyMsg, c Conflict) tea.Cmd {
	k := m.km
	switch {
	case key.Matches(msg, k.Confirm):
		return m.resolveStale(c.ID, Resolution{Action: Confirm})
	case key.Matches(msg, k.Edit):
		return m.startMerge(c)
	case key.Matches(msg, k.Invalidate):
		return m.resolveStale(c.ID, Resolution{Action: Invalidate, Memory: c.ID})
	case key.Matches(msg, k.Skip):
		m.q.Skip()
		m.side, m.scroll = 0, 0
		return m.ensureRendered()
	case key.Matches(msg, k.Prev):
		m.q.Prev()
		m.side, m.scroll = 0, 0
		return m.ensureRendered()
	case key.Matches(msg, k.ScrollUp):
		m.scroll = max(0, m.scroll-1)
	case key.Matches(msg, k.ScrollDown):
		m.scrollBy(1)
	case key.Matches(msg, k.Note):
		m.mode = modeNote
		m.note.SetValue(m.noteText)
		m.note.CursorEnd()
		return m.note.Focus()
	}
	return nil
}

// saveEdited records what the editor produced: a merge of a dispute, or the
// corrected text of a stale memory.
func (m *Model) saveEdited(id, text string) tea.Cmd {
	if m.editing {
		return m.resolveStale(id, Resolution{Action: Edit, Text: text})
	}
	return m.resolve(id, Resolution{Action: Merge, Text: text})
}

// resolveStale sends a review action to the store.
func (m *Model) resolveStale(id string, res Resolution) tea.Cmd {
	rv, ok := m.b.(Reviewer)
	if m.busy || !ok {
		return nil
	}
	m.busy = true
	res.Note = m.noteText
	if res.Action == Invalidate && res.Note == "" {
		res.Note = "the code it was about changed (review)"
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		return resolvedMsg{id: id, res: res, stale: true, err: rv.ReviewAction(ctx, id, res)}
	}
}

// settle takes a resolved item out of the queue: a dispute onto the undo
// stack, a review (not undone from here) for good.
func (m *Model) settle(msg resolvedMsg) {
	if msg.stale {
		m.q.Drop(msg.id)
		return
	}
	m.q.Resolve(msg.id, msg.res)
}

// staleHeader is the head of a stale item.
func (m *Model) staleHeader(c Conflict) []string {
	head := m.th.Title.Render(fmt.Sprintf("Review %d of %d", m.q.Pos()+1, m.q.Len())) +
		m.th.Warn.Render(" · code this memory is about changed")
	counts := fmt.Sprintf("oldest first · %d resolved · %d skipped", m.q.Resolved(), m.q.Skipped())
	if m.busy {
		counts = "saving… · " + counts
	}
	if gap := m.w - render.Width(head) - render.Width(counts); gap >= 2 {
		head += strings.Repeat(" ", gap) + m.th.Muted.Render(counts)
	}
	return []string{
		render.Truncate(head, m.w),
		render.Truncate(m.th.Text.Render("reason: ")+m.th.Warn.Render(c.Reason), m.w),
		m.th.Muted.Render(render.Truncate(fmt.Sprintf("since %s · memory %s · %d anchors", m.when(c.CreatedAt), short(c.ID), len(c.Anchors)), m.w)),
		m.th.Rule.Render(strings.Repeat("─", m.w)),
	}
}

// anchorLines lists a stale memory's anchors, each changed one with its diff.
func (m *Model) anchorLines(c Conflict) []string {
	out := []string{"", m.th.Bold.Render("  anchors:")}
	for _, a := range c.Anchors {
		st := m.th.Warn
		if a.State == "current" {
			st = m.th.Good
		}
		name := a.Path
		if a.Name != "" {
			name = a.Name + " · " + a.Path
		}
		if a.OldPath != "" {
			name += " (was " + a.OldPath + ")"
		}
		out = append(out, render.Truncate("  "+st.Render(fmt.Sprintf("%-8s", a.State))+" "+m.th.Text.Render(name), m.w))
		for _, l := range strings.Split(strings.TrimRight(a.Diff, "\n"), "\n") {
			if l == "" {
				continue
			}
			ds := m.th.Faint
			switch {
			case strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++"):
				ds = m.th.Good
			case strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---"):
				ds = m.th.Bad
			}
			out = append(out, ds.Render(render.Truncate("    "+strings.ReplaceAll(l, "\t", "    "), m.w)))
		}
	}
	return out
}
