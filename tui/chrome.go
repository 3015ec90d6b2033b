package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/render"
)

type tabSpan struct {
	pane   event.Pane
	label  string
	x0, x1 int
}

// tabSpans lays the tabs out; the view and mouse clicks share it.
func (m *Model) tabSpans() []tabSpan {
	var out []tabSpan
	x := 0
	for i, p := range event.Panes {
		label := fmt.Sprintf("%d %s", i+1, p)
		if p == event.Conflicts && m.conflicts.Loaded() {
			if n := m.conflicts.Queue().Len(); n > 0 {
				label += fmt.Sprintf(" (%d)", n)
			}
		}
		w := render.Width(label) + 2 // padding or brackets
		out = append(out, tabSpan{pane: p, label: label, x0: x, x1: x + w})
		x += w + 1
	}
	return out
}

func (m *Model) tabBar() string {
	var b strings.Builder
	x := 0
	for _, t := range m.tabSpans() {
		if x > 0 {
			b.WriteString(" ")
		}
		switch {
		case t.pane == m.active && m.th.Plain():
			b.WriteString("[" + t.label + "]")
		case t.pane == m.active:
			b.WriteString(m.th.TabActive.Render(t.label))
		default:
			b.WriteString(m.th.Tab.Render(t.label))
		}
		x = t.x1
	}
	crumbs := m.breadcrumb()
	if crumbs != "" {
		room := m.w - x - 3
		if room > 8 {
			crumb := render.TruncateLeft(crumbs, room)
			b.WriteString(strings.Repeat(" ", max(1, m.w-x-render.Width(crumb))))
			b.WriteString(m.th.Muted.Render(crumb))
		}
	}
	return b.String()
}

// breadcrumb is the back stack and the current place: where esc returns to.
func (m *Model) breadcrumb() string {
	if len(m.history) == 0 {
		return ""
	}
	var parts []string
	start := max(0, len(m.history)-3)
	if start > 0 {
		parts = append(parts, "…")
	}
	for _, l := range m.history[start:] {
		parts = append(parts, l.label)
	}
	cur := m.active.String()
	if n, ok := m.pane(m.active).(navigable); ok {
		cur = n.Label()
	}
	parts = append(parts, cur)
	return strings.Join(parts, " › ")
}

// helpLine is the short help of the active pane, then the global keys. A
// pane that takes the keys (a text field, the merge editor) gets them all but
// ctrl+c: / or q would type a character there, so only ctrl+c is advertised.
func (m *Model) helpLine() string {
	if m.showHelp {
		return m.hlp.ShortHelpView([]key.Binding{m.km.Help, m.km.Quit})
	}
	p := m.pane(m.active)
	global := m.km.ShortHelp()
	if p.Capturing() {
		global = []key.Binding{m.km.ForceQuit}
	}
	return m.hlp.ShortHelpView(append(enabled(p.ShortHelp()), global...))
}

func enabled(bs []key.Binding) []key.Binding {
	out := bs[:0:0]
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// fullHelp lists every key that works now, the active pane's groups first, then
// the global ones, flowed into columns that each take whole groups and are only as
// wide as their own entries (so everything fits at 80x24).
func (m *Model) fullHelp(w, h int) string {
	type entry struct{ key, desc string }
	type group struct {
		title   string
		entries []entry
	}
	var groups []group
	collect := func(title string, cols [][]key.Binding) {
		for _, col := range cols {
			var g group
			for _, b := range col {
				if b.Enabled() && b.Help().Key != "" {
					g.entries = append(g.entries, entry{b.Help().Key, b.Help().Desc})
				}
			}
			if len(g.entries) > 0 {
				g.title, title = title, ""
				groups = append(groups, g)
			}
		}
	}
	collect("", m.pane(m.active).FullHelp())
	collect("everywhere", m.km.FullHelp())

	avail := max(1, h-2)
	height := func(g group) int {
		if g.title != "" {
			return len(g.entries) + 1
		}
		return len(g.entries)
	}
	// flow puts whole groups into columns of at most target lines.
	flow := func(target int) [][]group {
		var columns [][]group
		used := 0
		for _, g := range groups {
			gh := height(g)
			if len(columns) > 0 && used+1+gh <= target {
				columns[len(columns)-1] = append(columns[len(columns)-1], g)
				used += 1 + gh
				continue
			}
			columns = append(columns, []group{g})
			used = gh
		}
		return columns
	}
	layout := func(columns [][]group) ([][]string, []int) {
		blocks := make([][]string, len(columns))
		widths := make([]int, len(columns))
		for c, col := range columns {
			kw := 0
			for _, g := range col {
				for _, e := range g.entries {
					kw = max(kw, render.Width(e.key))
				}
			}
			var lines []string
			for i, g := range col {
				if i > 0 {
					lines = append(lines, "")
				}
				if g.title != "" {
					lines = append(lines, m.th.Title.Render(g.title))
				}
				for _, e := range g.entries {
					lines = append(lines, m.th.Help.FullKey.Render(render.Pad(e.key, kw))+"  "+m.th.Help.FullDesc.Render(e.desc))
				}
			}
			for _, l := range lines {
				widths[c] = max(widths[c], render.Width(l))
			}
			if c < len(columns)-1 {
				widths[c] += 3 // the gap to the next column
			}
			blocks[c] = lines
		}
		return blocks, widths
	}
	// The shortest balanced columns that fit the width.
	total := 0
	for _, g := range groups {
		total += height(g) + 1
	}
	ncols := max(1, (total+avail-1)/avail)
	blocks, widths := layout(flow(avail))
	for target := (total + ncols - 1) / ncols; target <= avail; target++ {
		b, wd := layout(flow(target))
		sum := 0
		for _, x := range wd {
			sum += x
		}
		if sum <= w {
			blocks, widths = b, wd
			break
		}
	}
	title := m.th.Title.Render(fmt.Sprintf("Keys · %s pane", m.active)) + m.th.Faint.Render("   (? or esc closes)")
	out := []string{title, ""}
	out = append(out, render.HJoin("", widths, blocks...)...)
	return strings.Join(out, "\n")
}

// barSeg is a segment of the status bar.
type barSeg struct {
	text string
	prio int // lower survives longer
}

// syncSegs are the memory cache's segments: the writes waiting for the core and
// the last sync error (both kept until the queue drains and a sync is clean).
func (m *Model) syncSegs() []barSeg {
	s := m.sync
	if !s.Cached {
		return nil
	}
	bar := m.th.StatusBar
	var out []barSeg
	if s.Queued > 0 {
		out = append(out, barSeg{bar.Foreground(m.th.P.Warn).Render(fmt.Sprintf("⇡ %d writes queued ", s.Queued)), 0})
	}
	if s.LastError != "" {
		out = append(out, barSeg{bar.Foreground(m.th.P.Bad).Render("sync: " + render.Truncate(s.LastError, 48) + " "), 1})
	}
	return out
}

// freshSeg is the status bar's word on the index: incomplete (the last run
// stopped before it finished: pg.Repository.Incomplete's warning, which the
// CLI and MCP give too), stale, or fresh. It renders the status last fetched,
// off the Update path, so it never waits on the database.
func (m *Model) freshSeg() barSeg {
	th, bar, st := m.th, m.th.StatusBar, m.status
	reindex := th.StatusKey.Render(" R") + bar.Render(" re-index ")
	if st.Incomplete != "" {
		return barSeg{bar.Foreground(th.P.Warn).Render("⚠ "+render.Truncate(st.Incomplete, 72)) + reindex, 0}
	}
	if !st.Stale {
		return barSeg{bar.Foreground(th.P.Good).Render("✓ fresh "), 1}
	}
	text := "⚠ stale: " + render.Truncate(st.StaleReason, 40)
	switch {
	case st.StaleFiles == 1:
		text = "⚠ 1 stale file"
	case st.StaleFiles > 1:
		text = fmt.Sprintf("⚠ %d stale files", st.StaleFiles)
	case st.StaleReason == "":
		text = "⚠ stale"
	}
	return barSeg{bar.Foreground(th.P.Warn).Render(text) + reindex, 0}
}

// statusBar is the last line: repository, revision and freshness (or indexing
// progress), embedding model, database, and the last error or note. Segments are
// dropped from the least important when the width is short.
func (m *Model) statusBar() string {
	th := m.th
	bar := th.StatusBar
	st := m.status
	var segs []barSeg
	name := st.Name
	if name == "" {
		name = "…"
	}
	segs = append(segs, barSeg{bar.Bold(true).Render(" " + name + " "), 0})
	if f := m.RepoFilterLabel(); f != "" {
		segs = append(segs, barSeg{bar.Foreground(th.P.Accent).Render("[" + f + "] "), 0})
	}
	// Right after the name: of equals the later segments go first, and queued
	// writes matter most when the core is down and its error takes the room.
	segs = append(segs, m.syncSegs()...)
	if m.indexing {
		segs = append(segs, barSeg{m.progressView(), 0})
	} else if m.statusLoaded {
		rev := "never indexed"
		switch {
		case st.Revision != "" && st.WorkingTree:
			rev = "@" + shortRev(st.Revision) + " + working tree"
		case st.Revision != "":
			rev = "@" + shortRev(st.Revision)
		case st.WorkingTree && st.Head != "":
			rev = "@" + shortRev(st.Head) + " + working tree"
		case st.WorkingTree || st.Indexed:
			rev = "@working tree"
		}
		segs = append(segs, barSeg{bar.Render(rev + " "), 1})
		segs = append(segs, m.freshSeg())
		if w := m.watchView(); w != "" {
			segs = append(segs, barSeg{w, 2})
		}
		if st.Pending > 0 {
			segs = append(segs, barSeg{bar.Foreground(th.P.Warn).Render(fmt.Sprintf("%d unembedded ", st.Pending)), 3})
		}
		if st.Model != "" {
			segs = append(segs, barSeg{bar.Foreground(th.P.Muted).Render("· " + st.Model + " "), 3})
		}
	}
	if m.cfg.DBLabel != "" {
		segs = append(segs, barSeg{bar.Foreground(th.P.Muted).Render("· db " + m.cfg.DBLabel + " "), 4})
	}
	right := ""
	switch {
	case m.lastErr != nil:
		right = bar.Foreground(th.P.Bad).Render(" ✗ " + m.lastErr.Error() + " ")
	case m.note != "":
		right = bar.Foreground(th.P.Accent).Render(" " + m.note + " ")
	}
	for {
		left := ""
		for _, s := range segs {
			left += s.text
		}
		lw, rw := render.Width(left), render.Width(right)
		if lw+rw <= m.w || len(segs) <= 2 {
			if right != "" {
				right = render.Truncate(right, max(0, m.w-lw))
				rw = render.Width(right)
			}
			gap := max(0, m.w-lw-rw)
			return render.Pad(left+bar.Render(strings.Repeat(" ", gap))+right, m.w)
		}
		// Drop the least important segment.
		worst := -1
		for i, s := range segs {
			if worst < 0 || s.prio >= segs[worst].prio {
				worst = i
			}
		}
		segs = append(segs[:worst], segs[worst+1:]...)
	}
}

// progressView is the indexing progress: phase, a bar, counts and ETA.
func (m *Model) progressView() string {
	th := m.th
	bar := th.StatusBar
	p := m.progress
	if strings.HasPrefix(p.Phase, "waiting") { // another process holds the index: no counts yet
		return bar.Foreground(th.P.Warn).Render("⟳ " + p.Phase + " ")
	}
	done, total := p.FilesDone, p.FilesTotal
	if p.Phase == "embedding" && p.EmbedQueued > 0 {
		done, total = p.Embedded, p.EmbedQueued
	}
	frac := 0.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	const width = 16
	fill := int(frac*width + 0.5)
	barText := bar.Foreground(th.P.Accent).Render(strings.Repeat("█", fill)) + bar.Foreground(th.P.Faint).Render(strings.Repeat("░", width-fill))
	text := fmt.Sprintf("⟳ %s %d/%d ", p.Phase, done, total)
	tail := fmt.Sprintf(" %3.0f%% · %d chunks", frac*100, p.Chunks)
	if p.ETA > 0 && done >= 10 {
		tail += " · ETA " + p.ETA.Round(1e9).String()
	}
	return bar.Foreground(th.P.Warn).Render(text) + barText + bar.Render(tail+" ")
}

func shortRev(rev string) string {
	if len(rev) > 12 && !strings.Contains(rev, "-") {
		return rev[:12]
	}
	return rev
}
