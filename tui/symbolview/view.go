package symbolview

import (
	"fmt"
	"strings"

	"github.com/spelunkhq/spelunk/tui/render"
)

// headerLines is the height of the header above the source.
const headerLines = 3

func (m *Model) bodyHeight() int { return max(0, m.h-headerLines) }

// View draws the pane at its size: only the visible lines are touched, so a
// 2,000-line symbol costs what a 30-line one does.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	if m.sym == nil {
		switch {
		case m.loading:
			return m.th.Muted.Render("  loading " + m.want + "…")
		case m.err != nil:
			return m.th.Bad.Render(render.Truncate("  "+m.err.Error(), m.w))
		}
		return m.th.Muted.Render("  No symbol open.") + "\n" +
			m.th.Faint.Render("  Open one from Search (enter on a result) or Graph (enter on a node).")
	}
	s := m.sym
	out := make([]string, 0, m.h)

	title := m.th.Title.Render(displayName(*s)) + " " + m.th.Kind.Render(s.Kind)
	loc := fmt.Sprintf("%s:%d-%d", s.Path, s.StartLine, s.EndLine)
	rev := s.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	meta := m.th.Muted.Render(loc + " · rev " + rev)
	if s.WorkingTree() {
		meta = m.th.Muted.Render(loc+" · ") + m.th.Warn.Render("● working tree (uncommitted)")
	}
	if s.Stale {
		meta += m.th.Warn.Render(" · ⚠ stale: the file changed since indexed")
	}
	if s.Language != "" {
		meta += m.th.Faint.Render(" · " + s.Language)
	}
	if m.loading {
		meta += m.th.Faint.Render(" · loading…")
	}
	out = append(out, render.Truncate(title+"  "+meta, m.w))
	sig := s.Signature
	if sig == "" && s.Parent != "" {
		sig = "in " + s.Parent
	}
	pos := fmt.Sprintf("line %d/%d", m.cursor+1, len(m.lines))
	sigW := m.w - len(pos) - 2
	out = append(out, render.Pad(m.th.Text.Render(render.Truncate(sig, sigW)), max(sigW, 0))+"  "+m.th.Faint.Render(pos))
	out = append(out, m.th.Rule.Render(strings.Repeat("─", m.w)))

	gw := len(fmt.Sprint(s.StartLine+len(m.lines))) + 2
	body := m.bodyHeight()
	for i := m.top; i < m.top+body && i < len(m.lines); i++ {
		no := render.PadLeft(fmt.Sprint(s.StartLine+i), gw-2)
		code := render.Cut(m.lines[i], m.left, m.w-gw)
		if i == m.cursor {
			out = append(out, m.th.LineNoCur.Render("▸"+no)+" "+code)
			continue
		}
		out = append(out, m.th.LineNo.Render(" "+no)+" "+code)
	}
	return strings.Join(out, "\n")
}
