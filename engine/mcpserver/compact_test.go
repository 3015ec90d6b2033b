package mcpserver

import (
	"slices"
	"testing"

	"github.com/spelunkhq/spelunk/engine/search"
)

// An explained hit says which learned expansions of the question it matched.
func TestCodeHitExplainsExpansions(t *testing.T) {
	r := search.Result{Explain: search.Explain{TestFactor: 1, Decay: 1,
		Expanded: []search.Expansion{{Term: "dedupe", From: "twice", Weight: 0.31}}}}
	if h := codeHit(r, false); h.Explain != nil {
		t.Errorf("explain off: %+v", h.Explain)
	}
	h := codeHit(r, true)
	if h.Explain == nil || !slices.Equal(h.Explain.Expanded, []string{"matched `dedupe` ← learned from `twice`, 0.31"}) {
		t.Errorf("explain: %+v", h.Explain)
	}
}
