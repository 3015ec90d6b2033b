// Package event holds the messages that cross pane boundaries in the TUI: the one
// error message, status notes, navigation requests (open a symbol, open a graph)
// and the routing contract that lets the root deliver a pane's asynchronous
// results to that pane without guessing.
//
// Panes never call each other: they return these messages from their commands or
// their Update, and the root model acts on them.
package event

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// Pane identifies one pane (and its tab) of the TUI.
type Pane int

// The panes, in tab order.
const (
	Search Pane = iota
	Symbol
	Graph
	Conflicts
	Memory
)

// Panes lists every pane in tab order.
var Panes = [...]Pane{Search, Symbol, Graph, Conflicts, Memory}

// String is the tab title of the pane.
func (p Pane) String() string {
	switch p {
	case Search:
		return "Search"
	case Symbol:
		return "Symbol"
	case Graph:
		return "Graph"
	case Conflicts:
		return "Conflicts"
	case Memory:
		return "Memory"
	}
	return fmt.Sprintf("Pane(%d)", int(p))
}

// Routed is implemented by every asynchronous result a pane asks for: the root
// hands the message to Target, whichever pane is visible.
type Routed interface {
	Target() Pane
}

// ErrorMsg is the single error message type of the TUI. Any command that fails
// reports through it; the root shows the latest one in the status bar.
type ErrorMsg struct {
	Op  string // what was being done: "search", "load symbol", ...
	Err error
}

// Error formats the message as "op: err".
func (e ErrorMsg) Error() string {
	if e.Op == "" {
		return e.Err.Error()
	}
	return e.Op + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e ErrorMsg) Unwrap() error { return e.Err }

// Fail returns a command that reports err under op, or nil when err is nil.
func Fail(op string, err error) tea.Cmd {
	if err == nil {
		return nil
	}
	return func() tea.Msg { return ErrorMsg{Op: op, Err: err} }
}

// NoteMsg is a short informational line for the status bar ("saved 1 query to ...").
type NoteMsg struct{ Text string }

// Note returns a command that shows text in the status bar.
func Note(format string, args ...any) tea.Cmd {
	text := fmt.Sprintf(format, args...)
	return func() tea.Msg { return NoteMsg{Text: text} }
}

// OpenSymbolMsg asks the root to show a symbol in the Symbol pane, remembering
// where the user came from so esc/backspace returns there. With ID 0, Path names
// a file whose header chunk is shown instead.
type OpenSymbolMsg struct {
	ID    int64
	Path  string // the file, for a file header (ID 0)
	Line  int    // absolute file line to put the cursor on; 0 = the first line
	Label string // for the breadcrumb
}

// Relation is what a graph tree follows.
type Relation string

// Relations a graph can be rooted on.
const (
	Callers   Relation = "callers"
	Callees   Relation = "callees"
	Imports   Relation = "imports"
	Importers Relation = "importers"
	// Fields lists a struct's or class's fields; a field's Writers and Readers are
	// the definitions that write or read it.
	Fields  Relation = "fields"
	Writers Relation = "writers"
	Readers Relation = "readers"
)

// OpenGraphMsg asks the root to show the Graph pane rooted at a symbol (callers and
// callees) or at a file (imports and importers), with Rel expanded first.
type OpenGraphMsg struct {
	SymbolID int64  // the root symbol; 0 for a file root
	Path     string // the root file (or the symbol's file)
	Label    string // the root's display name
	Kind     string // the symbol's kind, for display
	Line     int    // the symbol's first line, for display
	Rel      Relation
}
