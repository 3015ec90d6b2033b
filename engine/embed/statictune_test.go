package embed

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

// A bag read back with the rows gives exactly the vector Embed gives: the
// trainer of engine/learn trains what the embedder computes.
func TestBagMatchesEmbed(t *testing.T) {
	s := placeholderStatic(t)
	texts := []string{
		"refund the payment twice", "the a is", "", "zzqx unknownword refund refund",
		"func Refund(id int) error { return nil }", "blank blank",
	}
	vecs, err := s.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		b := s.Bag(text)
		if !slices.IsSorted(b.IDs) || len(b.IDs) != len(b.Weights) || len(b.Hashed) != s.Meta().HashDims {
			t.Fatalf("%q: malformed bag %+v", text, b)
		}
		v := make([]float64, s.Dims())
		for k, id := range b.IDs {
			for d, x := range s.Row(id) {
				v[d] += float64(b.Weights[k]) * float64(x)
			}
		}
		for d, x := range b.Hashed {
			v[s.WordDims()+d] += float64(x)
		}
		var ss float64
		for _, x := range v {
			ss += x * x
		}
		if ss == 0 {
			continue // the fixed vector of a text that cancels out; Embed says so itself
		}
		for d := range v {
			if got := v[d] / math.Sqrt(ss); math.Abs(got-float64(vecs[i][d])) > 1e-5 {
				t.Fatalf("%q: component %d: bag gives %v, Embed %v", text, d, got, vecs[i][d])
			}
		}
	}
}

// Retuned changes the given rows only, and the result is another vector
// space: its name differs.
func TestRetunedReplacesOnlyItsRows(t *testing.T) {
	s := placeholderStatic(t)
	id := s.Bag("refund").IDs[0]
	row := make([]float32, s.WordDims())
	row[3] = 2.5
	b, err := s.Retuned("spelunk-code-test-learned", "test", map[int32][]float32{id: row})
	if err != nil {
		t.Fatal(err)
	}
	r, err := LoadStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name() == s.Name() || !strings.HasPrefix(r.Name(), "spelunk-code-test-learned-") {
		t.Fatalf("name %q (base %q)", r.Name(), s.Name())
	}
	for w := range int32(s.Words()) {
		got, want := r.Row(w), s.Row(w)
		if w == id {
			want = row
		}
		for k := range want {
			if math.Abs(float64(got[k]-want[k])) > 0.02*math.Abs(float64(want[k]))+1e-6 {
				t.Fatalf("row %d (%q) component %d: %v, want %v", w, s.Word(w), k, got[k], want[k])
			}
		}
	}
	if _, err := s.Retuned("spelunk-glove-x", "", nil); err == nil {
		t.Fatal("a name of another embedder was accepted")
	}
	if _, err := s.Retuned("x", "", map[int32][]float32{id: {1}}); err == nil {
		t.Fatal("a short row was accepted")
	}
}
