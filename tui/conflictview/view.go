package conflictview

import (
	"fmt"
	"strings"
	"time"

	"github.com/spelunkhq/spelunk/tui/render"
)

// View draws the pane at its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	c, ok := m.q.Current()
	if !ok {
		return m.empty()
	}
	out := m.header(c)
	footer := m.footer()
	bodyH := m.h - len(out) - len(footer)
	if m.mode == modeMerge {
		title := "Merge: edit the merged memory, ctrl+s records it, esc cancels"
		if m.editing {
			title = "Edit: the corrected memory supersedes this one; ctrl+s records it, esc cancels"
		}
		out = append(out, m.th.Title.Render(title))
		out = append(out, strings.Split(m.merge.View(), "\n")...)
		return strings.Join(out, "\n")
	}
	body := m.sides(c)
	if top := min(m.scroll, max(0, len(body)-bodyH)); top > 0 {
		body = body[top:]
	}
	for i := 0; i < bodyH; i++ {
		if i < len(body) {
			out = append(out, body[i])
		} else {
			out = append(out, "")
		}
	}
	out = append(out, footer...)
	return strings.Join(out, "\n")
}

// header is the head of the current item.
func (m *Model) header(c Conflict) []string {
	if c.Stale {
		return m.staleHeader(c)
	}
	var out []string
	head := m.th.Title.Render(fmt.Sprintf("Conflict %d of %d", m.q.Pos()+1, m.q.Len())) +
		m.th.Warn.Render(fmt.Sprintf(" · similarity %.2f", c.Similarity))
	counts := fmt.Sprintf("oldest first · %d resolved · %d skipped", m.q.Resolved(), m.q.Skipped())
	if m.busy {
		counts = "saving… · " + counts
	}
	if gap := m.w - render.Width(head) - render.Width(counts); gap >= 2 {
		head += strings.Repeat(" ", gap) + m.th.Muted.Render(counts)
	}
	out = append(out, render.Truncate(head, m.w))
	out = append(out, render.Truncate(m.th.Text.Render("reason: ")+m.th.Warn.Render(c.Reason), m.w))
	out = append(out, m.th.Muted.Render(render.Truncate(fmt.Sprintf("opened %s · conflict %s · %d memories", m.when(c.CreatedAt), short(c.ID), len(c.Sides)), m.w)))
	out = append(out, m.th.Rule.Render(strings.Repeat("─", m.w)))

	return out
}

func (m *Model) empty() string {
	switch {
	case m.err != nil:
		return m.th.Bad.Render(render.Truncate("  "+m.err.Error(), m.w)) + "\n" + m.th.Faint.Render("  r retries")
	case !m.loaded:
		return m.th.Muted.Render("  loading conflicts…")
	}
	msg := "  No open conflicts. Agents' memories agree with each other."
	if n := m.q.Resolved(); n > 0 {
		msg = fmt.Sprintf("  Queue empty: %d resolved this session (u undoes the last).", n)
	}
	return m.th.Good.Render(msg) + "\n" + m.th.Faint.Render("  r reloads")
}

// sides renders the memories: side by side when two fit, else stacked.
func (m *Model) sides(c Conflict) []string {
	w := m.sideWidth(len(c.Sides))
	rendered := m.rendered[renderKey(c.ID, w)]
	blocks := make([][]string, len(c.Sides))
	for i, s := range c.Sides {
		body := []string{m.th.Faint.Render("  rendering…")}
		if rendered != nil {
			body = strings.Split(rendered[i], "\n")
		}
		blocks[i] = m.sideBlock(i, s, w, body)
	}
	if c.Stale {
		return append(blocks[0], m.anchorLines(c)...)
	}
	if w < m.w {
		return render.HJoin(m.th.Rule.Render(" │ "), []int{w, w}, blocks[0], blocks[1])
	}
	var out []string
	for i, b := range blocks {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, b...)
	}
	return out
}

func (m *Model) sideBlock(i int, s Side, w int, body []string) []string {
	focused := i == m.side
	marker := "  "
	st := m.th.Bold
	if focused {
		marker = "▸ "
		st = m.th.Title
	}
	title := fmt.Sprintf("%s%s · %s · %s", marker, sideName(i), s.Kind, s.Author)
	out := []string{st.Render(render.Truncate(title, w))}
	statusSt := m.th.Warn
	if s.Status == "ACTIVE" {
		statusSt = m.th.Good
	}
	meta := "  " + statusSt.Render(s.Status) + m.th.Muted.Render(fmt.Sprintf(" · %s · %s", m.when(s.CreatedAt), short(s.ID)))
	out = append(out, render.Truncate(meta, w))
	for _, l := range body {
		out = append(out, render.Truncate(l, w))
	}
	if len(s.Lineage) > 0 {
		out = append(out, m.th.Muted.Render("  lineage:"))
		for _, a := range s.Lineage {
			text := fmt.Sprintf("  %s %s %s by %s, %s: %s", strings.Repeat("←", min(a.Depth, 3)), short(a.ID), a.Status, a.Author,
				m.when(a.CreatedAt), firstLine(a.Content))
			out = append(out, m.th.Faint.Render(render.Truncate(text, w)))
		}
	} else {
		out = append(out, m.th.Faint.Render("  lineage: original (no parents)"))
	}
	return out
}

func (m *Model) footer() []string {
	rule := m.th.Rule.Render(strings.Repeat("─", m.w))
	if m.mode == modeNote {
		return []string{rule, render.Truncate(render.InputView(m.note, m.th.Plain()), m.w)}
	}
	note := m.th.Faint.Render("note: none (n adds one; it is recorded with the next resolution)")
	if m.noteText != "" {
		note = m.th.Text.Render("note: ") + m.th.Accent.Render(m.noteText)
	}
	return []string{rule, render.Truncate(note, m.w)}
}

// when formats a time absolutely and relative to the pane's clock.
func (m *Model) when(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	now := m.cfg.Now()
	return t.In(now.Location()).Format("2006-01-02 15:04") + " (" + ago(now.Sub(t)) + ")"
}

func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
