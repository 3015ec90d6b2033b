package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// TestFindCallersRelation: relation reads or writes walks a field's readers or
// writers; find_callees with writes lists the fields a definition writes; a
// bad relation and a name that is no field are argument errors.
func TestFindCallersRelation(t *testing.T) {
	e := newEnv(t, false)
	cs := e.cs
	writers := call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"name": "Limiter.buckets", "relation": "writes"})
	if writers.Symbol.Kind != "field" || len(writers.AllNodes()) != 1 || writers.AllNodes()[0].QualifiedName != "Limiter.refill" ||
		writers.AllNodes()[0].Edge != "writes" || writers.AllNodes()[0].Confidence != "exact" {
		t.Errorf("writers of Limiter.buckets: %+v", writers)
	}
	readers := call[mcpserver.WalkOut](t, cs, "find_callers", map[string]any{"name": "Limiter.Rate", "relation": "reads"})
	got := map[string]string{}
	for _, n := range readers.AllNodes() {
		got[n.QualifiedName] = n.Edge
	}
	if got["Limiter.RetryAfter"] != "reads" || got["Limiter.refill"] != "reads" {
		t.Errorf("readers of Limiter.Rate: %v", got)
	}
	written := call[mcpserver.WalkOut](t, cs, "find_callees", map[string]any{"name": "Limiter.refill", "relation": "writes"})
	fields := map[string]bool{}
	for _, n := range written.AllNodes() {
		fields[n.QualifiedName] = n.Kind == "field"
	}
	if !fields["Limiter.buckets"] || !fields["bucket.tokens"] || !fields["bucket.last"] || len(written.External) != 0 {
		t.Errorf("fields refill writes: %v (external %v)", fields, written.External)
	}
	if msg := callErr(t, cs, "find_callers", map[string]any{"name": "Limiter.Rate", "relation": "mutates"}); !strings.Contains(msg, "relation") || !strings.Contains(msg, "writes") {
		t.Errorf("bad relation: %s", msg)
	}
	if msg := callErr(t, cs, "find_callers", map[string]any{"name": "Limiter.Allow", "relation": "writes"}); !strings.Contains(msg, "unknown field") {
		t.Errorf("a method as a field: %s", msg)
	}
}
