package graphview

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the Graph pane's key map.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Expand, Collapse, Toggle, ExpandHop     key.Binding
	Open                                    key.Binding
	Callers, Callees, Imports, Importers    key.Binding
	Reload                                  key.Binding
}

// DefaultKeyMap returns the Graph pane's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Expand:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "expand (load)")),
		Collapse:  key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse / parent")),
		Toggle:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "expand/collapse")),
		ExpandHop: key.NewBinding(key.WithKeys("*", "e"), key.WithHelp("*/e", "expand one more hop")),
		Open:      key.NewBinding(key.WithKeys("enter", "o"), key.WithHelp("enter", "open symbol")),
		Callers:   key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "re-root: callers")),
		Callees:   key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "re-root: callees")),
		Imports:   key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "re-root: file imports")),
		Importers: key.NewBinding(key.WithKeys("I"), key.WithHelp("I", "re-root: file importers")),
		Reload:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload node")),
	}
}

// ShortHelp is the one-line help.
func (m *Model) ShortHelp() []key.Binding {
	k := m.km
	return []key.Binding{k.Expand, k.Collapse, k.ExpandHop, k.Open, k.Callers, k.Callees}
}

// FullHelp is the full help, by column.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.km
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Expand, k.Collapse, k.Toggle, k.ExpandHop, k.Reload},
		{k.Open, k.Callers, k.Callees, k.Imports, k.Importers},
	}
}

func (m *Model) syncKeys() {
	n := m.current()
	has := n != nil
	for _, b := range []*key.Binding{&m.km.Up, &m.km.Down, &m.km.PageUp, &m.km.PageDown, &m.km.Top, &m.km.Bottom,
		&m.km.Collapse, &m.km.Reload} {
		b.SetEnabled(has)
	}
	exp := has && n.expandable()
	m.km.Expand.SetEnabled(exp)
	m.km.Toggle.SetEnabled(exp)
	m.km.ExpandHop.SetEnabled(exp)
	isSym := has && n.kind == kindSymbol && n.sym.ID != 0
	m.km.Open.SetEnabled(isSym || (has && n.kind == kindFile))
	m.km.Callers.SetEnabled(isSym)
	m.km.Callees.SetEnabled(isSym)
	hasFile := has && n.filePath() != ""
	m.km.Imports.SetEnabled(hasFile)
	m.km.Importers.SetEnabled(hasFile)
}
