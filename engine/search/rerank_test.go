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
