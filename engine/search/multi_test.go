package search

import (
	"reflect"
	"testing"
)

// TestInterleave: rank-major, by score within a rank, cut at limit; a short list
// stops taking places once it runs out.
func TestInterleave(t *testing.T) {
	big := []float64{9, 8, 7, 6, 5}
	small := []float64{1, 0.5}
	id := func(f float64) float64 { return f }
	got := Interleave([][]float64{big, small}, id, 5)
	want := []Pick{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Within one rank the higher score leads, whichever list it is from.
	got = Interleave([][]float64{small, big}, id, 3)
	if want := []Pick{{1, 0}, {0, 0}, {1, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := Interleave([][]float64{nil, nil}, id, 10); len(got) != 0 {
		t.Errorf("empty lists: %v", got)
	}
	if got := Interleave([][]float64{big}, id, 10); len(got) != len(big) {
		t.Errorf("one list: %v", got)
	}
}
