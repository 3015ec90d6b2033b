package postings

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func decodeAll(t *testing.T, data []byte) []Posting {
	t.Helper()
	var out []Posting
	if err := Decode(data, func(p Posting) { out = append(out, p) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRoundTripSortsBySymbol(t *testing.T) {
	in := []Posting{{Symbol: 900, TF: 3, DL: 40}, {Symbol: 7, TF: 1, DL: 1}, {Symbol: math.MaxInt64, TF: math.MaxUint32, DL: 0},
		{Symbol: 128, TF: 200, DL: 24755}}
	got := decodeAll(t, Encode(nil, slices.Clone(in)))
	want := []Posting{{7, 1, 1}, {128, 200, 24755}, {900, 3, 40}, {math.MaxInt64, math.MaxUint32, 0}}
	if !slices.Equal(got, want) {
		t.Fatalf("decoded %v, want %v", got, want)
	}
}

func TestEncodeAppendsToDst(t *testing.T) {
	a := Encode(nil, []Posting{{Symbol: 5, TF: 1, DL: 2}})
	b := Encode(slices.Clone(a), []Posting{{Symbol: 9, TF: 2, DL: 3}})
	// Two rows' data concatenated restart from zero: the second's first id is absolute.
	got := decodeAll(t, b)
	if len(got) != 2 || got[0] != (Posting{5, 1, 2}) || got[1] != (Posting{14, 2, 3}) {
		t.Fatalf("appended data decodes as %v", got)
	}
}

func TestSmall(t *testing.T) {
	// Typical postings: ids a few apart, small weights: 3 bytes each after the first.
	ps := []Posting{{Symbol: 1_000_000, TF: 1, DL: 30}, {Symbol: 1_000_003, TF: 3, DL: 60}, {Symbol: 1_000_010, TF: 2, DL: 90}}
	if n := len(Encode(nil, ps)); n > 5+3*3 {
		t.Fatalf("3 postings take %d bytes", n)
	}
}

func TestDecodeRejectsTruncatedData(t *testing.T) {
	data := Encode(nil, []Posting{{Symbol: 300, TF: 1, DL: 500}})
	for cut := 1; cut < len(data); cut++ {
		err := Decode(data[:cut], func(Posting) {})
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("data cut to %d of %d bytes: err %v, want ErrCorrupt", cut, len(data), err)
		}
	}
	if err := Decode([]byte{0x80, 0x80}, func(Posting) {}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an unfinished varint: err %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode(nil, []Posting{{Symbol: 1, TF: 2, DL: 3}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Decode(data, func(Posting) {}) // never panics
	})
}
