// Package searchview is the Search pane: a query box, the hybrid results with each
// channel's rank and raw score, a highlighted preview and the explain panel of the
// selected result, live retrieval tuning (channels, k, weights) and relevance
// judgments saved as eval queries (docs/ARCHITECTURE.md §7).
//
// Typing never waits on the database: each keystroke bumps a request tag and
// schedules a debounced search; results carrying an older tag are dropped.
package searchview

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/render"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// Backend is what the Search pane needs from the engine.
type Backend interface {
	Search(ctx context.Context, query string, opts search.Options) (*search.Response, error)
	Symbol(ctx context.Context, id int64) (symbols.Symbol, error)
}

// RepoLabeler is implemented by a backend over several repositories: each
// result row names the repository its symbol came from.
type RepoLabeler interface {
	RepoOf(id int64) string
}

// repoOf names the repository of a result, "" over one repository.
func (m *Model) repoOf(id int64) string {
	if l, ok := m.b.(RepoLabeler); ok {
		return l.RepoOf(id)
	}
	return ""
}

// Config tunes the pane.
type Config struct {
	EvalPath string        // where judgments are saved (absolute, or relative to the working directory)
	Debounce time.Duration // pause after the last keystroke before searching; 0 = 150ms
	Limit    int           // results per search; 0 = the engine's default
	Timeout  time.Duration // per search; 0 = 30s
}

// Judgment is a relevance mark on a result.
type Judgment int

// Judgments.
const (
	Unjudged Judgment = iota
	Relevant
	NotRelevant
)

// splitWidth is the pane width from which preview and explain sit side by side.
const splitWidth = 100

// Model is the Search pane.
type Model struct {
	b   Backend
	th  *theme.Theme
	hl  *render.Highlighter
	km  KeyMap
	cfg Config

	w, h int

	input        textinput.Model
	inputFocused bool

	enabled []bool // by search.AllChannels index, however many channels the engine has
	chanCur int
	k       float64                    // 0 = engine default
	weights map[search.Channel]float64 // user overrides

	// files ranks files instead of definitions (the next search asks for it);
	// shownFiles is the granularity of resp, which the table and keys follow.
	files, shownFiles bool

	seq      uint64 // tag of the latest request; results with another tag are stale
	cancel   context.CancelFunc
	loading  bool
	resp     *search.Response
	err      error
	sel, top int // index into resp.Results, or resp.Files when shownFiles

	marks     map[int64]Judgment
	markQuery string

	preview        map[int64][]string
	previewPending map[int64]bool
	showExplain    bool // narrow layouts show one of preview and explain
}

// New returns the pane.
func New(b Backend, th *theme.Theme, hl *render.Highlighter, cfg Config) *Model {
	if cfg.Debounce == 0 {
		cfg.Debounce = 150 * time.Millisecond
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	in := textinput.New()
	in.Prompt = "search › "
	in.Placeholder = "a name like Cart.add, or a question"
	in.PromptStyle = th.PromptFocus
	in.TextStyle = th.Input
	in.PlaceholderStyle = th.Placeholder
	in.Cursor.Style = th.Accent
	in.CharLimit = 500
	m := &Model{
		b: b, th: th, hl: hl, km: DefaultKeyMap(), cfg: cfg, input: in,
		enabled:        allOn(len(search.AllChannels)),
		weights:        map[search.Channel]float64{},
		marks:          map[int64]Judgment{},
		preview:        map[int64][]string{},
		previewPending: map[int64]bool{},
	}
	m.syncKeys()
	return m
}

// Messages owned by the pane; each carries the tag of the request it answers.
type (
	debounceMsg struct{ seq uint64 }
	resultsMsg  struct {
		seq   uint64
		query string
		files bool // the granularity asked for
		resp  *search.Response
		err   error
	}
	previewMsg struct {
		id    int64
		lines []string
		err   error
	}
	savedMsg struct {
		path  string
		entry evalQuery
		err   error
	}
)

func (debounceMsg) Target() event.Pane { return event.Search }
func (resultsMsg) Target() event.Pane  { return event.Search }
func (previewMsg) Target() event.Pane  { return event.Search }
func (savedMsg) Target() event.Pane    { return event.Search }

// Init focuses the query box.
func (m *Model) Init() tea.Cmd { return m.Focus() }

// SetSize sets the pane's area.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.input.Width = max(10, w-render.Width(m.input.Prompt)-38) // room for the summary on the right
	m.clampScroll()
	m.syncKeys()
}

// Focus puts the cursor in the query box.
func (m *Model) Focus() tea.Cmd {
	m.inputFocused = true
	m.input.PromptStyle = m.th.PromptFocus
	m.syncKeys()
	return m.input.Focus()
}

// Blur leaves the query box (keys then act on the results).
func (m *Model) Blur() {
	m.inputFocused = false
	m.input.PromptStyle = m.th.Prompt
	m.input.Blur()
	m.syncKeys()
}

// Capturing reports whether keys go to the query box: the root then routes every
// key but ctrl+c here, so typing "q" or "1" types it.
func (m *Model) Capturing() bool { return m.inputFocused }

// SetQuery replaces the query and searches at once.
func (m *Model) SetQuery(q string) tea.Cmd {
	m.input.SetValue(q)
	m.input.CursorEnd()
	return m.run()
}

// Query is the text in the query box.
func (m *Model) Query() string { return m.input.Value() }

func (m *Model) query() string { return strings.TrimSpace(m.input.Value()) }

// Response is the response shown, nil before the first search.
func (m *Model) Response() *search.Response { return m.resp }

// Loading reports whether a search is in flight.
func (m *Model) Loading() bool { return m.loading }

// Selected returns the selected result: in files mode, the selected file's
// best definition (what enter opens).
func (m *Model) Selected() (search.Result, bool) {
	if m.shownFiles {
		if f, ok := m.SelectedFile(); ok && len(f.Symbols) > 0 {
			return f.Symbols[0], true
		}
		return search.Result{}, false
	}
	if m.resp == nil || m.sel < 0 || m.sel >= len(m.resp.Results) {
		return search.Result{}, false
	}
	return m.resp.Results[m.sel], true
}

// SelectedIndex is the index of the selected result.
func (m *Model) SelectedIndex() int { return m.sel }

// Judgment returns the mark on a result.
func (m *Model) Judgment(id int64) Judgment { return m.marks[id] }

// Snapshot captures what the back stack restores: the selection.
func (m *Model) Snapshot() any { return [2]int{m.sel, m.top} }

// Restore puts back a Snapshot.
func (m *Model) Restore(s any) tea.Cmd {
	if v, ok := s.([2]int); ok {
		m.sel, m.top = v[0], v[1]
		m.clampScroll()
	}
	m.syncKeys()
	return m.ensurePreview()
}

// ShowResponse shows a response obtained elsewhere (a saved run, a benchmark) as
// the answer to the query in the box, superseding any search in flight.
func (m *Model) ShowResponse(resp *search.Response) tea.Cmd {
	m.seq++
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.input.SetValue(resp.Query)
	m.files = resp.Files != nil
	return m.onResults(resultsMsg{seq: m.seq, query: resp.Query, files: m.files, resp: resp})
}

// Rerun searches again with the same query and settings (after a re-index).
func (m *Model) Rerun() tea.Cmd {
	if m.query() == "" {
		return nil
	}
	return m.run()
}

// Label names the pane's state for the breadcrumb.
func (m *Model) Label() string {
	if q := m.query(); q != "" {
		return `search "` + render.Truncate(q, 24) + `"`
	}
	return "search"
}

// Update handles a message for the pane and returns the follow-up command.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	defer m.syncKeys()
	switch msg := msg.(type) {
	case debounceMsg:
		if msg.seq != m.seq {
			return nil // a later keystroke superseded it
		}
		return m.run()
	case resultsMsg:
		return m.onResults(msg)
	case previewMsg:
		delete(m.previewPending, msg.id)
		if msg.err != nil {
			return event.Fail("preview", msg.err)
		}
		m.preview[msg.id] = msg.lines
		return nil
	case savedMsg:
		if msg.err != nil {
			return event.Fail("save eval query", msg.err)
		}
		return event.Note("saved %q (%d relevant, %d not) to %s", msg.entry.Query, len(msg.entry.Expect), len(msg.entry.Reject), msg.path)
	case tea.MouseMsg:
		return m.onMouse(msg)
	case tea.KeyMsg:
		if m.inputFocused {
			return m.inputKey(msg)
		}
		return m.resultsKey(msg)
	}
	if m.inputFocused {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	return nil
}

func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.km.Submit):
		m.Blur()
		return m.run()
	case key.Matches(msg, m.km.Leave):
		m.Blur()
		return nil
	case msg.String() == "up":
		return nil
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() != before {
		return tea.Batch(cmd, m.debounce())
	}
	return cmd
}

func (m *Model) resultsKey(msg tea.KeyMsg) tea.Cmd {
	k := m.km
	switch {
	case key.Matches(msg, k.Edit):
		return m.Focus()
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-max(1, m.tableRows()-1))
	case key.Matches(msg, k.PageDown):
		m.move(max(1, m.tableRows()-1))
	case key.Matches(msg, k.Top):
		m.move(-m.itemCount())
	case key.Matches(msg, k.Bottom):
		m.move(m.itemCount())
	case key.Matches(msg, k.Open):
		if r, ok := m.Selected(); ok {
			return func() tea.Msg {
				return event.OpenSymbolMsg{ID: r.ID, Line: r.StartLine, Label: displayName(r.Symbol)}
			}
		}
	case key.Matches(msg, k.Callers), key.Matches(msg, k.Callees):
		if r, ok := m.Selected(); ok {
			rel := event.Callers
			if key.Matches(msg, k.Callees) {
				rel = event.Callees
			}
			return func() tea.Msg {
				return event.OpenGraphMsg{SymbolID: r.ID, Path: r.Path, Label: displayName(r.Symbol), Kind: r.Kind, Line: r.StartLine, Rel: rel}
			}
		}
	case key.Matches(msg, k.Run):
		return m.run()
	case key.Matches(msg, k.Files):
		return m.toggleFiles()
	case key.Matches(msg, k.Relevant):
		m.judge(Relevant)
	case key.Matches(msg, k.NotRelevant):
		m.judge(NotRelevant)
	case key.Matches(msg, k.Save):
		return m.save()
	case key.Matches(msg, k.Explain):
		m.showExplain = !m.showExplain
	default:
		if cmd, ok := m.tuneKey(msg); ok {
			return cmd
		}
	}
	return m.ensurePreview()
}

func (m *Model) onMouse(msg tea.MouseMsg) tea.Cmd {
	if m.resp == nil || msg.Action != tea.MouseActionPress {
		return nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.move(-1)
	case tea.MouseButtonWheelDown:
		m.move(1)
	case tea.MouseButtonLeft:
		// Rows start below the query, options and header lines.
		if row := msg.Y - 3; row >= 0 && row < m.tableRows() {
			if i := m.top + row; i < m.itemCount() {
				m.sel = i
				m.Blur()
			}
		}
	default:
		return nil
	}
	return m.ensurePreview()
}

// debounce schedules a search after the debounce pause, superseding any request
// not yet answered.
func (m *Model) debounce() tea.Cmd {
	m.seq++
	seq := m.seq
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	return tea.Tick(m.cfg.Debounce, func(time.Time) tea.Msg { return debounceMsg{seq: seq} })
}

// run searches now.
func (m *Model) run() tea.Cmd {
	m.seq++
	seq := m.seq
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	q := m.query()
	if q == "" {
		m.resp, m.err, m.loading = nil, nil, false
		m.sel, m.top = 0, 0
		return nil
	}
	opts := m.Options()
	if len(opts.Channels) == 0 && !m.anyEnabled() {
		m.loading = false
		m.err = errAllOff
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.Timeout)
	m.cancel = cancel
	m.loading = true
	b := m.b
	return func() tea.Msg {
		defer cancel()
		resp, err := b.Search(ctx, q, opts)
		return resultsMsg{seq: seq, query: q, files: opts.Granularity == search.Files, resp: resp, err: err}
	}
}

func (m *Model) onResults(msg resultsMsg) tea.Cmd {
	if msg.seq != m.seq {
		return nil // stale: a newer request is pending
	}
	m.loading = false
	m.cancel = nil
	if msg.err != nil {
		m.err = msg.err
		m.resp = nil
		return event.Fail("search", msg.err)
	}
	m.err = nil
	if msg.query != m.markQuery {
		m.marks = map[int64]Judgment{}
		m.markQuery = msg.query
	}
	// A re-run of the same query (tuning, re-index, a change of granularity)
	// keeps the selection on the same symbol, or on its file; a new query starts
	// at the top.
	var prev search.Result
	if r, ok := m.Selected(); ok && m.resp.Query == msg.resp.Query {
		prev = r
	}
	m.resp, m.shownFiles = msg.resp, msg.files
	m.sel, m.top = 0, 0
	keep := map[int64]bool{}
	for i, r := range m.resp.Results {
		keep[r.ID] = true
		if !m.shownFiles && prev.ID != 0 && r.ID == prev.ID {
			m.sel = i
		}
	}
	if m.shownFiles && prev.ID != 0 {
		m.sel = max(0, m.fileIndex(prev.Path))
	}
	for id := range m.preview {
		if !keep[id] {
			delete(m.preview, id)
		}
	}
	m.clampScroll()
	var filtered tea.Cmd
	if f := msg.resp.Filter; f != nil && len(msg.resp.Unavailable) == 0 {
		filtered = event.Note("search: filtered to %s", f)
	}
	return tea.Batch(m.ensurePreview(), m.reportUnavailable(msg.resp), filtered)
}

// reportUnavailable tells the user about channels that could not answer: an
// error when none of them could (the search is then empty because it failed), a
// note when the others still did. The "!" marks and the explain panel keep it
// visible afterwards. No results at all with a channel down is an error too.
func (m *Model) reportUnavailable(resp *search.Response) tea.Cmd {
	if len(resp.Unavailable) == 0 {
		return nil
	}
	down := sortedChannels(resp.Unavailable)
	reason := fmt.Sprintf("%s unavailable: %s", down[0], resp.Unavailable[down[0]])
	asked := 0
	for i := range search.AllChannels {
		if m.enabled[i] {
			asked++
		}
	}
	if len(down) >= asked || len(resp.Results) == 0 {
		return event.Fail("search", fmt.Errorf("no channel could answer (%s)", reason))
	}
	return event.Note("search: %s; the other channels answered", reason)
}

func (m *Model) move(d int) {
	if m.resp == nil {
		return
	}
	n := m.itemCount()
	if d > 0 && m.sel == n-1 {
		// At the last result, scroll so the pruned items come into view.
		m.top = max(m.top, m.rowCount()-m.tableRows())
		return
	}
	m.sel = min(max(m.sel+d, 0), max(n-1, 0))
	m.clampScroll()
}

func (m *Model) clampScroll() {
	rows := m.tableRows()
	if m.resp == nil || rows <= 0 {
		m.top = 0
		return
	}
	m.sel = min(max(m.sel, 0), max(m.itemCount()-1, 0))
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+rows {
		m.top = m.sel - rows + 1
	}
	m.top = max(0, min(m.top, m.rowCount()-rows))
}

// ensurePreview starts highlighting the selected result when it is not cached.
func (m *Model) ensurePreview() tea.Cmd {
	r, ok := m.Selected()
	if !ok || m.preview[r.ID] != nil || m.previewPending[r.ID] {
		return nil
	}
	m.previewPending[r.ID] = true
	hl, b := m.hl, m.b
	return func() tea.Msg {
		content := r.Content
		if content == "" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := b.Symbol(ctx, r.ID)
			if err != nil {
				return previewMsg{id: r.ID, err: err}
			}
			content = s.Content
		}
		lines := hl.Lines(r.Path, r.Language, content)
		if lines == nil {
			lines = []string{}
		}
		return previewMsg{id: r.ID, lines: lines}
	}
}

func displayName(s symbols.Symbol) string {
	if s.QualifiedName != "" {
		return s.QualifiedName
	}
	if s.Name != "" {
		return s.Name
	}
	return s.Path
}
