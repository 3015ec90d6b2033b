// Package conflictview is the Conflicts pane: the queue of open memory conflicts,
// oldest first, each side rendered as Markdown beside its author, time, status
// and lineage; resolutions (keep A, keep B, keep both, merge in $EDITOR or an
// in-app editor, invalidate), skip, undo of the last resolution, and a note that
// goes with the next resolution.
//
// The queue itself is a pure state type (Queue) with its own tests; this model
// adds rendering, keys and the commands that talk to the memory store.
package conflictview

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/render"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// Backend is what the Conflicts pane needs from the memory store.
type Backend interface {
	Conflicts(ctx context.Context) ([]Conflict, error)
	Resolve(ctx context.Context, conflictID string, r Resolution) error
	Undo(ctx context.Context, conflictID string) error
}

// Config tunes the pane.
type Config struct {
	// Editor is the command for merges ($VISUAL, else $EDITOR); empty = the in-app
	// editor.
	Editor string
	// Now is the clock for relative times; nil = time.Now. Times are shown in its
	// location.
	Now func() time.Time
}

type mode int

const (
	modeBrowse mode = iota
	modeNote
	modeMerge
)

// Model is the Conflicts pane.
type Model struct {
	b   Backend
	th  *theme.Theme
	km  KeyMap
	cfg Config

	w, h int

	q       *Queue
	seq     uint64
	loaded  bool
	loading bool
	busy    bool // a resolution or undo is in flight
	err     error

	side   int // focused side (for invalidate)
	scroll int

	mode     mode
	note     textinput.Model
	noteText string
	merge    textarea.Model
	mergeFor string
	editing  bool // the editor holds a stale memory's corrected text, not a merge

	rendered map[string][]string // conflict id + width -> rendered side blocks
	pending  map[string]bool
}

// New returns the pane.
func New(b Backend, th *theme.Theme, cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	note := textinput.New()
	note.Prompt = "note › "
	note.Placeholder = "why (recorded with the next resolution)"
	note.PromptStyle = th.PromptFocus
	note.TextStyle = th.Input
	note.PlaceholderStyle = th.Placeholder
	note.CharLimit = 2000
	ta := textarea.New()
	ta.Placeholder = "the merged memory"
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	m := &Model{b: b, th: th, km: DefaultKeyMap(), cfg: cfg, q: NewQueue(nil), note: note, merge: ta,
		rendered: map[string][]string{}, pending: map[string]bool{}}
	m.syncKeys()
	return m
}

// Messages owned by the pane.
type (
	loadedMsg struct {
		seq   uint64
		items []Conflict
		err   error
	}
	renderedMsg struct {
		key   string
		sides []string
	}
	resolvedMsg struct {
		id    string
		res   Resolution
		stale bool
		err   error
	}
	undoneMsg struct {
		id  string
		err error
	}
	editorReadyMsg struct {
		id, path string
		err      error
	}
	editedMsg struct {
		id   string
		text string
		err  error
	}
)

func (loadedMsg) Target() event.Pane      { return event.Conflicts }
func (renderedMsg) Target() event.Pane    { return event.Conflicts }
func (resolvedMsg) Target() event.Pane    { return event.Conflicts }
func (undoneMsg) Target() event.Pane      { return event.Conflicts }
func (editorReadyMsg) Target() event.Pane { return event.Conflicts }
func (editedMsg) Target() event.Pane      { return event.Conflicts }

// Init loads the queue.
func (m *Model) Init() tea.Cmd { return m.Load() }

// Load (re)loads the open conflicts.
func (m *Model) Load() tea.Cmd {
	m.seq++
	seq := m.seq
	m.loading = true
	b := m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		items, err := loadItems(ctx, b)
		return loadedMsg{seq: seq, items: items, err: err}
	}
}

// Refresh reloads the queue unless the user is in the middle of something (a
// resolution in flight, the note or the merge editor open).
func (m *Model) Refresh() tea.Cmd {
	if m.busy || m.mode != modeBrowse {
		return nil
	}
	return m.Load()
}

// Queue exposes the queue state (read it; do not change it).
func (m *Model) Queue() *Queue { return m.q }

// Busy reports whether a resolution or undo is in flight.
func (m *Model) Busy() bool { return m.busy }

// Loaded reports whether the queue was loaded at least once.
func (m *Model) Loaded() bool { return m.loaded }

// Capturing reports whether keys go to the note field or the merge editor.
func (m *Model) Capturing() bool { return m.mode != modeBrowse }

// SetSize sets the pane's area and renders the sides again for the new width.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.merge.SetWidth(max(10, w-2))
	m.merge.SetHeight(max(3, h-6))
	m.note.Width = max(10, w-10)
}

// Ensure returns the command that renders the current conflict for the current
// width when it is not cached: the root calls it after a resize and on showing
// the pane.
func (m *Model) Ensure() tea.Cmd { return m.ensureRendered() }

// Update handles a message for the pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	defer m.syncKeys()
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.loading = false
		if msg.err != nil {
			m.err = msg.err
			return event.Fail("load conflicts", msg.err)
		}
		m.err = nil
		m.loaded = true
		m.q.Reset(msg.items)
		m.clampSide()
		return m.ensureRendered()
	case renderedMsg:
		delete(m.pending, msg.key)
		m.rendered[msg.key] = msg.sides
		return nil
	case resolvedMsg:
		m.busy = false
		if msg.err != nil {
			return event.Fail("resolve conflict", msg.err)
		}
		m.settle(msg)
		m.noteText = ""
		m.note.SetValue("")
		m.side, m.scroll = 0, 0
		cmds := []tea.Cmd{m.ensureRendered(), event.Note("conflict %s resolved: %s", short(msg.id), describe(msg.res))}
		if m.loading {
			// A load in flight read the queue before this resolution: replace it.
			cmds = append(cmds, m.Load())
		}
		return tea.Batch(cmds...)
	case undoneMsg:
		m.busy = false
		if msg.err != nil {
			return event.Fail("undo resolution", msg.err)
		}
		m.q.Undo()
		m.side, m.scroll = 0, 0
		// The memories' statuses changed back: reload for fresh sides.
		return tea.Batch(m.Load(), event.Note("resolution of %s undone", short(msg.id)))
	case editorReadyMsg:
		if msg.err != nil {
			m.busy = false
			return event.Fail("merge", msg.err)
		}
		return m.runEditor(msg.id, msg.path)
	case editedMsg:
		m.busy = false
		if msg.err != nil {
			return event.Fail("merge editor", msg.err)
		}
		if strings.TrimSpace(msg.text) == "" {
			return event.Note("merge cancelled (empty text)")
		}
		return m.saveEdited(msg.id, msg.text)
	case tea.MouseMsg:
		if m.mode == modeBrowse && msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				m.scroll = max(0, m.scroll-3)
			case tea.MouseButtonWheelDown:
				m.scrollBy(3)
			}
		}
		return nil
	case tea.KeyMsg:
		switch m.mode {
		case modeNote:
			return m.noteKey(msg)
		case modeMerge:
			return m.mergeKey(msg)
		}
		return m.browseKey(msg)
	}
	// Cursor blinks and the like go to whichever input is open.
	var cmd tea.Cmd
	switch m.mode {
	case modeNote:
		m.note, cmd = m.note.Update(msg)
	case modeMerge:
		m.merge, cmd = m.merge.Update(msg)
	}
	return cmd
}

func (m *Model) browseKey(msg tea.KeyMsg) tea.Cmd {
	k := m.km
	c, ok := m.q.Current()
	switch {
	case key.Matches(msg, k.Reload):
		return m.Load()
	case key.Matches(msg, k.Undo):
		return m.undo()
	case !ok:
		return nil
	case c.Stale:
		return m.staleKey(msg, c)
	case key.Matches(msg, k.KeepA):
		return m.resolve(c.ID, Resolution{Action: KeepOne, Memory: c.Sides[0].ID})
	case key.Matches(msg, k.KeepB):
		if len(c.Sides) > 1 {
			return m.resolve(c.ID, Resolution{Action: KeepOne, Memory: c.Sides[1].ID})
		}
	case key.Matches(msg, k.KeepBoth):
		return m.resolve(c.ID, Resolution{Action: KeepBoth})
	case key.Matches(msg, k.Invalidate):
		return m.resolve(c.ID, Resolution{Action: Invalidate, Memory: c.Sides[m.side].ID})
	case key.Matches(msg, k.Merge):
		return m.startMerge(c)
	case key.Matches(msg, k.Skip):
		m.q.Skip()
		m.side, m.scroll = 0, 0
		return m.ensureRendered()
	case key.Matches(msg, k.Prev):
		m.q.Prev()
		m.side, m.scroll = 0, 0
		return m.ensureRendered()
	case key.Matches(msg, k.SideLeft):
		m.side = max(0, m.side-1)
	case key.Matches(msg, k.SideRight):
		m.side = min(len(c.Sides)-1, m.side+1)
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

func (m *Model) noteKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		m.noteText = strings.TrimSpace(m.note.Value())
		m.mode = modeBrowse
		m.note.Blur()
		return nil
	case "esc":
		m.mode = modeBrowse
		m.note.Blur()
		return nil
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(msg)
	return cmd
}

func (m *Model) mergeKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.km.Save):
		text := strings.TrimSpace(m.merge.Value())
		m.mode = modeBrowse
		m.merge.Blur()
		if text == "" {
			return event.Note("merge cancelled (empty text)")
		}
		return m.saveEdited(m.mergeFor, text)
	case key.Matches(msg, m.km.Cancel):
		m.mode = modeBrowse
		m.merge.Blur()
		return event.Note("merge cancelled")
	}
	var cmd tea.Cmd
	m.merge, cmd = m.merge.Update(msg)
	return cmd
}

// resolve sends a resolution (with the pending note) to the store.
func (m *Model) resolve(id string, res Resolution) tea.Cmd {
	if m.busy {
		return nil
	}
	m.busy = true
	res.Note = m.noteText
	b := m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		return resolvedMsg{id: id, res: res, err: b.Resolve(ctx, id, res)}
	}
}

func (m *Model) undo() tea.Cmd {
	c, _, ok := m.q.LastResolved()
	if !ok || m.busy {
		return nil
	}
	m.busy = true
	b := m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		return undoneMsg{id: c.ID, err: b.Undo(ctx, c.ID)}
	}
}

// mergeTemplate is the text a merge starts from: every side, marked.
func mergeTemplate(c Conflict) string {
	var b strings.Builder
	b.WriteString("# Merge these memories into one. Lines starting with # are dropped;\n")
	b.WriteString("# save and quit to record the merge, or leave it empty to cancel.\n")
	for i, s := range c.Sides {
		fmt.Fprintf(&b, "# --- %s: %s by %s ---\n", sideName(i), s.Kind, s.Author)
		b.WriteString(strings.TrimSpace(s.Content))
		b.WriteString("\n")
	}
	return b.String()
}

// stripComments drops the template's comment lines.
func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func (m *Model) startMerge(c Conflict) tea.Cmd {
	m.editing = c.Stale
	if m.cfg.Editor == "" {
		m.mode = modeMerge
		m.mergeFor = c.ID
		var parts []string
		for _, s := range c.Sides {
			parts = append(parts, strings.TrimSpace(s.Content))
		}
		m.merge.SetValue(strings.Join(parts, "\n\n"))
		return m.merge.Focus()
	}
	m.busy = true
	tmpl := mergeTemplate(c)
	return func() tea.Msg {
		f, err := os.CreateTemp("", "spelunk-merge-*.md")
		if err != nil {
			return editorReadyMsg{id: c.ID, err: err}
		}
		_, err = f.WriteString(tmpl)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return editorReadyMsg{id: c.ID, path: f.Name(), err: err}
	}
}

// runEditor suspends the program and runs the editor on path.
func (m *Model) runEditor(id, path string) tea.Cmd {
	args := strings.Fields(m.cfg.Editor)
	cmd := exec.Command(args[0], append(args[1:], path)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return finishEdit(id, path, err) })
}

// finishEdit reads what the editor left in path (and removes the file).
func finishEdit(id, path string, err error) tea.Msg {
	defer os.Remove(path)
	if err != nil {
		return editedMsg{id: id, err: err}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return editedMsg{id: id, err: err}
	}
	return editedMsg{id: id, text: stripComments(string(data))}
}

// scrollBy scrolls the sides, no further than their end.
func (m *Model) scrollBy(d int) {
	c, ok := m.q.Current()
	if !ok {
		return
	}
	// The header (4 lines) and the footer (2) take the rest of the height.
	m.scroll = min(max(m.scroll+d, 0), max(0, len(m.sides(c))-(m.h-6)))
}

func (m *Model) clampSide() {
	c, ok := m.q.Current()
	if !ok {
		m.side = 0
		return
	}
	m.side = min(max(m.side, 0), len(c.Sides)-1)
}

// sideWidth is the width each side is rendered at: side by side from 100
// columns, else stacked at full width.
func (m *Model) sideWidth(n int) int {
	if m.w >= 100 && n == 2 {
		return (m.w - 3) / 2
	}
	return m.w
}

func renderKey(id string, w int) string { return fmt.Sprintf("%s@%d", id, w) }

// ensureRendered renders the current conflict's sides as Markdown in a command.
func (m *Model) ensureRendered() tea.Cmd {
	c, ok := m.q.Current()
	if !ok || m.w <= 0 {
		return nil
	}
	w := m.sideWidth(len(c.Sides))
	k := renderKey(c.ID, w)
	if m.rendered[k] != nil || m.pending[k] {
		return nil
	}
	m.pending[k] = true
	prof, dark := m.th.Profile, m.th.Dark
	return func() tea.Msg {
		out := make([]string, len(c.Sides))
		for i, s := range c.Sides {
			// Markdown's width includes its own 2-cell margin.
			out[i] = render.Markdown(s.Content, w, prof, dark)
		}
		return renderedMsg{key: k, sides: out}
	}
}

func sideName(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprint(i + 1)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func describe(r Resolution) string {
	switch r.Action {
	case KeepOne:
		return "kept " + short(r.Memory)
	case KeepBoth:
		return "kept both"
	case Merge:
		return "merged"
	case Invalidate:
		return "invalidated " + short(r.Memory)
	}
	return string(r.Action)
}
