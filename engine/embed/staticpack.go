package embed

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The trainer's interchange directory, read by [PackStatic].
const (
	// VocabFile has one token per line (UTF-8, exactly as [Tokenize] emits
	// it), most frequent first.
	VocabFile = "vocab.txt"
	// VectorsFile has one row of dims little-endian float32 values per token,
	// in vocabulary order; a row's norm is the token's weight.
	VectorsFile = "vectors.f32"
	// MetaFile is the model's [StaticMeta] as JSON.
	MetaFile = "meta.json"
)

// PackReport describes a model [PackStatic] packed. The cosines compare each
// non-zero float32 row with its int8 form.
type PackReport struct {
	Name       string
	Words      int
	Dims       int
	ZeroRows   int
	Bytes      int
	MeanCosine float64
	MinCosine  float64
	// MaxNormError is the largest relative change of a row's norm (the
	// token's weight) through quantisation.
	MaxNormError float64
}

// PackStatic reads the trainer's interchange directory dir (VocabFile,
// VectorsFile, MetaFile) and writes the static model file out (atomically):
// each row quantised to int8 with one float32 scale (max |x| / 127), the words
// and the metadata, under a CRC-32C. It refuses a token that [Tokenize] would
// not emit as it is (it could never be looked up), a duplicate, a non-finite
// value, and metadata [LoadStatic] would refuse.
func PackStatic(dir, out string) (PackReport, error) {
	meta, metaJSON, err := readStaticMeta(filepath.Join(dir, MetaFile))
	if err != nil {
		return PackReport{}, fmt.Errorf("pack %s: %w", dir, err)
	}
	words, err := readVocab(filepath.Join(dir, VocabFile))
	if err != nil {
		return PackReport{}, fmt.Errorf("pack %s: %w", dir, err)
	}
	f := &staticFile{meta: meta, metaJSON: metaJSON, words: words, scales: make([]float32, len(words))}
	q, rep, err := quantiseVectors(filepath.Join(dir, VectorsFile), f)
	if err != nil {
		return PackReport{}, fmt.Errorf("pack %s: %w", dir, err)
	}
	buf, err := appendStaticFile(make([]byte, 0, staticHeader+len(metaJSON)+len(words)*(10+meta.Dims)), f, q)
	if err != nil {
		return PackReport{}, fmt.Errorf("pack %s: %w", dir, err)
	}
	// What was written must load: the packer and the loader check each other.
	if _, err := LoadStatic(buf); err != nil {
		return PackReport{}, fmt.Errorf("pack %s: the packed model does not load: %w", dir, err)
	}
	if err := writeFileAtomic(out, buf); err != nil {
		return PackReport{}, fmt.Errorf("pack: write %s: %w", out, err)
	}
	rep.Name, rep.Words, rep.Dims, rep.Bytes = meta.Name, len(words), meta.Dims, len(buf)
	return rep, nil
}

// readStaticMeta reads and checks the metadata, and returns it compacted for
// the file (fields this version does not know, such as training details, are
// kept).
func readStaticMeta(path string) (StaticMeta, []byte, error) {
	var m StaticMeta
	b, err := os.ReadFile(path)
	if err != nil {
		return m, nil, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.check(); err != nil {
		return m, nil, fmt.Errorf("%s: %w", path, err)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return m, nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Len() > maxStaticMeta {
		return m, nil, fmt.Errorf("%s: %d bytes, at most %d", path, c.Len(), maxStaticMeta)
	}
	return m, c.Bytes(), nil
}

// readVocab reads one token a line and checks each is a distinct token as
// [Tokenize] emits it.
func readVocab(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(string(b), "\n")
	if text == "" {
		return nil, fmt.Errorf("%s: no tokens", path)
	}
	words := strings.Split(text, "\n")
	seen := make(map[string]int, len(words))
	for i, w := range words {
		if toks := Tokenize(w); len(toks) != 1 || toks[0] != w {
			return nil, fmt.Errorf("%s:%d: %q is not a token as Tokenize emits it (it gives %q)", path, i+1, w, toks)
		}
		if len(w) > maxWordBytes {
			return nil, fmt.Errorf("%s:%d: token of %d bytes, at most %d", path, i+1, len(w), maxWordBytes)
		}
		if j, dup := seen[w]; dup {
			return nil, fmt.Errorf("%s:%d: %q repeats line %d", path, i+1, w, j+1)
		}
		seen[w] = i
	}
	return words, nil
}

// quantiseVectors streams the float32 rows of path, one per word of f, into
// int8 rows (returned) and f.scales, measuring the quantisation error.
func quantiseVectors(path string, f *staticFile) ([]byte, PackReport, error) {
	var rep PackReport
	d := f.meta.Dims
	in, err := os.Open(path)
	if err != nil {
		return nil, rep, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return nil, rep, err
	}
	if want := int64(len(f.words)) * int64(d) * 4; fi.Size() != want {
		return nil, rep, fmt.Errorf("%s: %d bytes, want %d (%d tokens × %d dims × 4)", path, fi.Size(), want, len(f.words), d)
	}
	br := bufio.NewReaderSize(in, 1<<20)
	raw := make([]byte, 4*d)
	row := make([]float32, d)
	q := make([]byte, len(f.words)*d)
	rep.MinCosine = 1
	var sumCos float64
	for i := range f.words {
		if _, err := io.ReadFull(br, raw); err != nil {
			return nil, rep, fmt.Errorf("%s: row %d: %w", path, i, err)
		}
		for k := range row {
			row[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
			if math.IsNaN(float64(row[k])) || math.IsInf(float64(row[k]), 0) {
				return nil, rep, fmt.Errorf("%s: row %d (%q): component %d is %v", path, i, f.words[i], k, row[k])
			}
		}
		var cos, normErr float64
		f.scales[i], cos, normErr = quantiseRow(q[i*d:(i+1)*d], row)
		if f.scales[i] == 0 {
			rep.ZeroRows++
			continue
		}
		sumCos += cos
		rep.MinCosine = min(rep.MinCosine, cos)
		rep.MaxNormError = max(rep.MaxNormError, normErr)
	}
	if n := len(f.words) - rep.ZeroRows; n > 0 {
		rep.MeanCosine = sumCos / float64(n)
	} else {
		return nil, rep, errors.New("every row is zero")
	}
	return q, rep, nil
}

// quantiseRow writes row as symmetric int8 values into dst and returns the
// scale (max |x| / 127, 0 for a zero row), the cosine between row and its
// quantised form, and the relative error of its norm.
func quantiseRow(dst []byte, row []float32) (scale float32, cos, normErr float64) {
	var maxAbs float32
	for _, x := range row {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	if maxAbs == 0 {
		clear(dst)
		return 0, 1, 0
	}
	scale = maxAbs / 127
	if scale == 0 { // a row of subnormals: nothing int8 can express
		clear(dst)
		return 0, 1, 0
	}
	var dotQ, ssX, ssQ float64
	for k, x := range row {
		v := int8(max(-127, min(127, math.Round(float64(x/scale)))))
		dst[k] = byte(v)
		y := float64(v) * float64(scale)
		dotQ += float64(x) * y
		ssX += float64(x) * float64(x)
		ssQ += y * y
	}
	nx, nq := math.Sqrt(ssX), math.Sqrt(ssQ)
	return scale, dotQ / (nx * nq), math.Abs(nq-nx) / nx
}
