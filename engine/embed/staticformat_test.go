package embed

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStaticFormatRoundTrip(t *testing.T) {
	b, tbl, rep := placeholderModel(t)
	f, err := parseStaticFile(bytes.NewReader(b), int64(len(b)), true)
	if err != nil {
		t.Fatal(err)
	}
	if !equalStrings(f.words, tbl.words) {
		t.Errorf("words differ after the round trip")
	}
	if !strings.Contains(string(f.metaJSON), `"epochs":0`) {
		t.Errorf("metadata %s lost the trainer's extra field", f.metaJSON)
	}
	d := placeholderDims
	q := make([]byte, len(tbl.words)*d)
	if _, err := f.rows.ReadAt(q, f.rowsOff); err != nil {
		t.Fatal(err)
	}
	for i, row := range tbl.rows {
		var maxErr float64
		for k, x := range row {
			maxErr = max(maxErr, math.Abs(float64(int8(q[i*d+k]))*float64(f.scales[i])-float64(x)))
		}
		// Rounding to the nearest step: at most half a step per component.
		if maxErr > float64(f.scales[i])/2+1e-7 {
			t.Errorf("%q: component error %.3g, more than half a step (%.3g)", tbl.words[i], maxErr, f.scales[i]/2)
		}
	}
	if rep.Words != len(tbl.words) || rep.Dims != d || rep.ZeroRows != 1 || rep.Bytes != len(b) || rep.Name != "spelunk-code-test-76d-v0" {
		t.Errorf("report %+v", rep)
	}
	if rep.MeanCosine < 0.9995 || rep.MinCosine < 0.999 || rep.MinCosine > rep.MeanCosine || rep.MaxNormError > 0.01 {
		t.Errorf("quantisation error: %+v", rep)
	}
	t.Logf("placeholder table (%d × %d): mean cosine %.6f, min %.6f, max norm error %.4f%%",
		rep.Words, rep.Dims, rep.MeanCosine, rep.MinCosine, 100*rep.MaxNormError)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLoadStaticCorruption: every truncation and every single flipped byte of
// a good file is refused, and parsing without the checksum (as for the
// embedded model) survives them all without panicking.
func TestLoadStaticCorruption(t *testing.T) {
	good, _, _ := placeholderModel(t)
	bad := func(b []byte, what string) {
		t.Helper()
		if _, err := LoadStatic(b); err == nil || !errors.Is(err, errCorruptStatic) {
			t.Fatalf("%s: err = %v, want a corrupt-file error", what, err)
		}
		tolerate(t, b, what)
	}
	for n := 0; n < len(good); n++ {
		// Every length near the ends and the section boundaries, a stride
		// through the rows.
		if n < 4096 || n > len(good)-64 || n%97 == 0 {
			bad(good[:n], "truncated")
		}
	}
	for i := range good {
		if i < 4096 || i%31 == 0 {
			c := bytes.Clone(good)
			c[i] ^= 0x5a
			bad(c, "flipped byte")
		}
	}
	bad(append(bytes.Clone(good), 0), "trailing byte")
	v2 := bytes.Clone(good)
	binary.LittleEndian.PutUint32(v2[8:], 2)
	if _, err := LoadStatic(v2); err == nil || !strings.Contains(err.Error(), "format version 2") {
		t.Errorf("version 2: err = %v", err)
	}
}

// tolerate parses b without its checksum, as the embedded model is parsed,
// and uses whatever loads: nothing may panic.
func tolerate(t *testing.T, b []byte, what string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: panic without the checksum: %v", what, r)
		}
	}()
	f, err := parseStaticFile(bytes.NewReader(b), int64(len(b)), false)
	if err != nil {
		return
	}
	s, err := newStatic(f)
	if err != nil {
		return
	}
	vecs, err := s.Embed(context.Background(), []string{"refund the customer blank zorblax", "the"})
	if err != nil {
		t.Fatal(err)
	}
	checkUnit(t, what, vecs, s.Dims())
	for _, w := range f.words[:min(len(f.words), 50)] {
		s.WordVector(w)
	}
}

// FuzzParseStaticFile feeds arbitrary bytes with a valid checksum to the
// parser and uses what loads: it must never panic.
func FuzzParseStaticFile(f *testing.F) {
	good, _, _ := placeholderModel(f)
	f.Add(good[:len(good)-4])
	f.Add([]byte(staticMagic))
	f.Fuzz(func(t *testing.T, body []byte) {
		tolerate(t, appendCRC(body), "fuzz")
	})
}

func TestPackStaticRejects(t *testing.T) {
	tbl := newPlaceholderTable()
	meta := func(edit func(m map[string]any)) map[string]any {
		m := map[string]any{}
		for k, v := range placeholderMeta {
			m[k] = v
		}
		edit(m)
		return m
	}
	keep := func(map[string]any) {}
	withWord := func(i int, w string) []string {
		ws := append([]string(nil), tbl.words...)
		ws[i] = w
		return ws
	}
	nan := make([][]float32, len(tbl.rows))
	copy(nan, tbl.rows)
	nan[3] = append([]float32(nil), nan[3]...)
	nan[3][5] = float32(math.NaN())
	tests := []struct {
		name  string
		words []string
		rows  [][]float32
		meta  map[string]any
		want  string
	}{
		{"upper case", withWord(7, "Refund"), tbl.rows, meta(keep), `"Refund" is not a token`},
		{"two tokens", withWord(7, "refund_all"), tbl.rows, meta(keep), `vocab.txt:8: "refund_all"`},
		{"empty line", withWord(7, ""), tbl.rows, meta(keep), "is not a token"},
		{"duplicate", withWord(7, tbl.words[6]), tbl.rows, meta(keep), "repeats line 7"},
		{"short vectors", tbl.words, tbl.rows[:len(tbl.rows)-1], meta(keep), "want"},
		{"nan", tbl.words, nan, meta(keep), "is NaN"},
		{"all zero", []string{"blank"}, [][]float32{make([]float32, placeholderDims)}, meta(keep), "every row is zero"},
		{"dims mismatch", tbl.words, tbl.rows, meta(func(m map[string]any) { m["dims"] = 64 }), "bytes, want"},
		{"reserved name", tbl.words, tbl.rows, meta(func(m map[string]any) { m["name"] = "spelunk-glove-128d-v1" }), "belongs to another embedder"},
		{"no name", tbl.words, tbl.rows, meta(func(m map[string]any) { delete(m, "name") }), "name"},
		{"no hash dims", tbl.words, tbl.rows, meta(func(m map[string]any) { m["hash_dims"] = 0 }), "hash_dims 0"},
		{"bad weight", tbl.words, tbl.rows, meta(func(m map[string]any) { m["unknown_weight"] = -1 }), "unknown_weight"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeInterchange(t, dir, tt.words, tt.rows, tt.meta)
		out := filepath.Join(dir, "out.bin")
		_, err := PackStatic(dir, out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if _, statErr := os.Stat(out); statErr == nil {
			t.Errorf("%s: a refused pack left %s", tt.name, out)
		}
	}
	if _, err := PackStatic(t.TempDir(), filepath.Join(t.TempDir(), "x.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty directory: err = %v, want os.ErrNotExist", err)
	}
}
