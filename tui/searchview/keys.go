package searchview

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the Search pane's key map. Bindings that cannot act right now (no
// results, nothing marked) are disabled so the help only offers what works.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Open                                    key.Binding
	Callers, Callees                        key.Binding
	Edit                                    key.Binding // back into the query box
	Run                                     key.Binding
	PrevChannel, NextChannel                key.Binding
	ToggleChannel                           key.Binding
	ToggleDense, ToggleLexical              key.Binding
	ToggleSymbol, ToggleGraph               key.Binding
	ToggleLiteral                           key.Binding
	WeightUp, WeightDown                    key.Binding
	KUp, KDown                              key.Binding
	Relevant, NotRelevant                   key.Binding
	Save                                    key.Binding
	Explain                                 key.Binding
	Files                                   key.Binding // rank files / definitions
	// In the query box.
	Submit, Leave key.Binding
}

// DefaultKeyMap returns the Search pane's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:            key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:          key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:        key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:      key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:           key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "first")),
		Bottom:        key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "last")),
		Open:          key.NewBinding(key.WithKeys("enter", "o"), key.WithHelp("enter", "open symbol")),
		Callers:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "callers")),
		Callees:       key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "callees")),
		Edit:          key.NewBinding(key.WithKeys("i", "a"), key.WithHelp("i", "edit query")),
		Run:           key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "re-run")),
		PrevChannel:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "prev channel")),
		NextChannel:   key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next channel")),
		ToggleChannel: key.NewBinding(key.WithKeys(" ", "t"), key.WithHelp("space", "channel on/off")),
		ToggleDense:   key.NewBinding(key.WithKeys("alt+d"), key.WithHelp("alt+d", "dense on/off")),
		ToggleLexical: key.NewBinding(key.WithKeys("alt+l"), key.WithHelp("alt+l", "lexical on/off")),
		ToggleSymbol:  key.NewBinding(key.WithKeys("alt+s"), key.WithHelp("alt+s", "symbol on/off")),
		ToggleGraph:   key.NewBinding(key.WithKeys("alt+g"), key.WithHelp("alt+g", "graph on/off")),
		ToggleLiteral: key.NewBinding(key.WithKeys("alt+x"), key.WithHelp("alt+x", "literal on/off")),
		WeightUp:      key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "weight +0.25")),
		WeightDown:    key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "weight -0.25")),
		KUp:           key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "k +10")),
		KDown:         key.NewBinding(key.WithKeys("["), key.WithHelp("[", "k -10")),
		Relevant:      key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "mark relevant")),
		NotRelevant:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "mark not relevant")),
		Save:          key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "save marks (eval file)")),
		Explain:       key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "preview/explain")),
		Files:         key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "rank files")),
		Submit:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "search now")),
		Leave:         key.NewBinding(key.WithKeys("esc", "down", "tab"), key.WithHelp("esc/↓", "to results")),
	}
}

// ShortHelp is the one-line help of the pane in its current mode.
func (m *Model) ShortHelp() []key.Binding {
	k := m.km
	if m.inputFocused {
		return []key.Binding{k.Submit, k.Leave}
	}
	return []key.Binding{k.Open, k.Files, k.Edit, k.ToggleChannel, k.WeightUp, k.Relevant, k.NotRelevant, k.Save}
}

// FullHelp is the pane's full help, by column.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.km
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Callers, k.Callees, k.Edit, k.Submit, k.Leave, k.Explain, k.Files},
		{k.Run, k.PrevChannel, k.NextChannel, k.ToggleChannel, k.WeightUp, k.WeightDown, k.KUp, k.KDown},
		{k.ToggleDense, k.ToggleLexical, k.ToggleLiteral, k.ToggleSymbol, k.ToggleGraph},
		{k.Relevant, k.NotRelevant, k.Save},
	}
}

// syncKeys enables exactly the bindings that can act in the current state.
func (m *Model) syncKeys() {
	has := m.itemCount() > 0
	for _, b := range []*key.Binding{&m.km.Up, &m.km.Down, &m.km.PageUp, &m.km.PageDown, &m.km.Top, &m.km.Bottom,
		&m.km.Open, &m.km.Callers, &m.km.Callees} {
		b.SetEnabled(has)
	}
	// Judgments are about definitions: a file row has none to mark.
	m.km.Relevant.SetEnabled(has && !m.shownFiles)
	m.km.NotRelevant.SetEnabled(has && !m.shownFiles)
	// w stays in the help (with nothing marked it says how to mark).
	m.km.Save.SetEnabled(!m.inputFocused && !m.shownFiles)
	if m.files {
		m.km.Files.SetHelp("f", "rank definitions")
	} else {
		m.km.Files.SetHelp("f", "rank files")
	}
	if m.shownFiles {
		m.km.Open.SetHelp("enter", "open best definition")
	} else {
		m.km.Open.SetHelp("enter", "open symbol")
	}
	m.km.Files.SetEnabled(!m.inputFocused)
	m.km.Explain.SetEnabled(m.w < splitWidth)
	m.km.Run.SetEnabled(m.query() != "")
	m.km.Submit.SetEnabled(m.inputFocused)
	m.km.Leave.SetEnabled(m.inputFocused)
	m.km.Edit.SetEnabled(!m.inputFocused)
}
