// Package graphview is the Graph pane: an expandable tree rooted at a symbol
// (callers and callees) or a file (imports and importers). Children load lazily
// one hop at a time, so the tree goes as deep as the user expands it; a node
// already on the path from the root is marked as a cycle instead of expanding
// forever. Enter opens a symbol in the Symbol pane.
package graphview

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// Backend is what the Graph pane needs from the engine.
type Backend interface {
	Walk(ctx context.Context, id int64, dir graph.Direction, depth int) (graph.Walk, error)
	Accesses(ctx context.Context, fieldID int64, rel graph.Relation) (graph.Walk, error)
	Fields(ctx context.Context, ownerID int64) ([]symbols.Symbol, error)
	Imports(ctx context.Context, path string, depth int) ([]graph.FileLink, error)
	Importers(ctx context.Context, target string, depth int) ([]graph.FileLink, error)
}

// Model is the Graph pane.
type Model struct {
	b  Backend
	th *theme.Theme
	km KeyMap

	w, h int

	gen uint64
	// revealing is the node the user last expanded: its children are scrolled
	// into view when they load (open).
	revealing *node
	t         *tree
	rows      []row
	cursor    int
	top       int
}

// New returns the pane.
func New(b Backend, th *theme.Theme) *Model {
	m := &Model{b: b, th: th, km: DefaultKeyMap()}
	m.syncKeys()
	return m
}

type loadedMsg struct {
	gen    uint64
	nodeID int
	walk   graph.Walk
	links  []graph.FileLink
	fields []symbols.Symbol
	err    error
}

func (loadedMsg) Target() event.Pane { return event.Graph }

// SetSize sets the pane's area.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.clamp()
}

// Capturing is false: the pane has no text input.
func (m *Model) Capturing() bool { return false }

// Label names the tree for the breadcrumb.
func (m *Model) Label() string {
	if m.t == nil {
		return "graph"
	}
	return "graph " + m.t.label
}

// RootID is the symbol the graph is rooted at (0 for a file root or none).
func (m *Model) RootID() int64 {
	if m.t == nil || m.t.root == nil || m.t.root.kind != kindSymbol {
		return 0
	}
	return m.t.root.sym.ID
}

// Open replaces the tree with one rooted as r asks, r.Rel expanded.
func (m *Model) Open(r event.OpenGraphMsg) tea.Cmd {
	m.gen++
	m.t = newTree(m.gen, r)
	m.cursor, m.top = 0, 0
	var cmd tea.Cmd
	if g := m.t.group(r.Rel); g != nil {
		cmd = m.expand(g)
		// Start on the first row of the expanded group.
		m.refresh()
		for i, rw := range m.rows {
			if rw.n == g {
				m.cursor = i
			}
		}
	}
	m.refresh()
	return cmd
}

type snapshot struct {
	t           *tree
	cursor, top int
}

// Snapshot captures the tree for the back stack.
func (m *Model) Snapshot() any { return snapshot{t: m.t, cursor: m.cursor, top: m.top} }

// Restore shows a Snapshot again; loads that were in flight when it was left are
// started again.
func (m *Model) Restore(s any) tea.Cmd {
	sn, ok := s.(snapshot)
	if !ok || sn.t == nil {
		return nil
	}
	m.gen++
	sn.t.gen = m.gen
	m.t, m.cursor, m.top = sn.t, sn.cursor, sn.top
	var cmds []tea.Cmd
	for _, n := range m.t.byID {
		if n.loading {
			n.loading = false
			cmds = append(cmds, m.load(n))
		}
	}
	m.refresh()
	return tea.Batch(cmds...)
}

// Update handles a message for the pane.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	defer m.syncKeys()
	switch msg := msg.(type) {
	case loadedMsg:
		return m.onLoaded(msg)
	case tea.MouseMsg:
		if msg.Action != tea.MouseActionPress {
			return nil
		}
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.move(-3)
		case tea.MouseButtonWheelDown:
			m.move(3)
		case tea.MouseButtonLeft:
			if i := m.top + msg.Y - headerLines; msg.Y >= headerLines && i < len(m.rows) {
				m.cursor = i
				n := m.current()
				if n.expandable() {
					return m.toggle(n)
				}
			}
		}
		return nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	return nil
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.km
	n := m.current()
	switch {
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-max(1, m.bodyHeight()-1))
	case key.Matches(msg, k.PageDown):
		m.move(max(1, m.bodyHeight()-1))
	case key.Matches(msg, k.Top):
		m.move(-len(m.rows))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.rows))
	case key.Matches(msg, k.Expand):
		if !n.expanded {
			return m.open(n)
		}
		if len(n.children) > 0 {
			m.move(1) // already open: step into it
		}
	case key.Matches(msg, k.Collapse):
		if n.expanded && n != m.t.root {
			n.expanded = false
			m.refresh()
		} else if n.parent != nil {
			m.cursorTo(n.parent)
		}
	case key.Matches(msg, k.Toggle):
		return m.toggle(n)
	case key.Matches(msg, k.ExpandHop):
		return m.expandHop(n)
	case key.Matches(msg, k.Reload):
		if n.expandable() {
			n.children, n.loaded, n.expanded = nil, false, false
			return m.open(n)
		}
	case key.Matches(msg, k.Open):
		switch n.kind {
		case kindSymbol:
			line := n.sym.StartLine
			if n.rel == event.Callers && n.line > 0 {
				line = n.line // a caller (reader, writer) opens at the call (access)
			}
			s := n.sym
			if s.Kind == "field" && s.ParentID != nil {
				// A field is a line of its owner: open the owner there.
				id, label := *s.ParentID, displayName(s.QualifiedName, s.Name, s.Path)
				return func() tea.Msg { return event.OpenSymbolMsg{ID: id, Line: line, Label: label} }
			}
			return func() tea.Msg {
				return event.OpenSymbolMsg{ID: s.ID, Line: line, Label: displayName(s.QualifiedName, s.Name, s.Path)}
			}
		case kindFile:
			p := n.path
			return func() tea.Msg { return event.OpenSymbolMsg{Path: p, Label: p} }
		}
	case key.Matches(msg, k.Callers), key.Matches(msg, k.Callees):
		rel := event.Callers
		if key.Matches(msg, k.Callees) {
			rel = event.Callees
		}
		s := n.sym
		return func() tea.Msg {
			return event.OpenGraphMsg{SymbolID: s.ID, Path: s.Path, Label: displayName(s.QualifiedName, s.Name, s.Path), Kind: s.Kind, Line: s.StartLine, Rel: rel}
		}
	case key.Matches(msg, k.Imports), key.Matches(msg, k.Importers):
		rel := event.Imports
		if key.Matches(msg, k.Importers) {
			rel = event.Importers
		}
		p := n.filePath()
		return func() tea.Msg { return event.OpenGraphMsg{Path: p, Label: p, Rel: rel} }
	}
	return nil
}

func (m *Model) toggle(n *node) tea.Cmd {
	if n.expanded {
		if n != m.t.root {
			n.expanded = false
			m.refresh()
		}
		return nil
	}
	return m.open(n)
}

// expand opens n, loading its children first when they are not loaded yet.
func (m *Model) expand(n *node) tea.Cmd {
	if n == nil || !n.expandable() {
		return nil
	}
	n.expanded = true
	defer m.refresh()
	if n.loaded || n.loading {
		return nil
	}
	return m.load(n)
}

// open expands n at the user's request and shows its children, now or when
// they arrive. (One hop over a level, e, scrolls nothing: the order its loads
// finish in would decide where the view ends.)
func (m *Model) open(n *node) tea.Cmd {
	cmd := m.expand(n)
	m.revealing = n
	m.reveal(n)
	return cmd
}

// reveal refreshes the rows and scrolls so that n's children show below it,
// as many as fit with n still on screen: a node expanded on the last row
// would otherwise open out of sight (issue 40).
func (m *Model) reveal(n *node) {
	m.refresh()
	at, last := -1, -1
	for i, r := range m.rows {
		if r.n == n {
			at, last = i, i
		} else if at >= 0 && r.n.within(n) {
			last = i
		}
	}
	body := m.bodyHeight()
	if at < 0 || body <= 0 || last < m.top+body {
		return
	}
	m.top = max(0, min(at, last-body+1))
}

// expandHop expands every expandable child of n (loading them), so one key walks
// one more hop of the whole level.
func (m *Model) expandHop(n *node) tea.Cmd {
	if !n.expanded || !n.loaded {
		return m.expand(n)
	}
	var cmds []tea.Cmd
	var deepest []*node
	var collect func(x *node)
	collect = func(x *node) {
		if !x.expanded {
			if x.expandable() {
				deepest = append(deepest, x)
			}
			return
		}
		for _, c := range x.children {
			collect(c)
		}
	}
	collect(n)
	for _, x := range deepest {
		cmds = append(cmds, m.expand(x))
	}
	m.refresh()
	return tea.Batch(cmds...)
}

func (m *Model) load(n *node) tea.Cmd {
	n.loading = true
	gen, id, rel := m.gen, n.id, n.rel
	subj := n.subject()
	symID, path := subj.sym.ID, subj.filePath()
	b := m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		msg := loadedMsg{gen: gen, nodeID: id}
		switch rel {
		case event.Callers:
			msg.walk, msg.err = b.Walk(ctx, symID, graph.Callers, 1)
		case event.Callees:
			msg.walk, msg.err = b.Walk(ctx, symID, graph.Callees, 1)
		case event.Writers:
			msg.walk, msg.err = b.Accesses(ctx, symID, graph.WritesRel)
		case event.Readers:
			msg.walk, msg.err = b.Accesses(ctx, symID, graph.ReadsRel)
		case event.Fields:
			msg.fields, msg.err = b.Fields(ctx, symID)
		case event.Imports:
			msg.links, msg.err = b.Imports(ctx, path, 1)
		case event.Importers:
			msg.links, msg.err = b.Importers(ctx, path, 1)
		}
		return msg
	}
}

func (m *Model) onLoaded(msg loadedMsg) tea.Cmd {
	if m.t == nil || msg.gen != m.gen {
		return nil // an older tree; Restore reloads what it still needs
	}
	n := m.t.byID[msg.nodeID]
	if n == nil {
		return nil
	}
	n.loading = false
	n.children = nil
	if msg.err != nil {
		n.failed = true
		m.t.add(n, &node{kind: kindNote, name: "failed: " + msg.err.Error()})
		m.refresh()
		return event.Fail("graph "+string(n.rel), msg.err)
	}
	n.failed = false
	n.loaded = true
	switch n.rel {
	case event.Callers, event.Callees, event.Writers, event.Readers:
		m.t.fillWalk(n, msg.walk)
	case event.Fields:
		m.t.fillFields(n, msg.fields)
	default:
		m.t.fillLinks(n, msg.links)
	}
	if len(n.children) == 0 {
		m.t.add(n, &node{kind: kindNote, name: "(none)"})
	}
	if n == m.revealing && n.expanded {
		m.reveal(n)
		return nil
	}
	m.refresh()
	return nil
}

func (m *Model) current() *node {
	if m.cursor < 0 || m.cursor >= len(m.rows) {
		return nil
	}
	return m.rows[m.cursor].n
}

func (m *Model) cursorTo(n *node) {
	for i, r := range m.rows {
		if r.n == n {
			m.cursor = i
			m.clamp()
			return
		}
	}
}

func (m *Model) move(d int) {
	m.cursor += d
	m.clamp()
}

// refresh recomputes the visible rows after the tree changed, keeping the cursor
// on the same node when it is still visible.
func (m *Model) refresh() {
	cur := m.current()
	m.rows = m.t.flatten()
	if cur != nil {
		for i, r := range m.rows {
			if r.n == cur {
				m.cursor = i
				break
			}
		}
	}
	m.clamp()
}

func (m *Model) clamp() {
	m.cursor = min(max(m.cursor, 0), max(len(m.rows)-1, 0))
	body := m.bodyHeight()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if body > 0 && m.cursor >= m.top+body {
		m.top = m.cursor - body + 1
	}
	m.top = max(0, min(m.top, len(m.rows)-body))
}

// Rows returns the visible rows as plain labels (for tests and the smoke check).
func (m *Model) Rows() []string {
	out := make([]string, len(m.rows))
	for i, r := range m.rows {
		out[i] = r.prefix + m.label(r.n)
	}
	return out
}

// Cursor is the index of the selected row.
func (m *Model) Cursor() int { return m.cursor }

// SetCursor selects a row (clamped).
func (m *Model) SetCursor(i int) {
	m.cursor = i
	m.clamp()
	m.syncKeys()
}

// Loading reports whether any node is loading.
func (m *Model) Loading() bool {
	if m.t == nil {
		return false
	}
	for _, n := range m.t.byID {
		if n.loading {
			return true
		}
	}
	return false
}

func displayName(qual, name, path string) string {
	if qual != "" {
		return qual
	}
	if name != "" {
		return name
	}
	return path
}
