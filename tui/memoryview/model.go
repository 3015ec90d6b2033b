// Package memoryview is the Memory pane: the briefing an agent gets in one round
// trip (the latest state compilation, the active nuggets, the top memories for an
// optional query, the open conflict count), scrollable, with a query box.
package memoryview

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/render"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// Briefing is what the pane shows.
type Briefing struct {
	Memories      []Memory
	Nuggets       []Nugget
	State         *State
	OpenConflicts int
	// StaleMemories counts the memories whose anchored code changed: they wait
	// in the Conflicts queue beside the conflicts, and its tab counts both.
	StaleMemories int
	// Ranking is "similarity" (ranked by a query) or "recent".
	Ranking string
}

// Memory is one briefed memory.
type Memory struct {
	ID        string
	Kind      string
	Author    string
	Status    string
	Content   string
	CreatedAt time.Time
	Score     float64 // the briefing's decayed score
	// Anchors name the code the memory is about, each "name state" (current,
	// changed, removed, renamed).
	Anchors []string
}

// Nugget is a project-wide key/value fact.
type Nugget struct {
	Key, Value, Author string
	UpdatedAt          time.Time
}

// State is the latest state compilation.
type State struct {
	Summary    string
	Blockers   []string
	Priorities []string
	Author     string
	CompiledAt time.Time
}

// Backend is what the Memory pane needs from the memory store.
type Backend interface {
	Briefing(ctx context.Context, query string) (Briefing, error)
}

// KeyMap is the Memory pane's key map.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Query, Reload                           key.Binding
	Submit, Leave                           key.Binding
}

// DefaultKeyMap returns the Memory pane's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u", "b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", " "), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Query:    key.NewBinding(key.WithKeys("f", "i"), key.WithHelp("f", "filter memories by a query")),
		Reload:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		Submit:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "brief")),
		Leave:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave the query")),
	}
}

// Config tunes the pane.
type Config struct {
	Now func() time.Time // nil = time.Now; times are shown in its location
}

// Model is the Memory pane.
type Model struct {
	b   Backend
	th  *theme.Theme
	km  KeyMap
	cfg Config

	w, h int

	input        textinput.Model
	inputFocused bool

	seq     uint64
	loading bool
	loaded  bool
	err     error
	brief   Briefing
	query   string // the query of the briefing shown

	lines  []string // the briefing laid out for the width
	scroll int
}

// New returns the pane.
func New(b Backend, th *theme.Theme, cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	in := textinput.New()
	in.Prompt = "memories about › "
	in.Placeholder = "a topic to rank them by (f, then enter)"
	in.PromptStyle = th.Prompt
	in.TextStyle = th.Input
	in.PlaceholderStyle = th.Placeholder
	in.CharLimit = 500
	m := &Model{b: b, th: th, km: DefaultKeyMap(), cfg: cfg, input: in}
	m.syncKeys()
	return m
}

type loadedMsg struct {
	seq   uint64
	query string
	brief Briefing
	err   error
}

func (loadedMsg) Target() event.Pane { return event.Memory }

// Loaded reports whether a briefing was loaded at least once.
func (m *Model) Loaded() bool { return m.loaded }

// Briefing is the briefing shown.
func (m *Model) Briefing() Briefing { return m.brief }

// Capturing reports whether keys go to the query box.
func (m *Model) Capturing() bool { return m.inputFocused }

// SetSize sets the pane's area.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.input.Width = max(10, w-render.Width(m.input.Prompt)-2)
	m.layout()
}

// Load fetches the briefing for the query in the box.
func (m *Model) Load() tea.Cmd {
	m.seq++
	seq := m.seq
	m.loading = true
	q := strings.TrimSpace(m.input.Value())
	b := m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		br, err := b.Briefing(ctx, q)
		return loadedMsg{seq: seq, query: q, brief: br, err: err}
	}
}

// ShortHelp is the one-line help.
func (m *Model) ShortHelp() []key.Binding {
	if m.inputFocused {
		return []key.Binding{m.km.Submit, m.km.Leave}
	}
	return []key.Binding{m.km.Query, m.km.Reload, m.km.Down, m.km.PageDown}
}

// FullHelp is the full help, by column.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.km
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Query, k.Submit, k.Leave, k.Reload}}
}

// Update handles a message for the pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.loading = false
		if msg.err != nil {
			m.err = msg.err
			m.layout()
			return event.Fail("briefing", msg.err)
		}
		m.err, m.loaded, m.brief, m.query = nil, true, msg.brief, msg.query
		m.scroll = 0
		m.layout()
		return nil
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				m.scrollBy(-3)
			case tea.MouseButtonWheelDown:
				m.scrollBy(3)
			}
		}
		return nil
	case tea.KeyMsg:
		defer m.syncKeys()
		if m.inputFocused {
			switch {
			case key.Matches(msg, m.km.Submit):
				m.blur()
				return m.Load()
			case key.Matches(msg, m.km.Leave):
				m.blur()
				return nil
			}
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return cmd
		}
		k := m.km
		body := m.bodyHeight()
		switch {
		case key.Matches(msg, k.Up):
			m.scrollBy(-1)
		case key.Matches(msg, k.Down):
			m.scrollBy(1)
		case key.Matches(msg, k.PageUp):
			m.scrollBy(-max(1, body-1))
		case key.Matches(msg, k.PageDown):
			m.scrollBy(max(1, body-1))
		case key.Matches(msg, k.Top):
			m.scroll = 0
		case key.Matches(msg, k.Bottom):
			m.scrollBy(len(m.lines))
		case key.Matches(msg, k.Query):
			m.inputFocused = true
			m.input.PromptStyle = m.th.PromptFocus
			return m.input.Focus()
		case key.Matches(msg, k.Reload):
			return m.Load()
		}
		return nil
	}
	if m.inputFocused {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	return nil
}

// syncKeys enables the query box's keys only while it has the focus.
func (m *Model) syncKeys() {
	m.km.Submit.SetEnabled(m.inputFocused)
	m.km.Leave.SetEnabled(m.inputFocused)
	m.km.Query.SetEnabled(!m.inputFocused)
}

func (m *Model) blur() {
	m.inputFocused = false
	m.input.PromptStyle = m.th.Prompt
	m.input.Blur()
}

func (m *Model) bodyHeight() int { return max(0, m.h-2) }

func (m *Model) scrollBy(d int) {
	m.scroll = min(max(m.scroll+d, 0), max(0, len(m.lines)-m.bodyHeight()))
}

// View draws the pane at its size.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	out := []string{render.Truncate(render.InputView(m.input, m.th.Plain()), m.w), m.th.Rule.Render(strings.Repeat("─", m.w))}
	body := m.bodyHeight()
	for i := m.scroll; i < m.scroll+body && i < len(m.lines); i++ {
		out = append(out, m.lines[i])
	}
	return strings.Join(out, "\n")
}

// layout lays the briefing out for the width, once per change (not per frame).
func (m *Model) layout() {
	w := m.w
	if w <= 0 {
		m.lines = nil
		return
	}
	th := m.th
	var out []string
	add := func(s string) { out = append(out, render.Truncate(s, w)) }
	wrap := func(prefix, text string, st func(...string) string) {
		for i, l := range render.Wrap(text, max(10, w-len(prefix))) {
			p := prefix
			if i > 0 {
				p = strings.Repeat(" ", len(prefix))
			}
			add(p + st(l))
		}
	}
	switch {
	case m.err != nil:
		add(th.Bad.Render("  " + m.err.Error()))
		add(th.Faint.Render("  r retries"))
		m.lines = out
		return
	case !m.loaded:
		add(th.Muted.Render("  loading the briefing…"))
		m.lines = out
		return
	}
	b := m.brief
	conf := reviewCount(b)
	if b.OpenConflicts+b.StaleMemories > 0 {
		add(th.Warn.Render("● "+conf) + th.Faint.Render("  (4 opens the queue)"))
	} else {
		add(th.Good.Render("● no open conflicts"))
	}
	add("")
	add(th.Title.Render("State"))
	if b.State == nil {
		add(th.Faint.Render("  no state compiled yet (spelunk state set)"))
	} else {
		s := b.State
		add(th.Muted.Render(fmt.Sprintf("  compiled %s by %s", m.when(s.CompiledAt), s.Author)))
		wrap("  ", s.Summary, th.Text.Render)
		if len(s.Blockers) > 0 {
			add(th.Bad.Render("  blockers"))
			for _, x := range s.Blockers {
				wrap("   • ", x, th.Text.Render)
			}
		}
		if len(s.Priorities) > 0 {
			add(th.Accent.Render("  priorities"))
			for i, x := range s.Priorities {
				wrap(fmt.Sprintf("   %d. ", i+1), x, th.Text.Render)
			}
		}
	}
	add("")
	add(th.Title.Render(fmt.Sprintf("Nuggets (%d)", len(b.Nuggets))))
	if len(b.Nuggets) == 0 {
		add(th.Faint.Render("  none"))
	}
	kw := 0
	for _, n := range b.Nuggets {
		kw = max(kw, render.Width(n.Key))
	}
	kw = min(kw, w/3)
	for _, n := range b.Nuggets {
		prefix := "  " + render.Pad(n.Key, kw) + " = "
		line := th.Accent.Render("  "+render.Pad(n.Key, kw)) + " = " + th.Text.Render(n.Value) +
			th.Faint.Render(fmt.Sprintf("  (%s, %s)", n.Author, m.when(n.UpdatedAt)))
		if render.Width(prefix)+render.Width(n.Value) > w {
			line = th.Accent.Render("  "+render.Pad(n.Key, kw)) + " = " + th.Text.Render(n.Value)
		}
		add(line)
	}
	add("")
	title := "Latest memories"
	if m.query != "" {
		title = fmt.Sprintf("Top memories for %q", m.query)
		if b.Ranking != "similarity" {
			title += " (embedder unavailable: latest instead)"
		}
	}
	add(th.Title.Render(fmt.Sprintf("%s (%d)", title, len(b.Memories))))
	if len(b.Memories) == 0 {
		add(th.Faint.Render("  none"))
	}
	for i, mem := range b.Memories {
		st := th.Good
		if mem.Status != "ACTIVE" {
			st = th.Warn
		}
		meta := fmt.Sprintf("%s · %s", mem.Author, m.when(mem.CreatedAt))
		if b.Ranking == "similarity" {
			meta += fmt.Sprintf(" · score %.3f", mem.Score)
		}
		add(fmt.Sprintf("  %s %s %s %s",
			th.Bold.Render(fmt.Sprintf("%2d.", i+1)),
			th.Kind.Render(render.Pad(mem.Kind, 8)),
			st.Render(render.Pad(mem.Status, 9)),
			th.Muted.Render(meta)))
		wrap("      ", mem.Content, th.Text.Render)
		if len(mem.Anchors) > 0 {
			wrap("      ", "anchors: "+strings.Join(mem.Anchors, ", "), th.Muted.Render)
		}
	}
	m.lines = out
	m.scrollBy(0)
}

func (m *Model) when(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.In(m.cfg.Now().Location()).Format("2006-01-02 15:04")
}

// reviewCount says what waits in the Conflicts queue, with the number its tab
// shows: the open conflicts and the stale memories together.
func reviewCount(b Briefing) string {
	conf := fmt.Sprintf("%d open conflicts", b.OpenConflicts)
	if b.StaleMemories == 0 {
		return conf
	}
	stale := fmt.Sprintf("%d stale memories", b.StaleMemories)
	if b.StaleMemories == 1 {
		stale = "1 stale memory"
	}
	return fmt.Sprintf("%d to review: %s, %s", b.OpenConflicts+b.StaleMemories, conf, stale)
}
