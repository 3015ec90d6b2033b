package mcpserver_test

import (
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// TestDisputedNotBypassed (issue 38): an agent cannot overrule a conflict meant
// for a person by invalidating or superseding one side of it. Each attempt is
// refused with why and what to do, whatever author it names, and the conflict
// stays whole: open, both sides DISPUTED.
func TestDisputedNotBypassed(t *testing.T) {
	for _, allow := range []bool{false, true} {
		e := newEnv(t, allow)
		a := call[mcpserver.RememberOut](t, e.cs, "remember", map[string]any{"text": "The API server listens on port 8080."})
		b := call[mcpserver.RememberOut](t, e.cs, "remember", map[string]any{"text": "The API server listens on port 9090."})
		if b.Status != "DISPUTED" || b.ConflictID == "" {
			t.Fatalf("contradiction: %+v", b)
		}
		other := call[mcpserver.RememberOut](t, e.cs, "remember", map[string]any{"text": "Releases are tagged on main.", "kind": "rule"})
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"invalidate_memory", map[string]any{"id": a.ID, "reason": "8080 is old"}},
			{"invalidate_memory", map[string]any{"id": b.ID, "reason": "9090 is wrong", "author": "alice"}},
			{"supersede_memory", map[string]any{"old_id": a.ID, "new_id": other.ID}},
			{"supersede_memory", map[string]any{"old_id": b.ID, "new_id": other.ID, "author": "bob"}},
		} {
			msg := callErr(t, e.cs, c.tool, c.args)
			wantContains(t, c.tool, msg, "DISPUTED", "only a person resolves", "conflict "+b.ConflictID[:8],
				"Conflicts tab", "spelunk conflicts resolve "+b.ConflictID[:8])
			if allow {
				wantContains(t, c.tool+" with --allow-resolve", msg, "resolve_conflict")
			}
		}
		cl := call[mcpserver.ConflictsOut](t, e.cs, "list_conflicts", map[string]any{})
		if len(cl.Conflicts) != 1 || cl.Conflicts[0].Status != "open" || len(cl.Conflicts[0].Memories) != 2 {
			t.Fatalf("the conflict after the refusals: %+v", cl)
		}
		for _, m := range cl.Conflicts[0].Memories {
			if m.Status != "DISPUTED" {
				t.Errorf("memory %s is %s after the refusals, want DISPUTED", m.ID, m.Status)
			}
		}
		// A memory outside any conflict is still the agent's to retire.
		if inv := call[mcpserver.MemoryRef](t, e.cs, "invalidate_memory", map[string]any{"id": other.ID, "reason": "no longer"}); inv.Status != "INVALIDATED" {
			t.Errorf("invalidate an undisputed memory: %+v", inv)
		}
	}
}
