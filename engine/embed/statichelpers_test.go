package embed

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// placeholderDims is the word dimension of the placeholder code model.
const placeholderDims = 48

// placeholderMeta is the placeholder model's meta.json. The extra field must
// survive packing.
var placeholderMeta = map[string]any{
	"name": "spelunk-code-test-76d-v0", "dims": placeholderDims, "teacher": "none (test placeholder)",
	"source": "statichelpers_test.go", "hash_dims": 28, "unknown_weight": 0.5, "epochs": 0,
}

// placeholderTable is a small token table standing in for the trainer's: the
// fixture's synonym groups near orthogonal centres (so they behave like real
// vectors), fillers at random, stop words with small rows, varied row norms
// (the learned weights) and one zero row ("blank").
type placeholderTable struct {
	words []string
	rows  [][]float32
}

func newPlaceholderTable() placeholderTable {
	rng := rand.New(rand.NewPCG(7, 8))
	var t placeholderTable
	add := func(w string, centre []float32, noise, norm float64) {
		v := make([]float32, placeholderDims)
		var ss float64
		for i := range v {
			v[i] = float32(rng.NormFloat64() * noise)
			if centre != nil {
				v[i] += centre[i]
			}
			ss += float64(v[i]) * float64(v[i])
		}
		for i := range v {
			v[i] *= float32(norm / math.Sqrt(ss))
		}
		t.words = append(t.words, w)
		t.rows = append(t.rows, v)
	}
	for _, w := range []string{"the", "a", "return", "for", "is"} {
		add(w, nil, 1, 0.1)
	}
	for i, g := range fixtureGroups {
		centre := make([]float32, placeholderDims)
		centre[i] = 1
		for k, w := range g {
			add(w, centre, 0.05, 0.6+0.3*float64(k%4))
		}
	}
	for _, w := range fixtureFillers[:60] {
		add(w, nil, 1, 0.5+rng.Float64())
	}
	t.words = append(t.words, "blank")
	t.rows = append(t.rows, make([]float32, placeholderDims))
	return t
}

// writeInterchange writes the trainer's interchange directory for words and
// rows with meta, as the Python side does.
func writeInterchange(tb testing.TB, dir string, words []string, rows [][]float32, meta map[string]any) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	mj, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	var vec []byte
	for _, r := range rows {
		for _, x := range r {
			vec = binary.LittleEndian.AppendUint32(vec, math.Float32bits(x))
		}
	}
	for name, b := range map[string][]byte{
		MetaFile:    mj,
		VocabFile:   []byte(strings.Join(words, "\n") + "\n"),
		VectorsFile: vec,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// placeholderModel packs the placeholder table and returns the packed file's
// bytes, the table and the pack report.
func placeholderModel(tb testing.TB) ([]byte, placeholderTable, PackReport) {
	tb.Helper()
	tbl := newPlaceholderTable()
	dir := tb.TempDir()
	writeInterchange(tb, filepath.Join(dir, "in"), tbl.words, tbl.rows, placeholderMeta)
	out := filepath.Join(dir, "code.bin")
	rep, err := PackStatic(filepath.Join(dir, "in"), out)
	if err != nil {
		tb.Fatalf("PackStatic: %v", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b, tbl, rep
}

// placeholderStatic loads the placeholder model.
func placeholderStatic(tb testing.TB) *Static {
	tb.Helper()
	b, _, _ := placeholderModel(tb)
	s, err := LoadStatic(b)
	if err != nil {
		tb.Fatalf("LoadStatic: %v", err)
	}
	return s
}

// synthWords returns n distinct lower-case words: the fixture's first, then
// pseudo-words, the shape of a real vocabulary for benchmarks.
func synthWords(n int) []string {
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[string]bool{}
	var words []string
	for _, g := range fixtureGroups {
		for _, w := range g {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	for _, w := range fixtureFillers {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for len(words) < n {
		b := make([]byte, 3+rng.IntN(8))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words[:n]
}

// synthStaticFile packs random rows for words in memory (no interchange
// directory: benchmarks use large tables).
func synthStaticFile(tb testing.TB, words []string, dims int) []byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(9, 10))
	meta := StaticMeta{Name: fmt.Sprintf("spelunk-code-synth-%dd", dims), Dims: dims, HashDims: 28, UnknownWeight: 0.5}
	mj, _ := json.Marshal(meta)
	f := &staticFile{meta: meta, metaJSON: mj, words: words, scales: make([]float32, len(words))}
	q := make([]byte, len(words)*dims)
	row := make([]float32, dims)
	for i := range words {
		for k := range row {
			row[k] = float32(rng.NormFloat64())
		}
		f.scales[i], _, _ = quantiseRow(q[i*dims:(i+1)*dims], row)
	}
	b, err := appendStaticFile(nil, f, q)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// synthGloVeFile is synthStaticFile's GloVe counterpart: the same words,
// binary16 rows of dims values.
func synthGloVeFile(tb testing.TB, words []string, dims int) []byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	f := &gloveFile{source: "synthetic", sourceVocab: len(words), dims: dims, words: words, ranks: make([]uint32, len(words))}
	for i := range words {
		f.ranks[i] = uint32(i)
		for range dims {
			f.vecs = binary.LittleEndian.AppendUint16(f.vecs, float32ToHalf(float32(rng.NormFloat64())))
		}
	}
	b, err := appendGloVeFile(nil, f)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
