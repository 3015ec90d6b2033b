package graphview

import (
	"fmt"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/event"
)

type kind int

const (
	kindSymbol     kind = iota
	kindFile            // a repository file (or Go package directory)
	kindModule          // an external module, as written
	kindGroup           // "callers", "callees", "imports", "importers" under the root
	kindUnresolved      // a callee with no definition in the repository
	kindNote            // "(none)", an error
)

// node is one line of the tree. Children are loaded lazily, one hop at a time,
// following the relation of the group they hang under.
type node struct {
	id       int
	kind     kind
	rel      event.Relation // what the children follow
	sym      symbols.Symbol // kindSymbol
	path     string         // kindFile
	name     string         // group label, module, unresolved name, note text
	edge     string         // how it was reached: calls, inherits, imports...
	line     int            // where the edge is written
	conf     graph.Confidence
	cands    int // an ambiguous edge's candidate count
	parent   *node
	children []*node

	expanded, loaded, loading bool
	cycle                     bool // already on the path from the root: not expanded again
	failed                    bool
}

// inexact reports whether n was reached by a link not known exactly. Links of
// no recorded confidence count as exact.
func (n *node) inexact() bool {
	return n.kind == kindSymbol && n.conf != "" && n.conf != graph.Exact
}

// confidenceMark tags an inexact link: "[inferred]", "[ambiguous: 3 candidates]".
func (n *node) confidenceMark() string {
	if !n.inexact() {
		return ""
	}
	if n.conf == graph.Ambiguous && n.cands > 1 {
		return fmt.Sprintf("[ambiguous: %d candidates]", n.cands)
	}
	return "[" + string(n.conf) + "]"
}

func (n *node) expandable() bool {
	if n.cycle {
		return false
	}
	switch n.kind {
	case kindGroup:
		return true
	case kindSymbol:
		return n.sym.ID != 0 && (n.rel == event.Callers || n.rel == event.Callees || n.rel == event.Fields)
	case kindFile:
		return n.rel == event.Imports || n.rel == event.Importers
	}
	return false
}

// subject is the node whose relation a load fetches: a group's parent, else itself.
func (n *node) subject() *node {
	if n.kind == kindGroup && n.parent != nil {
		return n.parent
	}
	return n
}

func (n *node) filePath() string {
	switch n.kind {
	case kindSymbol:
		return n.sym.Path
	case kindFile:
		return n.path
	}
	return ""
}

// onPath reports whether a symbol (or file) already appears between n and the root.
func (n *node) onPath(symID int64, path string) bool {
	for a := n; a != nil; a = a.parent {
		if symID != 0 && a.kind == kindSymbol && a.sym.ID == symID {
			return true
		}
		if path != "" && a.kind == kindFile && a.path == path {
			return true
		}
	}
	return false
}

// tree is one rooted graph. gen tells its loads apart from an older tree's.
type tree struct {
	gen    uint64
	root   *node
	byID   map[int]*node
	nextID int
	label  string
}

func newTree(gen uint64, r event.OpenGraphMsg) *tree {
	t := &tree{gen: gen, byID: map[int]*node{}}
	if r.SymbolID != 0 {
		root := t.add(nil, &node{kind: kindSymbol, sym: symbols.Symbol{ID: r.SymbolID, Path: r.Path, Name: r.Label, QualifiedName: r.Label, Kind: r.Kind, StartLine: r.Line}})
		root.expanded, root.loaded = true, true
		addSymbolGroups(t, root)
		t.root = root
		t.label = r.Label
		return t
	}
	root := t.add(nil, &node{kind: kindFile, path: r.Path})
	root.expanded, root.loaded = true, true
	t.add(root, &node{kind: kindGroup, rel: event.Imports, name: "imports"})
	t.add(root, &node{kind: kindGroup, rel: event.Importers, name: "importers"})
	t.root = root
	t.label = r.Path
	return t
}

func (t *tree) add(parent *node, n *node) *node {
	t.nextID++
	n.id = t.nextID
	n.parent = parent
	t.byID[n.id] = n
	if parent != nil {
		parent.children = append(parent.children, n)
	}
	return n
}

func (t *tree) group(rel event.Relation) *node {
	for _, c := range t.root.children {
		if c.kind == kindGroup && c.rel == rel {
			return c
		}
	}
	return nil
}

// fillWalk adds a symbol walk's first hop under n.
func (t *tree) fillWalk(n *node, w graph.Walk) {
	subj := n.subject()
	for _, gn := range w.Nodes {
		if gn.Depth != 1 {
			continue
		}
		rel := n.rel
		if rel == event.Writers || rel == event.Readers {
			rel = event.Callers // what reaches a write: its callers
		}
		c := &node{kind: kindSymbol, rel: rel, sym: gn.Symbol, edge: gn.Kind, line: gn.Line, conf: gn.Confidence, cands: gn.Candidates}
		c.cycle = subj.onPath(gn.ID, "")
		t.add(n, c)
	}
	for _, u := range w.Unresolved {
		if u.Depth != 1 {
			continue
		}
		name := u.Name
		if u.Qual != "" {
			name = u.Qual + "." + u.Name
		}
		t.add(n, &node{kind: kindUnresolved, name: name, edge: u.Kind, line: u.Line})
	}
}

// addSymbolGroups adds the groups a symbol node opens to: a field's writers
// and readers; a definition's callers and callees, and a struct's or class's
// fields.
func addSymbolGroups(t *tree, n *node) {
	if n.sym.Kind == "field" {
		t.add(n, &node{kind: kindGroup, rel: event.Writers, name: "writers"})
		t.add(n, &node{kind: kindGroup, rel: event.Readers, name: "readers"})
		return
	}
	t.add(n, &node{kind: kindGroup, rel: event.Callers, name: "callers"})
	t.add(n, &node{kind: kindGroup, rel: event.Callees, name: "callees"})
	if n.sym.Kind == "struct" || n.sym.Kind == "class" {
		t.add(n, &node{kind: kindGroup, rel: event.Fields, name: "fields"})
	}
}

// fillFields adds a struct's or class's fields under n, each opening to its
// writers and readers.
func (t *tree) fillFields(n *node, fields []symbols.Symbol) {
	for _, f := range fields {
		c := t.add(n, &node{kind: kindSymbol, rel: event.Fields, sym: f, edge: "field"})
		c.loaded = true
		addSymbolGroups(t, c)
	}
}

// fillLinks adds import links under n.
func (t *tree) fillLinks(n *node, links []graph.FileLink) {
	subj := n.subject()
	for _, l := range links {
		if l.Depth != 1 {
			continue
		}
		if l.Path == "" {
			t.add(n, &node{kind: kindModule, name: l.Module, edge: "imports", line: l.Line})
			continue
		}
		c := &node{kind: kindFile, rel: n.rel, path: l.Path, edge: "imports", line: l.Line}
		c.cycle = subj.onPath(0, l.Path)
		t.add(n, c)
	}
}

// row is one visible line: a node and the tree glyphs before it.
type row struct {
	n      *node
	prefix string
}

// flatten lists the visible nodes in order.
func (t *tree) flatten() []row {
	if t == nil || t.root == nil {
		return nil
	}
	var out []row
	var walk func(n *node, indent string, last, isRoot bool)
	walk = func(n *node, indent string, last, isRoot bool) {
		prefix := ""
		childIndent := ""
		if !isRoot {
			if last {
				prefix = indent + "└─"
				childIndent = indent + "   "
			} else {
				prefix = indent + "├─"
				childIndent = indent + "│  "
			}
		}
		out = append(out, row{n: n, prefix: prefix})
		if !n.expanded {
			return
		}
		for i, c := range n.children {
			walk(c, childIndent, i == len(n.children)-1, false)
		}
	}
	walk(t.root, "", true, true)
	return out
}

// within reports whether n lies under a (a descendant, not a itself).
func (n *node) within(a *node) bool {
	for p := n.parent; p != nil; p = p.parent {
		if p == a {
			return true
		}
	}
	return false
}
