// Package symbolview is the Symbol pane: one symbol's source highlighted with
// its tree-sitter grammar, line numbers, a header (qualified name, kind, signature, path:lines,
// revision, working-tree mark), a cursor line, and jumps to callers, callees, the
// definition of the call on the cursor line, the file header and the parent.
package symbolview

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/event"
	"github.com/spelunkhq/spelunk/tui/render"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// Backend is what the Symbol pane needs from the engine.
type Backend interface {
	Symbol(ctx context.Context, id int64) (symbols.Symbol, error)
	FileHeader(ctx context.Context, path string) (symbols.Symbol, error)
	Find(ctx context.Context, name, path string) ([]symbols.Symbol, error)
	Walk(ctx context.Context, id int64, dir graph.Direction, depth int) (graph.Walk, error)
}

// Model is the Symbol pane.
type Model struct {
	b  Backend
	th *theme.Theme
	hl *render.Highlighter
	km KeyMap

	w, h int

	seq     uint64 // tag of the latest load
	loading bool
	want    string // what is being loaded, for the placeholder
	err     error

	sym    *symbols.Symbol
	lines  []string // highlighted
	plain  []string // tabs expanded, for identifier lookups
	cursor int      // index into lines
	top    int
	left   int // horizontal scroll in cells
}

// New returns the pane.
func New(b Backend, th *theme.Theme, hl *render.Highlighter) *Model {
	m := &Model{b: b, th: th, hl: hl, km: DefaultKeyMap()}
	m.syncKeys()
	return m
}

type loadedMsg struct {
	seq   uint64
	sym   symbols.Symbol
	lines []string
	plain []string
	line  int
	err   error
}

func (loadedMsg) Target() event.Pane { return event.Symbol }

// state is what Snapshot captures: everything needed to show the symbol again
// without the database.
type state struct {
	sym               *symbols.Symbol
	lines, plain      []string
	cursor, top, left int
}

// Snapshot captures the pane for the back stack.
func (m *Model) Snapshot() any {
	return state{sym: m.sym, lines: m.lines, plain: m.plain, cursor: m.cursor, top: m.top, left: m.left}
}

// Restore shows a Snapshot again, cancelling any load in flight.
func (m *Model) Restore(s any) tea.Cmd {
	st, ok := s.(state)
	if !ok {
		return nil
	}
	m.seq++
	m.loading, m.err = false, nil
	m.sym, m.lines, m.plain, m.cursor, m.top, m.left = st.sym, st.lines, st.plain, st.cursor, st.top, st.left
	m.clamp()
	m.syncKeys()
	return nil
}

// Label names the shown symbol for the breadcrumb.
func (m *Model) Label() string {
	if m.sym == nil {
		return "symbol"
	}
	return displayName(*m.sym)
}

// Symbol returns the shown symbol.
func (m *Model) Symbol() (symbols.Symbol, bool) {
	if m.sym == nil {
		return symbols.Symbol{}, false
	}
	return *m.sym, true
}

// GraphRequest asks for the shown symbol's graph with rel expanded; false
// with no symbol shown.
func (m *Model) GraphRequest(rel event.Relation) (event.OpenGraphMsg, bool) {
	if m.sym == nil {
		return event.OpenGraphMsg{}, false
	}
	s := *m.sym
	return event.OpenGraphMsg{SymbolID: s.ID, Path: s.Path, Label: displayName(s), Kind: s.Kind, Line: s.StartLine, Rel: rel}, true
}

// Loading reports whether a load is in flight.
func (m *Model) Loading() bool { return m.loading }

// CursorLine is the absolute file line under the cursor (0 with nothing shown).
func (m *Model) CursorLine() int {
	if m.sym == nil {
		return 0
	}
	return m.sym.StartLine + m.cursor
}

// Capturing is false: the pane has no text input.
func (m *Model) Capturing() bool { return false }

// SetSize sets the pane's area.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.clamp()
}

// Open loads a symbol (or, with id 0, the header of the file at path) and puts the
// cursor on line.
func (m *Model) Open(id int64, path string, line int) tea.Cmd {
	m.seq++
	seq := m.seq
	m.loading, m.err = true, nil
	m.want = path
	if id != 0 {
		m.want = fmt.Sprintf("symbol %d", id)
	}
	b, hl := m.b, m.hl
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		var s symbols.Symbol
		var err error
		if id != 0 {
			s, err = b.Symbol(ctx, id)
		} else {
			s, err = b.FileHeader(ctx, path)
		}
		if err != nil {
			return loadedMsg{seq: seq, err: err}
		}
		lines := hl.Lines(s.Path, s.Language, s.Content)
		plain := render.Lines(s.Content)
		for i, l := range plain {
			plain[i] = render.ExpandTabs(l, render.TabWidth)
		}
		return loadedMsg{seq: seq, sym: s, lines: lines, plain: plain, line: line}
	}
}

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
			return event.Fail("open symbol", msg.err)
		}
		s := msg.sym
		m.sym, m.lines, m.plain, m.left = &s, msg.lines, msg.plain, 0
		m.cursor = 0
		if msg.line > s.StartLine {
			m.cursor = msg.line - s.StartLine
		}
		// Show some context above the cursor.
		m.top = m.cursor - m.bodyHeight()/3
		m.clamp()
		return nil
	case tea.MouseMsg:
		if msg.Action != tea.MouseActionPress {
			return nil
		}
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.scroll(-3)
		case tea.MouseButtonWheelDown:
			m.scroll(3)
		case tea.MouseButtonLeft:
			if row := msg.Y - headerLines; row >= 0 && m.sym != nil {
				m.cursor = m.top + row
				m.clamp()
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
	body := m.bodyHeight()
	switch {
	case key.Matches(msg, k.Up):
		m.moveCursor(-1)
	case key.Matches(msg, k.Down):
		m.moveCursor(1)
	case key.Matches(msg, k.HalfUp):
		m.moveCursor(-max(1, body/2))
	case key.Matches(msg, k.HalfDown):
		m.moveCursor(max(1, body/2))
	case key.Matches(msg, k.PageUp):
		m.moveCursor(-max(1, body-1))
	case key.Matches(msg, k.PageDown):
		m.moveCursor(max(1, body-1))
	case key.Matches(msg, k.Top):
		m.moveCursor(-len(m.lines))
	case key.Matches(msg, k.Bottom):
		m.moveCursor(len(m.lines))
	case key.Matches(msg, k.Left):
		m.left = max(0, m.left-8)
	case key.Matches(msg, k.Right):
		m.left += 8
	case key.Matches(msg, k.Callers), key.Matches(msg, k.Callees):
		rel := event.Callers
		if key.Matches(msg, k.Callees) {
			rel = event.Callees
		}
		g, _ := m.GraphRequest(rel)
		return func() tea.Msg { return g }
	case key.Matches(msg, k.Imports), key.Matches(msg, k.Importers):
		s := *m.sym
		rel := event.Imports
		if key.Matches(msg, k.Importers) {
			rel = event.Importers
		}
		return func() tea.Msg { return event.OpenGraphMsg{Path: s.Path, Label: s.Path, Rel: rel} }
	case key.Matches(msg, k.FileHeader):
		p := m.sym.Path
		return func() tea.Msg { return event.OpenSymbolMsg{Path: p, Label: p} }
	case key.Matches(msg, k.Parent):
		id, label := *m.sym.ParentID, m.sym.Parent
		return func() tea.Msg { return event.OpenSymbolMsg{ID: id, Label: label} }
	case key.Matches(msg, k.Definition):
		return m.definition()
	case key.Matches(msg, k.Reload):
		if m.sym.ID != 0 {
			return m.Open(m.sym.ID, "", m.CursorLine())
		}
		return m.Open(0, m.sym.Path, m.CursorLine())
	}
	return nil
}

func (m *Model) moveCursor(d int) {
	m.cursor += d
	m.clamp()
}

// scroll moves the view (and the cursor with it, so it stays visible).
func (m *Model) scroll(d int) {
	if m.sym == nil {
		return
	}
	m.top += d
	maxTop := max(0, len(m.lines)-m.bodyHeight())
	m.top = min(max(m.top, 0), maxTop)
	m.cursor = min(max(m.cursor, m.top), m.top+m.bodyHeight()-1)
	m.clamp()
}

func (m *Model) clamp() {
	n := len(m.lines)
	body := m.bodyHeight()
	m.cursor = min(max(m.cursor, 0), max(n-1, 0))
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if body > 0 && m.cursor >= m.top+body {
		m.top = m.cursor - body + 1
	}
	m.top = max(0, min(m.top, n-body))
}

var identRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*(?:\s*\.\s*[A-Za-z_$][A-Za-z0-9_$]*)*`)

// keywords are never looked up as definitions.
var keywords = func() map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(`if else for while switch case return func function def class struct interface
		type var let const new this self super import from package go defer range map chan select default break
		continue try catch finally throw raise with as in is not and or nil null None True False true false
		print len make append async await yield lambda pass elif except public private protected static void
		int string bool float64 int64 error byte rune any typeof instanceof delete export module require`) {
		out[w] = true
	}
	return out
}()

// candidate is a name on a line a "go to definition" may try.
type candidate struct {
	name string
	call bool // written as a call: name(
}

// candidates returns the names on a line, calls first ("x.y(" gives "x.y" then
// "y"), then the other identifiers, each in line order.
func candidates(line, self string) []candidate {
	var calls, others []candidate
	seen := map[string]bool{}
	add := func(list *[]candidate, s string, call bool) {
		if s == "" || keywords[s] || seen[s] || s == self {
			return
		}
		seen[s] = true
		*list = append(*list, candidate{name: s, call: call})
	}
	for _, loc := range identRE.FindAllStringIndex(line, -1) {
		full := strings.ReplaceAll(line[loc[0]:loc[1]], " ", "")
		parts := strings.Split(full, ".")
		last := parts[len(parts)-1]
		rest := strings.TrimLeft(line[loc[1]:], " ")
		isCall := strings.HasPrefix(rest, "(")
		list := &others
		if isCall {
			list = &calls
		}
		if len(parts) > 1 {
			add(list, strings.Join(parts[len(parts)-2:], "."), isCall)
		}
		add(list, last, isCall)
		for _, p := range parts[:len(parts)-1] {
			add(&others, p, false)
		}
	}
	return append(calls, others...)
}

// pick chooses the definition a name on a line of from refers to, or false: an
// exact-case match (Find is case-insensitive, and "order" the parameter is not
// "Order" the class) in the same language, the same file first. A name that is
// not called must be defined in the same file: anything else is more likely a
// local variable than a reference.
func pick(from symbols.Symbol, c candidate, found []symbols.Symbol) (symbols.Symbol, bool) {
	var best *symbols.Symbol
	score := -1
	for i := range found {
		f := &found[i]
		if f.ID == from.ID {
			continue
		}
		exact := f.Name == c.name || f.QualifiedName == c.name || strings.HasSuffix(f.QualifiedName, "."+c.name)
		for _, a := range f.Aliases {
			exact = exact || a == c.name
		}
		if !exact || (from.Language != "" && f.Language != "" && f.Language != from.Language) {
			continue
		}
		sc := 1
		if f.Path == from.Path {
			sc = 3
		} else if !c.call {
			continue
		}
		if !f.IsTest {
			sc++
		}
		if sc > score {
			best, score = f, sc
		}
	}
	if best == nil {
		return symbols.Symbol{}, false
	}
	return *best, true
}

// errNoDefinition is reported when nothing on the line resolves.
var errNoDefinition = errors.New("no definition found for the cursor line")

// definition finds what the call on the cursor line refers to: first the call
// edges recorded at that line (exact), then the names on the line looked up.
func (m *Model) definition() tea.Cmd {
	if m.sym == nil || m.cursor >= len(m.plain) {
		return nil
	}
	s := *m.sym
	line := s.StartLine + m.cursor
	text := m.plain[m.cursor]
	b := m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if s.ID != 0 && s.Kind != "module" {
			w, err := b.Walk(ctx, s.ID, graph.Callees, 1)
			if err != nil {
				return event.ErrorMsg{Op: "definition", Err: err}
			}
			best, bestPos := -1, len(text)+1
			for i, n := range w.Nodes {
				if n.Line != line {
					continue
				}
				pos := strings.Index(text, n.Name)
				if pos < 0 {
					pos = len(text)
				}
				if pos < bestPos {
					best, bestPos = i, pos
				}
			}
			if best >= 0 {
				n := w.Nodes[best]
				return event.OpenSymbolMsg{ID: n.ID, Line: n.StartLine, Label: displayName(n.Symbol)}
			}
		}
		for _, c := range candidates(text, s.Name) {
			found, err := b.Find(ctx, c.name, "")
			if errors.Is(err, symbols.ErrNotFound) || len(found) == 0 {
				continue
			}
			if err != nil {
				return event.ErrorMsg{Op: "definition", Err: err}
			}
			if f, ok := pick(s, c, found); ok {
				return event.OpenSymbolMsg{ID: f.ID, Line: f.StartLine, Label: displayName(f)}
			}
		}
		return event.ErrorMsg{Op: fmt.Sprintf("definition at %s:%d", s.Path, line), Err: errNoDefinition}
	}
}

func displayName(s symbols.Symbol) string {
	if s.Kind == "module" {
		return s.Path
	}
	if s.QualifiedName != "" {
		return s.QualifiedName
	}
	if s.Name != "" {
		return s.Name
	}
	return s.Path
}
