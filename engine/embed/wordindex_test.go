package embed

import (
	"fmt"
	"testing"
)

func TestWordIndex(t *testing.T) {
	const n = 5000
	x := newWordIndex(n)
	for i := range n {
		if !x.add(fmt.Sprintf("w%d", i), int32(i)) {
			t.Fatalf("add w%d: reported present", i)
		}
	}
	if x.add("w17", 99) {
		t.Fatal("a repeated word was added again")
	}
	for i := range n {
		w := fmt.Sprintf("w%d", i)
		v, ok := x.get(w)
		vb, okb := x.getBytes([]byte(w))
		if !ok || !okb || v != int32(i) || vb != int32(i) {
			t.Fatalf("%s: get %d %v, getBytes %d %v, want %d", w, v, ok, vb, okb, i)
		}
	}
	for _, w := range []string{"", "w", "w5000", "x1"} {
		if _, ok := x.get(w); ok {
			t.Errorf("get(%q) found a word never added", w)
		}
		if _, ok := x.getBytes([]byte(w)); ok {
			t.Errorf("getBytes(%q) found a word never added", w)
		}
	}
}
