package index

import (
	"strings"
	"testing"
	"unsafe"
)

// TestNameCountsKeepNoSource: the names a run counts are substrings of the
// files' sources; the writer's maps must hold copies, or every source of the
// run stays alive until its end (45 MB at $GOROOT/src). Counted twice, as a
// name defined in two files is: Go stores the key of each assignment.
func TestNameCountsKeepNoSource(t *testing.T) {
	w := &writer{}
	src := strings.Repeat("x", 4096) + "Refund"
	name := src[len(src)-len("Refund"):]
	w.countName("function", name, []string{name}, +1)
	w.countName("function", name, nil, +1)
	w.markGone(nil, []string{name})
	w.markGone(nil, []string{name})
	for k := range w.names {
		if unsafe.StringData(k) == unsafe.StringData(name) {
			t.Fatal("the name counts hold the source's own bytes")
		}
	}
	for k := range w.defNames {
		if unsafe.StringData(k) == unsafe.StringData(name) {
			t.Fatal("the changed definitions hold the source's own bytes")
		}
	}
	if w.names["Refund"] != 3 {
		t.Fatalf("Refund counted %d times, want 3", w.names["Refund"])
	}
}
