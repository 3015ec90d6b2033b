package search

import (
	"testing"

	"github.com/spelunkhq/spelunk/engine/symbols"
)

func TestSameDefinitionGroupsDeclarations(t *testing.T) {
	sym := func(path, q, kind string, line int) Result {
		return Result{Symbol: symbols.Symbol{Path: path, QualifiedName: q, Kind: kind, StartLine: line}}
	}
	kept := []Result{sym("a.py", "edit", "function", 10)}
	if _, ok := sameDefinition(kept, sym("a.py", "edit", "function", 3)); !ok {
		t.Error("an overload declaration of a kept function is not grouped with it")
	}
	for _, r := range []Result{sym("b.py", "edit", "function", 3), sym("a.py", "Editor.edit", "method", 3), sym("a.py", "edit", "class", 3)} {
		if _, ok := sameDefinition(kept, r); ok {
			t.Errorf("%s %s:%s grouped with a different definition", r.Kind, r.Path, r.QualifiedName)
		}
	}
}

func TestRankFiles(t *testing.T) {
	res := func(path, name string, score float64) Result {
		return Result{Symbol: symbols.Symbol{Path: path, Name: name}, Score: score}
	}
	// b.go has one strong definition, a.go three good ones: the three add up
	// (0.8 + 0.3*(0.7+0.6) = 1.19 > 1.0), c.go trails.
	got := rankFiles([]Result{
		res("b.go", "Best", 1.0), res("a.go", "A1", 0.8), res("a.go", "A2", 0.7),
		res("c.go", "C", 0.5), res("a.go", "A3", 0.6), res("a.go", "A4", 0.55),
	}, 2)
	if len(got) != 2 || got[0].Path != "a.go" || got[1].Path != "b.go" {
		t.Fatalf("files %+v, want a.go then b.go (limit 2)", got)
	}
	if len(got[0].Symbols) != filesSymbolsShown || got[0].Symbols[0].Name != "A1" || got[0].Rank != 1 || got[1].Rank != 2 {
		t.Errorf("a.go lists %+v", got[0].Symbols)
	}
	if want := 0.8 + fileSecondWeight*(0.7+0.6); got[0].Score < want-1e-9 || got[0].Score > want+1e-9 {
		t.Errorf("a.go scores %g, want %g", got[0].Score, want)
	}
}
