package embed

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestImportWinkTopN(t *testing.T) {
	var reach []string // reachable fixture words in rank order
	for _, w := range fixtureWords() {
		if reachable(w) {
			reach = append(reach, w)
		}
	}
	tests := []struct {
		topN int
		want int
	}{
		{0, len(reach)}, // default 100k: everything
		{-1, len(reach)},
		{1, 1},
		{7, 7},
		{50, 50}, // forces several compactions over the shuffled input
		{len(reach), len(reach)},
		{len(reach) + 100, len(reach)},
	}
	for _, tt := range tests {
		out := filepath.Join(t.TempDir(), "g.bin")
		if err := ImportWink(context.Background(), fixtureTGZ, out, tt.topN); err != nil {
			t.Fatalf("ImportWink(topN=%d): %v", tt.topN, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parseGloVeFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.words, reach[:tt.want]) {
			t.Errorf("topN=%d: words = %q, want %q", tt.topN, f.words, reach[:tt.want])
		}
		if !slices.IsSorted(f.ranks) {
			t.Errorf("topN=%d: ranks not ascending: %v", tt.topN, f.ranks)
		}
		if f.dims != fixtureDims || f.source != fixtureLabel || f.sourceVocab != len(fixtureWords()) {
			t.Errorf("topN=%d: dims %d, source %q, vocab %d; want %d, %q, %d",
				tt.topN, f.dims, f.source, f.sourceVocab, fixtureDims, fixtureLabel, len(fixtureWords()))
		}
	}
}

// TestImportWinkJSONAndIdempotent imports the tarball twice and the bare JSON
// once: the same words and vectors each time, byte-identical for the reruns.
func TestImportWinkJSONAndIdempotent(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin"), filepath.Join(dir, "sub", "dir", "c.bin")
	for _, out := range []string{a, a, b} {
		if err := ImportWink(context.Background(), fixtureTGZ, out, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := ImportWink(context.Background(), fixtureJSON(t, dir), c, 0); err != nil {
		t.Fatal(err)
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	cb, _ := os.ReadFile(c)
	if !bytes.Equal(ab, bb) {
		t.Error("two imports of the same input differ")
	}
	fa, err := parseGloVeFile(ab)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := parseGloVeFile(cb)
	if err != nil {
		t.Fatal(err)
	}
	if fc.source != "wink-mini" {
		t.Errorf("JSON import source = %q, want the file name %q", fc.source, "wink-mini")
	}
	if !slices.Equal(fa.words, fc.words) || !bytes.Equal(fa.vecs, fc.vecs) {
		t.Error("tarball and JSON imports differ")
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("leftover temporary file %s", e.Name())
		}
	}
}

// TestImportWinkPrecision checks the float16 vectors against the JSON values.
func TestImportWinkPrecision(t *testing.T) {
	g := fixtureGloVe(t)
	raw, err := os.ReadFile(fixtureJSON(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	// Parse the fixture's own vector for "refund" and compare directions.
	i := bytes.Index(raw, []byte(`"refund":[`))
	if i < 0 {
		t.Fatal("refund not in fixture")
	}
	var want []float32
	for _, s := range strings.Split(string(raw[i+len(`"refund":[`):bytes.IndexByte(raw[i:], ']')+i]), ",")[:fixtureDims] {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, float32(x))
	}
	normalize(want)
	got, _ := g.WordVector("refund")
	for k := range want {
		if math.Abs(float64(got[k]-want[k])) > 2e-3 {
			t.Fatalf("refund[%d] = %v, want %v (±2e-3)", k, got[k], want[k])
		}
	}
}

func TestImportWinkErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tgz := func(name, body string) []byte {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
		tw.Close()
		gz.Close()
		return buf.Bytes()
	}
	tests := []struct {
		name, input string
		want        string
	}{
		{"missing file", filepath.Join(dir, "nope.tgz"), "no such file"},
		{"empty", write("empty.json", nil), "parse json"},
		{"not json", write("junk.json", []byte("hello")), "parse json"},
		{"array", write("arr.json", []byte("[1,2]")), "parse json"},
		{"no vectors", write("nov.json", []byte(`{"words":["a"],"dimensions":2}`)), `no "vectors"`},
		{"empty vectors", write("ev.json", []byte(`{"vectors":{}}`)), "empty"},
		{"short vector", write("sv.json", []byte(`{"vectors":{"a":[1,0]}}`)), "want dims + norm + index"},
		{"ragged", write("rg.json", []byte(`{"vectors":{"a":[1,2,3,0],"b":[1,2,3,4,1]}}`)), "want 4"},
		{"header dims", write("hd.json", []byte(`{"dimensions":3,"vectors":{"a":[1,2,3,0]}}`)), "header says 3"},
		{"bad index", write("bi.json", []byte(`{"vectors":{"a":[1,2,3,0.5]}}`)), "bad index"},
		{"no usable words", write("nu.json", []byte(`{"vectors":{",":[1,2,3,0]}}`)), "no usable words"},
		{"truncated", write("tr.json", []byte(`{"vectors":{"a":[1,2,3,0],"b":[1,`)), "parse json"},
		{"tar without json", write("nj.tgz", tgz("package/README.md", "hi")), "no embeddings JSON"},
		{"corrupt gzip", write("cg.tgz", []byte{0x1f, 0x8b, 0, 0, 1, 2, 3}), "gunzip"},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, tt.name+".bin")
		err := ImportWink(context.Background(), tt.input, out, 0)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written despite the error", tt.name)
		}
	}
	// The minimal valid input works (layout inferred from the array length).
	p := write("ok.json", []byte(`{"vectors":{"b":[0,1,0,1,1],"a":[1,2,3,3.7,0],"mp3":[1,1,1,1,2]}}`))
	out := filepath.Join(dir, "ok.bin")
	if err := ImportWink(context.Background(), p, out, 0); err != nil {
		t.Fatalf("minimal input: %v", err)
	}
	g, err := LoadGloVe(out)
	if err != nil {
		t.Fatal(err)
	}
	if g.Words() != 2 || g.Dims() != 3+GloVeHashDims {
		t.Errorf("minimal input: %d words, %d dims; want 2, %d", g.Words(), g.Dims(), 3+GloVeHashDims)
	}
}

func TestImportWinkContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The fixture is smaller than the check interval, so build a bigger input.
	var b strings.Builder
	b.WriteString(`{"vectors":{`)
	for i := range 10000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"w`)
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(`":[1,2,3,`)
		b.WriteString("0]")
	}
	b.WriteString("}}")
	p := filepath.Join(t.TempDir(), "big.json")
	os.WriteFile(p, []byte(b.String()), 0o644)
	if err := ImportWink(ctx, p, filepath.Join(t.TempDir(), "o.bin"), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
