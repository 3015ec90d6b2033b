package conflictview

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the Conflicts pane's key map.
type KeyMap struct {
	KeepA, KeepB, KeepBoth, Merge, Invalidate key.Binding
	// On a stale memory (its anchored code changed).
	Confirm, Edit                  key.Binding
	Skip, Prev, Undo, Note, Reload key.Binding
	SideLeft, SideRight            key.Binding
	ScrollUp, ScrollDown           key.Binding
	// While editing the note or the in-app merge.
	Save, Cancel key.Binding
}

// DefaultKeyMap returns the Conflicts pane's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		KeepA:      key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "keep A")),
		KeepB:      key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "keep B")),
		KeepBoth:   key.NewBinding(key.WithKeys("B", "="), key.WithHelp("B", "keep both")),
		Merge:      key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "merge (editor)")),
		Invalidate: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "invalidate focused side")),
		Confirm:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "confirm (still holds)")),
		Edit:       key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit (supersede)")),
		Skip:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "skip")),
		Prev:       key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "previous")),
		Undo:       key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo last")),
		Note:       key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "note")),
		Reload:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		SideLeft:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "focus side")),
		SideRight:  key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "focus side")),
		ScrollUp:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll")),
		ScrollDown: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll")),
		Save:       key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp is the one-line help.
func (m *Model) ShortHelp() []key.Binding {
	k := m.km
	switch m.mode {
	case modeNote:
		return []key.Binding{withHelp(k.Submit(), "enter", "keep note"), k.Cancel}
	case modeMerge:
		return []key.Binding{k.Save, k.Cancel}
	}
	if c, ok := m.q.Current(); ok && c.Stale {
		return []key.Binding{k.Confirm, k.Edit, withHelp(k.Invalidate, "x", "invalidate"), k.Skip, k.Undo, k.Note}
	}
	return []key.Binding{k.KeepA, k.KeepB, k.KeepBoth, k.Merge, k.Invalidate, k.Skip, k.Undo, k.Note}
}

// FullHelp is the full help, by column.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.km
	return [][]key.Binding{
		{k.KeepA, k.KeepB, k.KeepBoth, k.Merge, k.Invalidate, k.Confirm, k.Edit},
		{k.Skip, k.Prev, k.Undo, k.Note, k.Reload},
		{k.SideLeft, k.SideRight, k.ScrollUp, k.ScrollDown, k.Save, k.Cancel},
	}
}

// Submit is enter in the note field.
func (k KeyMap) Submit() key.Binding { return key.NewBinding(key.WithKeys("enter")) }

func withHelp(b key.Binding, k, desc string) key.Binding {
	b.SetHelp(k, desc)
	return b
}

func (m *Model) syncKeys() {
	c, has := m.q.Current()
	idle := has && !m.busy && m.mode == modeBrowse
	for _, b := range []*key.Binding{&m.km.Invalidate, &m.km.ScrollUp, &m.km.ScrollDown, &m.km.Note} {
		b.SetEnabled(idle)
	}
	for _, b := range []*key.Binding{&m.km.KeepA, &m.km.KeepB, &m.km.KeepBoth, &m.km.Merge, &m.km.SideLeft, &m.km.SideRight} {
		b.SetEnabled(idle && !c.Stale)
	}
	m.km.Confirm.SetEnabled(idle && c.Stale)
	m.km.Edit.SetEnabled(idle && c.Stale)
	m.km.Skip.SetEnabled(idle && m.q.Len() > 1)
	m.km.Prev.SetEnabled(idle && m.q.Len() > 1)
	_, _, canUndo := m.q.LastResolved()
	m.km.Undo.SetEnabled(canUndo && !m.busy && m.mode == modeBrowse)
	m.km.Reload.SetEnabled(!m.busy && m.mode == modeBrowse)
	m.km.Save.SetEnabled(m.mode == modeMerge)
	m.km.Cancel.SetEnabled(m.mode != modeBrowse)
}
