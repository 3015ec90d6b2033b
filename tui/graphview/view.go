package graphview

import (
	"fmt"
	"strings"

	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/render"
)

const headerLines = 2

func (m *Model) bodyHeight() int { return max(0, m.h-headerLines) }

// label is a node's text without styling.
func (m *Model) label(n *node) string {
	switch n.kind {
	case kindSymbol:
		return displayName(n.sym.QualifiedName, n.sym.Name, n.sym.Path)
	case kindFile:
		return n.path
	case kindModule:
		return n.name + " (external)"
	case kindGroup:
		arrow := map[event.Relation]string{event.Callers: "← ", event.Callees: "→ ", event.Imports: "→ ", event.Importers: "← ", event.Writers: "← ", event.Readers: "← "}[n.rel]
		s := arrow + n.name
		if n.loaded {
			count := 0
			for _, c := range n.children {
				if c.kind != kindNote {
					count++
				}
			}
			s += fmt.Sprintf(" (%d)", count)
		}
		return s
	case kindUnresolved:
		return n.name + " (unresolved)"
	}
	return n.name
}

// View draws the pane at its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	if m.t == nil {
		return m.th.Muted.Render("  No graph open.") + "\n" +
			m.th.Faint.Render("  Press c (callers) or C (callees) on a search result or in the Symbol pane,") + "\n" +
			m.th.Faint.Render("  or i / I for a file's imports and importers.")
	}
	out := make([]string, 0, m.h)
	title := "call graph of " + m.t.label
	if m.t.root.kind == kindFile {
		title = "imports of " + m.t.label
	}
	legend := "▾ open  ▹ closed  ↻ cycle  ⋯ loading"
	head := m.th.Title.Render(render.Truncate(title, m.w-len(legend)-2))
	if gap := m.w - render.Width(head) - render.Width(legend); gap >= 2 {
		head += strings.Repeat(" ", gap) + m.th.Faint.Render(legend)
	}
	out = append(out, head, m.th.Rule.Render(strings.Repeat("─", m.w)))
	body := m.bodyHeight()
	for i := m.top; i < m.top+body && i < len(m.rows); i++ {
		out = append(out, m.rowView(m.rows[i], i == m.cursor))
	}
	return strings.Join(out, "\n")
}

func (m *Model) rowView(r row, selected bool) string {
	n := r.n
	marker := "  "
	if selected {
		marker = "▸ "
	}
	glyph := "  "
	switch {
	case n.parent == nil:
		glyph = "◆ "
	case n.kind == kindNote:
		glyph = ""
	case n.cycle:
		glyph = "↻ "
	case n.loading:
		glyph = "⋯ "
	case n.expandable() && n.expanded:
		glyph = "▾ "
	case n.expandable():
		glyph = "▹ "
	case n.kind != kindNote:
		glyph = "· "
	}
	label, meta := m.label(n), rowMeta(n)
	left := marker + r.prefix + glyph
	if selected {
		text := left + label
		if meta != "" {
			text += "  " + meta
		}
		return m.th.Selected.Render(render.Pad(text, m.w))
	}
	st := m.th.Text
	switch {
	case n.kind == kindGroup:
		st = m.th.Accent.Bold(true)
	case n.kind == kindNote && strings.HasPrefix(n.name, "failed"):
		st = m.th.Bad
	case n.kind == kindNote, n.kind == kindUnresolved, n.kind == kindModule, n.cycle:
		st = m.th.Faint
	case n.inexact():
		st = m.th.Inexact
	case n.kind == kindSymbol && n.sym.IsTest:
		st = m.th.Muted
	}
	text := m.th.Rule.Render(left) + st.Render(label)
	if meta != "" {
		text += "  " + m.th.Muted.Render(meta)
	}
	return render.Truncate(text, m.w)
}

// rowMeta is the detail after a row's label: kind, location, the edge that reached
// it, its confidence when not exact, a cycle mark.
func rowMeta(n *node) string {
	var meta string
	switch n.kind {
	case kindSymbol:
		meta = n.sym.Kind
		if n.sym.IsTest {
			meta += " (test)"
		}
		if n.sym.Path != "" {
			loc := fmt.Sprintf("%s:%d", n.sym.Path, n.sym.StartLine)
			if n.parent != nil && n.line > 0 && n.edge != "" {
				loc += fmt.Sprintf("  %s @%d", n.edge, n.line)
			}
			meta = strings.TrimSpace(meta + "  " + loc)
		}
		// The mark first, so a narrow pane cuts the location rather than it.
		if mark := n.confidenceMark(); mark != "" {
			meta = strings.TrimSpace(mark + "  " + meta)
		}
		if n.sym.Stale {
			meta += "  ⚠ stale"
		}
		if n.cycle {
			meta += "  (cycle)"
		}
	case kindFile:
		if n.line > 0 && n.parent != nil {
			meta = fmt.Sprintf("%s @%d", n.edge, n.line)
		}
		if n.cycle {
			meta += "  (cycle)"
		}
	case kindModule, kindUnresolved:
		if n.line > 0 {
			meta = fmt.Sprintf("%s @%d", n.edge, n.line)
		}
	}
	return meta
}
