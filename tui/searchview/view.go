package searchview

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/render"
)

// Fixed parts of the layout: the query, the options line, the table header and
// the rule above the preview.
const chromeLines = 4

// tableRows is how many result rows the table shows.
func (m *Model) tableRows() int {
	rest := m.h - chromeLines
	if rest <= 0 {
		return 0
	}
	return max(3, rest*2/5)
}

// rowCount is the table's scrollable length: results, then the pruned items;
// or the files.
func (m *Model) rowCount() int {
	if m.resp == nil {
		return 0
	}
	if m.shownFiles {
		return len(m.resp.Files) // a file list has nothing pruned to show
	}
	n := len(m.resp.Results)
	if len(m.resp.Pruned) > 0 {
		n += 1 + len(m.resp.Pruned)
	}
	return n
}

// View draws the pane at its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.queryLine(), m.optionsLine())
	lines = append(lines, m.table()...)
	lines = append(lines, m.th.Rule.Render(strings.Repeat("─", m.w)))
	lines = append(lines, m.bottom(m.h-len(lines))...)
	return strings.Join(lines, "\n")
}

func (m *Model) queryLine() string {
	right := ""
	switch {
	case m.loading && m.files:
		right = m.th.Muted.Render("ranking files…")
	case m.loading:
		right = m.th.Muted.Render("searching…")
	case m.resp != nil:
		// Fixed width, so the line does not jitter as timings change.
		right = m.th.Muted.Render(fmt.Sprintf("%d %s · %s · %4dms", m.itemCount(), m.itemNoun(), m.resp.Kind, m.resp.Took.Milliseconds()))
	}
	left := render.InputView(m.input, m.th.Plain())
	gap := m.w - render.Width(left) - render.Width(right)
	if gap < 1 {
		if m.w-render.Width(right)-1 < 20 {
			return render.Truncate(left, m.w) // too narrow for both: the query wins
		}
		left = render.Truncate(left, m.w-render.Width(right)-1)
		gap = m.w - render.Width(left) - render.Width(right)
	}
	return left + strings.Repeat(" ", gap) + right
}

func (m *Model) optionsLine() string {
	var parts []string
	for i, c := range search.AllChannels {
		label := fmt.Sprintf("%s %.2f", c, m.effectiveWeight(c))
		if !m.enabled[i] {
			label = string(c) + " off"
		}
		if m.resp != nil {
			if _, down := m.resp.Unavailable[c]; down && m.enabled[i] {
				label += " !"
			}
		}
		st := m.th.ChannelStyle(string(c))
		if !m.enabled[i] {
			st = m.th.Faint
		}
		if i == m.chanCur && !m.inputFocused {
			label = "[" + label + "]"
			st = st.Bold(true).Underline(true)
		} else {
			label = " " + label + " "
		}
		parts = append(parts, st.Render(label))
	}
	line := strings.Join(parts, m.th.Faint.Render("│")) + m.th.Muted.Render(fmt.Sprintf("  k %g", m.effectiveK()))
	if m.resp != nil && len(m.resp.Pruned) > 0 && !m.shownFiles {
		line += m.th.Faint.Render(fmt.Sprintf("  · %d pruned", len(m.resp.Pruned)))
	}
	if n := len(m.marks); n > 0 {
		line += m.th.Good.Render(fmt.Sprintf("  · %d judged (w saves)", n))
	}
	return render.Truncate(line, m.w)
}

// columns computes the table's column widths for the pane width.
type columns struct {
	wide             bool // channel cells show "rank score", else rank only
	sym, path, chanW int
}

func (m *Model) columns() columns {
	c := columns{wide: m.w >= 110}
	c.chanW = 3
	if c.wide {
		c.chanW = 10
	}
	// marker, rank and space 5; mark 2; kind 7; the spaces after symbol and
	// path 2; score 8; each channel a space and its cell.
	fixed := 5 + 2 + 7 + 2 + 8 + len(search.AllChannels)*(c.chanW+1)
	flex := max(m.w-fixed, 20)
	c.sym = flex / 2
	c.path = flex - c.sym
	return c
}

func (m *Model) table() []string {
	rows := m.tableRows()
	c := m.columns()
	out := make([]string, 0, rows+1)
	if m.shownFiles {
		out = append(out, m.th.Header.Render(m.filesHeader()))
	} else {
		out = append(out, m.th.Header.Render(m.header(c)))
	}
	switch {
	case m.err != nil:
		out = append(out, m.th.Bad.Render(render.Truncate("  "+m.err.Error(), m.w)))
	case m.resp == nil && m.query() == "":
		out = append(out, m.th.Muted.Render("  Type a query: a name (Cart.add, isEligibleForRefund) or a question in words."),
			m.th.Faint.Render("  Results update as you type; enter or ↓ moves to them, / comes back."))
	case m.resp == nil:
		out = append(out, m.th.Muted.Render("  searching…"))
	case m.itemCount() == 0:
		out = append(out, m.th.Muted.Render(fmt.Sprintf("  no %s for %q", m.itemNoun(), m.resp.Query)))
	case m.shownFiles:
		fc := m.fileColumns()
		for i := m.top; i < m.top+rows && i < m.rowCount(); i++ {
			out = append(out, m.fileRow(i, fc))
		}
	default:
		for i := m.top; i < m.top+rows && i < m.rowCount(); i++ {
			out = append(out, m.row(i, c))
		}
	}
	for len(out) < rows+1 {
		out = append(out, "")
	}
	return out[:rows+1]
}

func (m *Model) header(c columns) string {
	var b strings.Builder
	b.WriteString("   # ")
	b.WriteString("  kind   ")
	b.WriteString(render.Pad("symbol", c.sym) + " ")
	b.WriteString(render.Pad("path:lines", c.path) + " ")
	b.WriteString(render.PadLeft("score", 7) + " ")
	for _, ch := range search.AllChannels {
		name := string(ch)
		if !c.wide {
			name = shortChannel(ch)
		}
		b.WriteString(" " + render.PadLeft(name, c.chanW))
	}
	return render.Truncate(b.String(), m.w)
}

func (m *Model) row(i int, c columns) string {
	n := len(m.resp.Results)
	switch {
	case i < n:
		return m.resultRow(i, c)
	case i == n:
		return m.th.Faint.Render(render.Truncate("  ── pruned or cut ──", m.w))
	default:
		p := m.resp.Pruned[i-n-1]
		text := fmt.Sprintf("   ✂   %s  %s:%d  %s", p.Name, p.Path, p.StartLine, p.Reason)
		return m.th.Faint.Render(render.Truncate(text, m.w))
	}
}

func (m *Model) resultRow(i int, c columns) string {
	r := m.resp.Results[i]
	selected := i == m.sel
	marker := " "
	if selected {
		marker = "▸"
	}
	mark := " "
	switch m.marks[r.ID] {
	case Relevant:
		mark = "✓"
	case NotRelevant:
		mark = "✗"
	}
	name := displayName(r.Symbol)
	if r.WorkingTree() {
		name = "● " + name // uncommitted: indexed from the working tree
	}
	if r.Stale {
		name = "⚠ " + name // the file changed on disk since indexed: lines may have moved
	}
	if r.Truncated {
		name += " (cut)"
	}
	loc := m.location(r.ID, fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine), c.path)
	cells := []string{
		marker + fmt.Sprintf("%3d", r.Rank) + " ",
		mark + " ",
		render.Pad(kindTag(r.Kind), 6) + " ",
		render.Pad(name, c.sym) + " ",
		render.Pad(loc, c.path) + " ",
		render.PadLeft(fmtScore(r.Score), 7) + " ",
	}
	for _, ch := range search.AllChannels {
		cells = append(cells, " "+render.PadLeft(channelCell(r.Explain, ch, c.wide), c.chanW))
	}
	if selected {
		return m.th.Selected.Render(render.Pad(strings.Join(cells, ""), m.w))
	}
	st := m.th
	styled := []string{
		cells[0],
		markStyle(m, m.marks[r.ID]).Render(cells[1]),
		st.Kind.Render(cells[2]),
		st.Text.Render(cells[3]),
		locStyle(m, r.Stale).Render(cells[4]),
		st.Bold.Render(cells[5]),
	}
	for j, ch := range search.AllChannels {
		styled = append(styled, st.ChannelStyle(string(ch)).Render(cells[6+j]))
	}
	if r.IsTest {
		return st.Faint.Render(render.Truncate(strings.Join(cells, ""), m.w))
	}
	return render.Truncate(strings.Join(styled, ""), m.w)
}

// location is a row's path cut to w from the left (its end matters most),
// behind the repository of symbol id over several repositories.
func (m *Model) location(id int64, path string, w int) string {
	repo := m.repoOf(id)
	if repo == "" {
		return render.TruncateLeft(path, w)
	}
	label := "[" + render.Truncate(repo, w/3) + "] "
	return label + render.TruncateLeft(path, max(1, w-render.Width(label)))
}

// locStyle is the style of a result's path:lines: a warning when the file
// changed since it was indexed.
func locStyle(m *Model, stale bool) lipgloss.Style {
	if stale {
		return m.th.Warn
	}
	return m.th.Muted
}

func markStyle(m *Model, j Judgment) lipgloss.Style {
	switch j {
	case Relevant:
		return m.th.Good
	case NotRelevant:
		return m.th.Bad
	}
	return m.th.Text
}

// shortChannel is a channel's narrow column label: its initial, or its first
// three letters when another channel shares the initial (lexical, literal).
func shortChannel(ch search.Channel) string {
	name := string(ch)
	for _, o := range search.AllChannels {
		if o != ch && o != "" && name != "" && o[0] == name[0] {
			return strings.ToUpper(name[:1]) + name[1:min(3, len(name))]
		}
	}
	return strings.ToUpper(name[:min(1, len(name))])
}

// channelCell is "rank score" (or the rank alone when narrow); blank when the
// channel did not return the result.
func channelCell(e search.Explain, ch search.Channel, wide bool) string {
	cs, ok := e.Channels[ch]
	if !ok || cs.Rank == 0 {
		return ""
	}
	if !wide {
		return fmt.Sprint(cs.Rank)
	}
	return fmt.Sprintf("%d %6s", cs.Rank, fmtScore(cs.Score))
}

// fmtScore prints a score in at most 6 cells with useful precision whatever its
// scale (cosine similarities, ts_rank, BM25, RRF sums).
func fmtScore(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	case a >= 1:
		return fmt.Sprintf("%.3f", v)
	case a >= 0.0001:
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%.0e", v)
}

// kindTag abbreviates a symbol kind to at most six cells.
func kindTag(kind string) string {
	switch kind {
	case "function":
		return "func"
	case "interface":
		return "iface"
	case "module":
		return "file"
	case "constructor":
		return "ctor"
	case "property":
		return "prop"
	case "variable":
		return "var"
	}
	return render.Truncate(kind, 6)
}

// bottom draws the preview and the explain panel in h lines.
func (m *Model) bottom(h int) []string {
	if h <= 0 {
		return nil
	}
	if m.shownFiles {
		return m.fileBottom(h)
	}
	r, ok := m.Selected()
	if !ok {
		return nil
	}
	if m.w >= splitWidth {
		ew := 44
		pw := m.w - ew - 3
		return render.HJoin(m.th.Rule.Render(" │ "), []int{pw, ew}, m.previewLines(r, pw, h), m.explainLines(r, ew, h))
	}
	if m.showExplain {
		return m.explainLines(r, m.w, h)
	}
	return m.previewLines(r, m.w, h)
}

func (m *Model) previewLines(r search.Result, w, h int) []string {
	out := make([]string, 0, h)
	head := fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine)
	if rev := revLabel(r.Symbol); rev != "" {
		head += " · " + rev
	}
	if r.Stale {
		head += " · ⚠ stale: changed on disk since indexed"
	}
	out = append(out, m.th.Title.Render(render.Truncate(displayName(r.Symbol), w/2))+" "+m.th.Muted.Render(render.TruncateLeft(head, max(0, w-render.Width(displayName(r.Symbol))-1))))
	lines := m.preview[r.ID]
	if lines == nil {
		out = append(out, m.th.Faint.Render("  highlighting…"))
		return out
	}
	gw := len(fmt.Sprint(r.StartLine+len(lines))) + 1
	for i := 0; i < len(lines) && len(out) < h; i++ {
		no := m.th.LineNo.Render(render.PadLeft(fmt.Sprint(r.StartLine+i), gw-1)) + " "
		out = append(out, no+render.Truncate(lines[i], w-gw))
	}
	if r.Truncated && len(out) < h {
		out = append(out, m.th.Warn.Render("  … cut to fit the token budget"))
	}
	return out
}

// explainRow is one row of the explain panel; rows with a higher drop give
// way first when the panel is short, so that "= final" always shows.
type explainRow struct {
	text string
	drop int
}

// Drop priorities: what is shown last in a short panel.
const (
	keep         = iota // the title and the sum's result
	dropScored          // a channel that ranked the result, a factor that changed it
	dropUnranked        // a channel that did not rank it (–, off, unavailable)
	dropNeutral         // a factor of 1.00, which changes nothing
	dropRule
	dropNote // the query line and what was unavailable
)

func (m *Model) explainLines(r search.Result, w, h int) []string {
	rows := append(m.explainChannels(r, w), m.explainSum(r, w)...)
	for len(rows) > h {
		worst := 0
		for i, x := range rows {
			if x.drop >= rows[worst].drop {
				worst = i
			}
		}
		if rows[worst].drop == keep {
			break
		}
		rows = append(rows[:worst], rows[worst+1:]...)
	}
	out := make([]string, 0, len(rows))
	for _, x := range rows {
		out = append(out, x.text)
	}
	if len(out) > h {
		out = out[:h]
	}
	return out
}

// explainChannels is the panel's title and one row per channel.
func (m *Model) explainChannels(r search.Result, w int) []explainRow {
	out := []explainRow{
		{m.th.Title.Render(render.Truncate(fmt.Sprintf("explain · #%d", r.Rank), w)), keep},
		{m.th.Header.Render(render.Truncate(fmt.Sprintf("%-8s %4s %7s %6s %9s", "channel", "rank", "score", "weight", "contrib"), w)), dropScored},
	}
	for _, ch := range search.AllChannels {
		st := m.th.ChannelStyle(string(ch))
		cs, ok := r.Explain.Channels[ch]
		var line string
		drop := dropUnranked
		switch {
		case ok && cs.Rank > 0:
			line = fmt.Sprintf("%-8s %4d %7s %6.2f %9.5f", ch, cs.Rank, fmtScore(cs.Score), m.responseWeight(ch), cs.Contribution)
			drop = dropScored
		case m.resp != nil && m.resp.Unavailable[ch] != "":
			line = fmt.Sprintf("%-8s unavailable", ch)
			st = m.th.Warn
		case !m.channelOn(ch):
			line = fmt.Sprintf("%-8s off", ch)
			st = m.th.Faint
		default:
			line = fmt.Sprintf("%-8s %4s", ch, "–")
			st = m.th.Faint
		}
		out = append(out, explainRow{st.Render(render.Truncate(line, w)), drop})
	}
	return out
}

// explainSum is the panel's arithmetic, from the fused score to the final
// one, then the query line and what was unavailable.
func (m *Model) explainSum(r search.Result, w int) []explainRow {
	e := r.Explain
	factor := func(v float64) int {
		if v == 1 {
			return dropNeutral
		}
		return dropScored
	}
	out := []explainRow{
		{m.th.Rule.Render(strings.Repeat("─", min(w, 38))), dropRule},
		{render.Truncate(fmt.Sprintf("%-28s %9.5f", "fused (Σ contrib)", e.Fused), w), keep},
	}
	if l := e.Learned; l != nil && l.Model != "" {
		out[1] = explainRow{render.Truncate(fmt.Sprintf("%-28s %9.5f", fmt.Sprintf("fused (ranker %.2f)", l.Score), e.Fused), w), keep}
	}
	if e.Boost != 0 {
		out = append(out, explainRow{render.Truncate(fmt.Sprintf("%-28s %9.5f", "+ match boost", e.Boost), w), dropScored})
	}
	for _, x := range e.Expanded {
		out = append(out, explainRow{m.th.Muted.Render(render.Truncate("  "+x.String(), w)), dropScored})
	}
	out = append(out,
		explainRow{render.Truncate(fmt.Sprintf("%-28s %9.2f", "× test factor", e.TestFactor), w), factor(e.TestFactor)},
		explainRow{render.Truncate(fmt.Sprintf("%-28s %9.2f", "× decay", e.Decay), w), factor(e.Decay)},
		explainRow{m.th.Bold.Render(render.Truncate(fmt.Sprintf("%-28s %9.5f", "= final", e.Final), w)), keep},
	)
	if m.resp == nil {
		return out
	}
	out = append(out, explainRow{m.th.Muted.Render(render.Truncate(fmt.Sprintf("%s query · k %g · %d tokens", m.resp.Kind, m.resp.K, r.Tokens), w)), dropNote})
	for _, ch := range sortedChannels(m.resp.Unavailable) {
		for _, l := range render.Wrap(fmt.Sprintf("%s unavailable: %s", ch, m.resp.Unavailable[ch]), w) {
			out = append(out, explainRow{m.th.Warn.Render(l), dropNote})
		}
	}
	return out
}

func (m *Model) responseWeight(ch search.Channel) float64 {
	if m.resp != nil {
		if w, ok := m.resp.Weights[ch]; ok {
			return w
		}
	}
	return m.effectiveWeight(ch)
}

func (m *Model) channelOn(ch search.Channel) bool {
	for i, c := range search.AllChannels {
		if c == ch {
			return m.enabled[i]
		}
	}
	return false
}

func revLabel(s symbols.Symbol) string {
	switch {
	case s.WorkingTree():
		return "working tree"
	case len(s.Revision) > 10:
		return s.Revision[:10]
	}
	return s.Revision
}
