package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds the global keys: they act in every pane unless a text field has
// the focus (then only ctrl+c does).
type KeyMap struct {
	Quit, ForceQuit  key.Binding
	Help             key.Binding
	NextTab, PrevTab key.Binding
	Tab1, Tab2, Tab3 key.Binding
	Tab4, Tab5       key.Binding
	Search           key.Binding
	Back             key.Binding
	Reindex          key.Binding
	ClearError       key.Binding
	// RepoFilter cycles the search's repository filter; enabled only over
	// several repositories.
	RepoFilter key.Binding
}

// DefaultKeyMap returns the global bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:       key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Help:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		NextTab:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Tab1:       key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "Search")),
		Tab2:       key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "Symbol")),
		Tab3:       key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "Graph")),
		Tab4:       key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "Conflicts")),
		Tab5:       key.NewBinding(key.WithKeys("5"), key.WithHelp("5", "Memory")),
		Search:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Back:       key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc/⌫", "back")),
		Reindex:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "re-index")),
		ClearError: key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "clear error")),
		RepoFilter: key.NewBinding(key.WithKeys("@"), key.WithHelp("@", "repository filter"), key.WithDisabled()),
	}
}

// ShortHelp is the global part of the help line.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Search, k.RepoFilter, k.NextTab, k.Back, k.Help, k.Quit}
}

// FullHelp is the global column of the full help.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Tab1, k.Tab2, k.Tab3, k.Tab4, k.Tab5, k.NextTab, k.PrevTab},
		{k.Search, k.RepoFilter, k.Back, k.Reindex, k.ClearError, k.Help, k.Quit, k.ForceQuit},
	}
}
