package searchview

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/tui/render"
)

// The files mode: the engine ranks files by the evidence of their definitions
// (search.Files) and the table lists files. The selected file's best definition
// stands for it wherever the pane acts on a symbol: enter opens it, c/C walk its
// graph, the preview highlights it and the explain panel explains its score.

// FilesMode reports whether the pane ranks files rather than definitions (the
// granularity of the next search; the one shown arrives with its answer).
func (m *Model) FilesMode() bool { return m.files }

// ShowingFiles reports whether the response shown ranks files.
func (m *Model) ShowingFiles() bool { return m.shownFiles && m.resp != nil }

// SelectedFile returns the selected file in files mode.
func (m *Model) SelectedFile() (search.FileResult, bool) {
	if !m.shownFiles || m.resp == nil || m.sel < 0 || m.sel >= len(m.resp.Files) {
		return search.FileResult{}, false
	}
	return m.resp.Files[m.sel], true
}

// toggleFiles switches between ranking definitions and ranking files and
// searches again at once: a toggle is one decision, not a burst to debounce.
// Until the answer arrives the table keeps showing the previous one.
func (m *Model) toggleFiles() tea.Cmd {
	m.files = !m.files
	if m.query() == "" {
		return nil
	}
	return m.run()
}

// itemCount is the number of ranked items shown: files or definitions.
func (m *Model) itemCount() int {
	switch {
	case m.resp == nil:
		return 0
	case m.shownFiles:
		return len(m.resp.Files)
	}
	return len(m.resp.Results)
}

// itemNoun names what is ranked.
func (m *Model) itemNoun() string {
	if m.shownFiles {
		return "files"
	}
	return "definitions"
}

// fileIndex is the index of path in the files shown, -1 when absent.
func (m *Model) fileIndex(path string) int {
	for i, f := range m.resp.Files {
		if f.Path == path {
			return i
		}
	}
	return -1
}

// fileCols are the files table's flexible column widths.
type fileCols struct{ path, best int }

func (m *Model) fileColumns() fileCols {
	// marker, rank and space 5; the space after the path 1; score 7 and a
	// space; defs 4 and two spaces; the best definition's kind 6 and a space.
	flex := max(m.w-(5+1+8+6+7), 20)
	return fileCols{path: flex / 2, best: flex - flex/2}
}

func (m *Model) filesHeader() string {
	c := m.fileColumns()
	h := "   # " + render.Pad("file", c.path) + " " + render.PadLeft("score", 7) + " " +
		render.PadLeft("defs", 4) + "  " + "best definition"
	return render.Truncate(h, m.w)
}

func (m *Model) fileRow(i int, c fileCols) string {
	f := m.resp.Files[i]
	selected := i == m.sel
	marker := " "
	if selected {
		marker = "▸"
	}
	path, kind, name := f.Path, "", ""
	if len(f.Symbols) > 0 {
		best := f.Symbols[0]
		kind, name = kindTag(best.Kind), displayName(best.Symbol)
		if best.WorkingTree() {
			path = "● " + path // uncommitted: indexed from the working tree
		}
		if best.Stale {
			path = "⚠ " + path // the file changed on disk since indexed
		}
	}
	var id int64
	if len(f.Symbols) > 0 {
		id = f.Symbols[0].ID
	}
	loc := m.location(id, path, c.path)
	cells := []string{
		marker + fmt.Sprintf("%3d", f.Rank) + " ",
		render.Pad(loc, c.path) + " ",
		render.PadLeft(fmtScore(f.Score), 7) + " ",
		render.PadLeft(fmt.Sprint(len(f.Symbols)), 4) + "  ",
		render.Pad(kind, 6) + " ",
		render.Truncate(name, c.best),
	}
	line := strings.Join(cells, "")
	switch {
	case selected:
		return m.th.Selected.Render(render.Pad(line, m.w))
	case f.IsTest:
		return m.th.Faint.Render(render.Truncate(line, m.w))
	}
	st := m.th
	styled := cells[0] + st.Text.Render(cells[1]) + st.Bold.Render(cells[2]) + st.Muted.Render(cells[3]) +
		st.Kind.Render(cells[4]) + st.Text.Render(cells[5])
	return render.Truncate(styled, m.w)
}

// fileBottom draws the selected file's definitions above its best definition's
// preview, and the explain panel of that definition.
func (m *Model) fileBottom(h int) []string {
	f, ok := m.SelectedFile()
	if !ok || len(f.Symbols) == 0 {
		return nil
	}
	best := f.Symbols[0]
	explain := func(w int) []string {
		out := m.explainLines(best, w, h)
		if len(out) > 0 {
			out[0] = m.th.Title.Render(render.Truncate(fmt.Sprintf("explain · best definition of file #%d", f.Rank), w))
		}
		return out
	}
	if m.w >= splitWidth {
		ew := 44
		pw := m.w - ew - 3
		return render.HJoin(m.th.Rule.Render(" │ "), []int{pw, ew}, m.fileLines(f, pw, h), explain(ew))
	}
	if m.showExplain {
		return explain(m.w)
	}
	return m.fileLines(f, m.w, h)
}

// fileLines lists a file's definitions with their lines and scores, then
// previews the best one in the lines left.
func (m *Model) fileLines(f search.FileResult, w, h int) []string {
	head := fmt.Sprintf(" · file #%d · score %s · %d listed", f.Rank, fmtScore(f.Score), len(f.Symbols))
	path := render.TruncateLeft(f.Path, max(10, w-render.Width(head)))
	out := []string{render.Truncate(m.th.Title.Render(path)+m.th.Muted.Render(head), w)}
	lw := 0
	for _, r := range f.Symbols {
		lw = max(lw, len(fmt.Sprintf("%d-%d", r.StartLine, r.EndLine)))
	}
	nw := max(4, w-(3+7+lw+1+8)) // index 3, kind 7, lines, score 8
	for i, r := range f.Symbols {
		if len(out) >= h {
			return out
		}
		line := m.th.Muted.Render(fmt.Sprintf("%2d ", i+1)) + m.th.Kind.Render(render.Pad(kindTag(r.Kind), 6)+" ") +
			m.th.Text.Render(render.Pad(render.Truncate(displayName(r.Symbol), nw), nw)) +
			m.th.Muted.Render(render.PadLeft(fmt.Sprintf("%d-%d", r.StartLine, r.EndLine), lw+1)) +
			m.th.Bold.Render(render.PadLeft(fmtScore(r.Score), 8))
		out = append(out, render.Truncate(line, w))
	}
	if len(out)+2 > h {
		return out
	}
	out = append(out, m.th.Rule.Render(strings.Repeat("╌", w)))
	return append(out, m.previewLines(f.Symbols[0], w, h-len(out))...)
}
