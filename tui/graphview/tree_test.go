package graphview

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/event"
)

func sym(id int64, name string) symbols.Symbol {
	return symbols.Symbol{ID: id, Name: name, QualifiedName: name, Path: "r.js", Kind: "function"}
}

func walk(depth int, syms ...symbols.Symbol) graph.Walk {
	var w graph.Walk
	for _, s := range syms {
		w.Nodes = append(w.Nodes, graph.Node{Symbol: s, Depth: depth, Kind: "calls", Line: 1})
	}
	return w
}

// TestTreeCyclesAndFlatten builds send -> json -> send by hand: the second send
// is a cycle, not expandable, and the glyphs nest.
func TestTreeCyclesAndFlatten(t *testing.T) {
	tr := newTree(1, event.OpenGraphMsg{SymbolID: 1, Label: "send", Path: "r.js", Rel: event.Callees})
	callees := tr.group(event.Callees)
	callees.expanded, callees.loaded = true, true
	tr.fillWalk(callees, walk(1, sym(2, "json"), sym(3, "type")))
	json := callees.children[0]
	json.expanded, json.loaded = true, true
	tr.fillWalk(json, walk(1, sym(1, "send"), sym(4, "stringify")))
	tr.fillWalk(json, graph.Walk{Unresolved: []graph.Unresolved{{Name: "stringify", Qual: "JSON", Kind: "calls", Line: 9, Depth: 1}}})
	// A deeper node from a multi-hop walk is ignored: children come one hop at a time.
	tr.fillWalk(json, walk(2, sym(9, "deep")))

	back := json.children[0]
	if !back.cycle || back.expandable() {
		t.Fatalf("send under json: cycle %v expandable %v, want a cycle that does not expand", back.cycle, back.expandable())
	}
	if json.children[1].cycle {
		t.Fatal("stringify marked as a cycle")
	}
	var got []string
	for _, r := range tr.flatten() {
		got = append(got, r.prefix+r.n.name+r.n.sym.Name)
	}
	want := []string{"send", "├─callers", "└─callees", "   ├─json", "   │  ├─send", "   │  ├─stringify", "   │  └─JSON.stringify", "   └─type"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("flatten:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFileTreeMarksImportCycles(t *testing.T) {
	tr := newTree(1, event.OpenGraphMsg{Path: "a.go", Rel: event.Imports})
	imports := tr.group(event.Imports)
	tr.fillLinks(imports, []graph.FileLink{{Path: "b.go", Depth: 1}, {Module: "fmt", Depth: 1}})
	b := imports.children[0]
	tr.fillLinks(b, []graph.FileLink{{Path: "a.go", Depth: 1}})
	if !b.children[0].cycle {
		t.Fatal("a.go imported back from b.go is not a cycle")
	}
	if imports.children[1].kind != kindModule || imports.children[1].expandable() {
		t.Fatal("an external module must be a leaf")
	}
}
