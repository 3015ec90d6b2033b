package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/tui/conflictview"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/graphview"
	"github.com/spelunkhq/spelunk/tui/memoryview"
	"github.com/spelunkhq/spelunk/tui/render"
	"github.com/spelunkhq/spelunk/tui/searchview"
	"github.com/spelunkhq/spelunk/tui/symbolview"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// Config tunes the program. The zero value works.
type Config struct {
	Theme    *theme.Theme  // nil = built for stdout (NO_COLOR honoured)
	EvalPath string        // where the Search pane saves judged queries
	Editor   string        // merge editor command ($VISUAL/$EDITOR); "" = in-app editor
	DBLabel  string        // how the status bar names the database
	Debounce time.Duration // search debounce; 0 = 150ms
	Limit    int           // results per search; 0 = the engine's default
	// StatusEvery is how often the repository status (freshness) is refreshed;
	// 0 = every 15s, negative = only at start and after indexing.
	StatusEvery time.Duration
	// NoAutoIndex stops the program from indexing on its own when it opens on an
	// unindexed or stale repository (R still does).
	NoAutoIndex bool
	Now         func() time.Time // nil = time.Now; used for relative times
	Query       string           // an initial query
	Notice      string           // a note shown in the status bar at start (an embedder fallback, say)
	// Watch, when set, carries the state of the watcher running beside the
	// program (latest state first; closed when the watcher stops): the status
	// bar shows it, and the repository status is refreshed after each run.
	Watch <-chan WatchEvent
}

// pane is what the root needs of every pane: soft-serve's contract (a view, a
// size, help) plus a concrete Update and whether a text field has the keys.
type pane interface {
	Update(tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	Capturing() bool
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// navigable panes can be left and come back to through the back stack.
type navigable interface {
	Snapshot() any
	Restore(any) tea.Cmd
	Label() string
}

// location is one entry of the back stack.
type location struct {
	pane  event.Pane
	snap  any
	label string
}

// maxHistory bounds the back stack.
const maxHistory = 64

// Model is the root model.
type Model struct {
	b   Backend
	cfg Config
	th  *theme.Theme
	km  KeyMap
	hlp help.Model

	w, h   int
	active event.Pane
	// symbolAfterGraph: a symbol was opened since the graph was last drawn (toGraph).
	symbolAfterGraph bool

	search    *searchview.Model
	symbol    *symbolview.Model
	graph     *graphview.Model
	conflicts *conflictview.Model
	memory    *memoryview.Model

	showHelp bool
	history  []location

	status       RepoStatus
	statusLoaded bool
	sync         SyncStatus // the memory cache's queue and last sync error
	statusSeq    uint64
	statusBusy   bool // the latest status request has not answered yet
	autoIndexed  bool

	indexing    bool
	progress    Progress
	indexCancel context.CancelFunc
	indexSeq    uint64

	watch WatchEvent // the watcher's latest state (Config.Watch)

	lastErr *event.ErrorMsg
	note    string
	noteSeq uint64
}

// New returns the root model over b.
func New(b Backend, cfg Config) *Model {
	th := cfg.Theme
	if th == nil {
		th = theme.New(theme.Options{})
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StatusEvery == 0 {
		cfg.StatusEvery = 15 * time.Second
	}
	hl := render.NewHighlighter(th.Profile, th.Dark)
	hm := help.New()
	hm.Styles = th.Help
	m := &Model{
		b: b, cfg: cfg, th: th, km: DefaultKeyMap(), hlp: hm,
		search:    searchview.New(b, th, hl, searchview.Config{EvalPath: cfg.EvalPath, Debounce: cfg.Debounce, Limit: cfg.Limit}),
		symbol:    symbolview.New(b, th, hl),
		graph:     graphview.New(b, th),
		conflicts: conflictview.New(b, th, conflictview.Config{Editor: cfg.Editor, Now: cfg.Now}),
		memory:    memoryview.New(b, th, memoryview.Config{Now: cfg.Now}),
	}
	if _, ok := b.(RepoFilter); ok {
		m.km.RepoFilter.SetEnabled(true)
	}
	return m
}

// Init starts the first loads: the repository status (which may start indexing),
// the conflict queue (for its counter) and the focused query box.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.fetchStatus(), m.conflicts.Init(), m.search.Init()}
	if m.cfg.Query != "" {
		cmds = append(cmds, m.search.SetQuery(m.cfg.Query))
	}
	if m.cfg.StatusEvery > 0 {
		cmds = append(cmds, m.statusTick())
	}
	if m.cfg.Watch != nil {
		cmds = append(cmds, waitWatch(m.cfg.Watch))
	}
	if m.cfg.Notice != "" {
		cmds = append(cmds, event.Note("%s", m.cfg.Notice))
	}
	return tea.Batch(cmds...)
}

// Active is the pane shown.
func (m *Model) Active() event.Pane { return m.active }

// Search returns the Search pane.
func (m *Model) Search() *searchview.Model { return m.search }

// Symbol returns the Symbol pane.
func (m *Model) Symbol() *symbolview.Model { return m.symbol }

// Graph returns the Graph pane.
func (m *Model) Graph() *graphview.Model { return m.graph }

// Conflicts returns the Conflicts pane.
func (m *Model) Conflicts() *conflictview.Model { return m.conflicts }

// Memory returns the Memory pane.
func (m *Model) Memory() *memoryview.Model { return m.memory }

// Sync is the memory cache's state the status bar shows.
func (m *Model) Sync() SyncStatus { return m.sync }

// LastError is the error shown in the status bar, nil when none.
func (m *Model) LastError() error {
	if m.lastErr == nil {
		return nil
	}
	return *m.lastErr
}

// Note is the informational line shown in the status bar.
func (m *Model) Note() string { return m.note }

// History is the back stack's labels, oldest first.
func (m *Model) History() []string {
	out := make([]string, len(m.history))
	for i, l := range m.history {
		out[i] = l.label
	}
	return out
}

// Indexing reports whether an indexing run is in progress.
func (m *Model) Indexing() bool { return m.indexing }

// Status is the last repository status fetched.
func (m *Model) Status() RepoStatus { return m.status }

// HelpShown reports whether the full help is open.
func (m *Model) HelpShown() bool { return m.showHelp }

func (m *Model) pane(p event.Pane) pane {
	switch p {
	case event.Symbol:
		return m.symbol
	case event.Graph:
		return m.graph
	case event.Conflicts:
		return m.conflicts
	case event.Memory:
		return m.memory
	}
	return m.search
}

// Layout: the tab bar, the pane, the help line, the status bar.
const chromeRows = 3

func (m *Model) paneSize() (int, int) { return m.w, max(0, m.h-chromeRows) }

// Update routes a message: window sizes to every pane; keys through the global
// bindings (unless a text field has them) to the active pane; navigation and
// errors to the root; a pane's own results to that pane whichever is visible;
// anything else to the active pane.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.hlp.Width = msg.Width
		pw, ph := m.paneSize()
		for _, p := range event.Panes {
			m.pane(p).SetSize(pw, ph)
		}
		return m, m.conflicts.Ensure()
	case tea.KeyMsg:
		return m, m.onKey(msg)
	case tea.MouseMsg:
		return m, m.onMouse(msg)
	case event.ErrorMsg:
		if errors.Is(msg.Err, context.Canceled) {
			return m, nil
		}
		e := msg
		m.lastErr = &e
		return m, nil
	case event.NoteMsg:
		m.noteSeq++
		seq := m.noteSeq
		m.note = msg.Text
		return m, tea.Tick(6*time.Second, func(time.Time) tea.Msg { return noteExpiredMsg{seq: seq} })
	case noteExpiredMsg:
		if msg.seq == m.noteSeq {
			m.note = ""
		}
		return m, nil
	case event.OpenSymbolMsg:
		m.symbolAfterGraph = true
		m.push()
		return m, tea.Batch(m.setActive(event.Symbol), m.symbol.Open(msg.ID, msg.Path, msg.Line))
	case event.OpenGraphMsg:
		m.symbolAfterGraph = false
		m.push()
		return m, tea.Batch(m.setActive(event.Graph), m.graph.Open(msg))
	case statusMsg:
		return m, m.onStatus(msg)
	case statusTickMsg:
		// A refresh still running is not started again: on a repository whose
		// status takes longer than the period, each answer would be dropped for
		// a newer request and the status bar would never change.
		var cmd tea.Cmd
		if !m.indexing && !m.statusBusy {
			cmd = m.fetchStatus()
		}
		return m, tea.Batch(cmd, m.statusTick())
	case indexProgressMsg:
		if msg.seq != m.indexSeq {
			return m, nil
		}
		m.progress = msg.p
		return m, waitIndex(msg.seq, msg.progress, msg.done)
	case indexDoneMsg:
		return m, m.onIndexed(msg)
	case watchMsg:
		return m, m.onWatch(msg)
	case event.Routed:
		return m, m.pane(msg.Target()).Update(msg)
	}
	return m, m.pane(m.active).Update(msg)
}

func (m *Model) onKey(k tea.KeyMsg) tea.Cmd {
	if key.Matches(k, m.km.ForceQuit) {
		return m.quit()
	}
	if m.showHelp {
		if key.Matches(k, m.km.Help, m.km.Back, m.km.Quit) {
			m.showHelp = false
		}
		return nil
	}
	p := m.pane(m.active)
	if p.Capturing() {
		return p.Update(k)
	}
	switch {
	case key.Matches(k, m.km.Quit):
		return m.quit()
	case key.Matches(k, m.km.Help):
		m.showHelp = true
		return nil
	case key.Matches(k, m.km.NextTab):
		return m.setActive((m.active + 1) % event.Pane(len(event.Panes)))
	case key.Matches(k, m.km.PrevTab):
		return m.setActive((m.active + event.Pane(len(event.Panes)) - 1) % event.Pane(len(event.Panes)))
	case key.Matches(k, m.km.Tab1):
		return m.setActive(event.Search)
	case key.Matches(k, m.km.Tab2):
		return m.setActive(event.Symbol)
	case key.Matches(k, m.km.Tab3):
		return m.toGraph()
	case key.Matches(k, m.km.Tab4):
		return m.setActive(event.Conflicts)
	case key.Matches(k, m.km.Tab5):
		return m.setActive(event.Memory)
	case key.Matches(k, m.km.Search):
		return m.focusSearch()
	case key.Matches(k, m.km.Back):
		if len(m.history) > 0 {
			return m.back()
		}
		m.lastErr = nil
		return nil
	case key.Matches(k, m.km.ClearError):
		m.lastErr = nil
		return nil
	case key.Matches(k, m.km.Reindex):
		return m.startIndex()
	case key.Matches(k, m.km.RepoFilter):
		return m.cycleRepoFilter()
	}
	return p.Update(k)
}

func (m *Model) onMouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Y == 0 {
		if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft {
			for _, t := range m.tabSpans() {
				if msg.X >= t.x0 && msg.X < t.x1 {
					return m.setActive(t.pane)
				}
			}
		}
		return nil
	}
	if m.showHelp {
		return nil
	}
	msg.Y-- // pane coordinates
	return m.pane(m.active).Update(msg)
}

func (m *Model) focusSearch() tea.Cmd {
	cmd := m.setActive(event.Search)
	return tea.Batch(cmd, m.search.Focus())
}

// setActive shows a pane, starting what it needs on first show.
func (m *Model) setActive(p event.Pane) tea.Cmd {
	if m.active == event.Search && p != event.Search && m.search.Capturing() {
		m.search.Blur()
	}
	changed := m.active != p
	m.active = p
	if !changed {
		return nil
	}
	// The briefing and the queue change under us (agents write memories while the
	// UI is open): refresh them each time they are shown.
	switch p {
	case event.Memory:
		return m.memory.Load()
	case event.Conflicts:
		return tea.Batch(m.conflicts.Refresh(), m.conflicts.Ensure())
	}
	return nil
}

// toGraph shows the Graph pane. When a symbol was opened after the graph was
// drawn, the graph is redrawn for it (its callers): 3 shows the graph of the
// symbol in view, not the one left from before (issue 40).
func (m *Model) toGraph() tea.Cmd {
	g, ok := m.symbol.GraphRequest(event.Callers)
	if !ok || !m.symbolAfterGraph || m.graph.RootID() == g.SymbolID {
		return m.setActive(event.Graph)
	}
	return func() tea.Msg { return g }
}

// push remembers the current place before a navigation.
func (m *Model) push() {
	loc := location{pane: m.active, label: m.active.String()}
	if n, ok := m.pane(m.active).(navigable); ok {
		loc.snap, loc.label = n.Snapshot(), n.Label()
	}
	m.history = append(m.history, loc)
	if len(m.history) > maxHistory {
		m.history = m.history[len(m.history)-maxHistory:]
	}
}

// back returns to the last place pushed.
func (m *Model) back() tea.Cmd {
	loc := m.history[len(m.history)-1]
	m.history = m.history[:len(m.history)-1]
	cmd := m.setActive(loc.pane)
	if n, ok := m.pane(loc.pane).(navigable); ok && loc.snap != nil {
		cmd = tea.Batch(cmd, n.Restore(loc.snap))
	}
	return cmd
}

func (m *Model) quit() tea.Cmd {
	if m.indexCancel != nil {
		m.indexCancel()
	}
	return tea.Quit
}

type (
	noteExpiredMsg struct{ seq uint64 }
	statusMsg      struct {
		seq  uint64
		st   RepoStatus
		err  error
		sync *SyncStatus // nil: the backend has no cache, or it failed
	}
	statusTickMsg struct{}
)

func (m *Model) fetchStatus() tea.Cmd {
	m.statusSeq++
	m.statusBusy = true
	seq := m.statusSeq
	b := m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		st, err := b.Status(ctx)
		msg := statusMsg{seq: seq, st: st, err: err}
		if sb, ok := b.(Syncer); ok {
			if ss, serr := sb.SyncStatus(ctx); serr == nil {
				msg.sync = &ss
			}
		}
		return msg
	}
}

func (m *Model) statusTick() tea.Cmd {
	return tea.Tick(m.cfg.StatusEvery, func(time.Time) tea.Msg { return statusTickMsg{} })
}

func (m *Model) onStatus(msg statusMsg) tea.Cmd {
	if msg.seq != m.statusSeq {
		return nil
	}
	m.statusBusy = false
	if msg.sync != nil {
		m.sync = *msg.sync // shown even when the core is down: that is when it matters
	}
	if msg.err != nil {
		return event.Fail("repository status", msg.err)
	}
	first := !m.statusLoaded
	m.status, m.statusLoaded = msg.st, true
	if first && msg.st.Stale && !m.cfg.NoAutoIndex && !m.autoIndexed {
		m.autoIndexed = true
		return m.startIndex()
	}
	return nil
}

// View draws the whole screen: every part is fitted to its box, so nothing a pane
// draws can push the status bar off screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	pw, ph := m.paneSize()
	var body string
	if m.showHelp {
		body = m.fullHelp(pw, ph)
	} else {
		body = m.pane(m.active).View()
	}
	var b strings.Builder
	b.Grow((m.w + 16) * m.h)
	b.WriteString(render.Fit(m.tabBar(), m.w, 1))
	if ph > 0 {
		b.WriteByte('\n')
		b.WriteString(render.Fit(body, pw, ph))
	}
	if m.h >= 2 {
		b.WriteByte('\n')
		b.WriteString(render.Fit(m.helpLine(), m.w, 1))
	}
	if m.h >= 3 {
		b.WriteByte('\n')
		b.WriteString(m.statusBar())
	}
	return b.String()
}

// cycleRepoFilter narrows the search to the next repository (or widens it to
// all of them again) and searches again with the same query.
func (m *Model) cycleRepoFilter() tea.Cmd {
	f, ok := m.b.(RepoFilter)
	if !ok {
		return nil
	}
	f.CycleFilter()
	return m.search.Rerun()
}

// RepoFilterLabel is what the status bar shows of the repository filter: ""
// over one repository.
func (m *Model) RepoFilterLabel() string {
	f, ok := m.b.(RepoFilter)
	if !ok {
		return ""
	}
	if name := f.Filter(); name != "" {
		return "repo: " + name
	}
	return fmt.Sprintf("repos: all %d", len(f.Repositories()))
}
