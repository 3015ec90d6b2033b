package symbolview

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the Symbol pane's key map.
type KeyMap struct {
	Up, Down, PageUp, PageDown, HalfUp, HalfDown, Top, Bottom key.Binding
	Left, Right                                               key.Binding
	Definition                                                key.Binding
	Callers, Callees                                          key.Binding
	FileHeader, Parent                                        key.Binding
	Imports, Importers                                        key.Binding
	Reload                                                    key.Binding
}

// DefaultKeyMap returns the Symbol pane's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "line up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "line down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "f", " "), key.WithHelp("pgdn/f", "page down")),
		HalfUp:     key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown:   key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:        key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "first line")),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "last line")),
		Left:       key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "scroll left")),
		Right:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "scroll right")),
		Definition: key.NewBinding(key.WithKeys("enter", "d"), key.WithHelp("enter/d", "definition of the call on the line")),
		Callers:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "callers")),
		Callees:    key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "callees")),
		FileHeader: key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "file header")),
		Parent:     key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "parent (class/type)")),
		Imports:    key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "file imports")),
		Importers:  key.NewBinding(key.WithKeys("I"), key.WithHelp("I", "file importers")),
		Reload:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
	}
}

// ShortHelp is the one-line help.
func (m *Model) ShortHelp() []key.Binding {
	k := m.km
	return []key.Binding{k.Definition, k.Callers, k.Callees, k.FileHeader, k.Parent}
}

// FullHelp is the full help, by column.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.km
	return [][]key.Binding{
		{k.Up, k.Down, k.HalfUp, k.HalfDown, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Left, k.Right},
		{k.Definition, k.Callers, k.Callees, k.FileHeader, k.Parent, k.Imports, k.Importers, k.Reload},
	}
}

func (m *Model) syncKeys() {
	has := m.sym != nil
	for _, b := range []*key.Binding{&m.km.Up, &m.km.Down, &m.km.PageUp, &m.km.PageDown, &m.km.HalfUp, &m.km.HalfDown,
		&m.km.Top, &m.km.Bottom, &m.km.Left, &m.km.Right, &m.km.FileHeader, &m.km.Imports, &m.km.Importers, &m.km.Reload} {
		b.SetEnabled(has)
	}
	isDef := has && m.sym.ID != 0 && m.sym.Kind != "module"
	m.km.Callers.SetEnabled(isDef)
	m.km.Callees.SetEnabled(isDef)
	m.km.Definition.SetEnabled(has)
	m.km.Parent.SetEnabled(has && m.sym.ParentID != nil)
}
