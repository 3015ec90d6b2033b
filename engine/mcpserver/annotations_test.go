package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/spelunkhq/spelunk/engine/mcpserver"
)

// TestToolAnnotations (issue 38): every tool states readOnlyHint, destructiveHint
// and idempotentHint, so a client can auto-approve the reads; fixed-value fields
// are enums; resolve_conflict is listed only when agents may resolve.
func TestToolAnnotations(t *testing.T) {
	readOnly := []string{"search_code", "search_symbols", "read_symbol", "find_callers", "find_callees", "find_imports",
		"retrieve_context", "briefing", "recall", "list_conflicts"}
	destructive := []string{"supersede_memory", "invalidate_memory", "resolve_conflict"}
	wantEnums := map[string][]string{
		"search_code.granularity": {"symbols", "files"}, "search_code.detail": {"compact", "explain"},
		"search_code.channels": {"dense", "lexical", "literal", "symbol", "graph"}, "search_symbols.kind": nil,
		"find_callers.relation": {"calls", "reads", "writes"}, "find_callees.min_confidence": {"exact", "inferred", "ambiguous"},
		"find_imports.direction": {"imports", "importers"}, "remember.kind": {"fact", "decision", "rule", "episode"},
		"list_conflicts.status": {"open", "resolved", "all"}, "resolve_conflict.action": {"keep", "both", "merge", "invalidate"},
	}
	for _, allow := range []bool{false, true} {
		res, err := connect(t, mcpserver.New(mcpserver.Config{AllowResolve: allow})).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, tl := range res.Tools {
			listed = listed || tl.Name == "resolve_conflict"
			raw, _ := json.Marshal(tl)
			var wire struct {
				Annotations map[string]any `json:"annotations"`
				InputSchema struct {
					Properties map[string]struct {
						Enum  []string `json:"enum"`
						Items struct {
							Enum []string `json:"enum"`
						} `json:"items"`
					} `json:"properties"`
				} `json:"inputSchema"`
			}
			if err := json.Unmarshal(raw, &wire); err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint"} {
				if _, ok := wire.Annotations[h].(bool); !ok {
					t.Errorf("%s: %s not stated: %v", tl.Name, h, wire.Annotations)
				}
			}
			if ro := wire.Annotations["readOnlyHint"] == true; ro != slices.Contains(readOnly, tl.Name) {
				t.Errorf("%s: readOnlyHint %v", tl.Name, ro)
			}
			if d := wire.Annotations["destructiveHint"] == true; d != slices.Contains(destructive, tl.Name) {
				t.Errorf("%s: destructiveHint %v", tl.Name, d)
			}
			for field, p := range wire.InputSchema.Properties {
				want, ok := wantEnums[tl.Name+"."+field]
				got := append(p.Enum, p.Items.Enum...)
				switch {
				case ok && len(got) == 0:
					t.Errorf("%s.%s: no enum", tl.Name, field)
				case ok && want != nil && !sameSet(got, want):
					t.Errorf("%s.%s: enum %v, want %v", tl.Name, field, got, want)
				}
			}
		}
		if listed != allow {
			t.Errorf("AllowResolve %v: resolve_conflict listed %v", allow, listed)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
