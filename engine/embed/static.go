package embed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spelunkhq/spelunk/engine/embed/model"
)

// Static embeds texts with a learned table of token vectors: a static
// embedding model such as spelunk's code model (a word table distilled from a
// sentence model and fine-tuned on doc/code pairs), packed by [PackStatic].
//
// It combines tokens as [GloVe] does, with the table's own weights:
//
//   - known tokens: the sum of their rows, each times the sublinear term
//     frequency 1+ln(tf). A row's norm is the weight training gave the token,
//     so rows are not normalised (a zero row contributes nothing);
//   - unknown tokens: signed feature hashing into HashDims extra dimensions,
//     weight UnknownWeight × (1+ln tf);
//   - stop words and keywords are dropped unless the text has nothing else.
//
// The vector is L2-normalised and never zero; Dims is the table's dimensions
// plus HashDims. Rows are stored as int8 with a scale per row and decoded by
// blocks of words on first use, so loading costs a few milliseconds whatever
// the table's size.
type Static struct {
	wordTable
	meta    StaticMeta
	name    string
	dims    int
	scales  []float32
	rows    io.ReaderAt
	rowsOff int64
}

// ErrNoCodeModel is returned by [LoadCode] when the binary was built without
// the code model (engine/embed/model/spelunk-code.bin).
var ErrNoCodeModel = errors.New("no code model in this build (engine/embed/model/" + model.File + " is missing)")

// embeddedCode is the packed code model built into the binary; a variable so
// that tests can stand in a model.
var embeddedCode = model.Code

// LoadCode loads the code model built into the binary, or returns
// [ErrNoCodeModel]. It reads only the model's words and scales (the rows are
// decoded on first use) and skips the checksum: the bytes are the
// executable's own, and the model package's tests check them.
func LoadCode() (*Static, error) {
	r, size, ok := embeddedCode()
	if !ok {
		return nil, ErrNoCodeModel
	}
	f, err := parseStaticFile(r, size, false)
	if err != nil {
		return nil, fmt.Errorf("load built-in code model: %w", err)
	}
	s, err := newStatic(f)
	if err != nil {
		return nil, fmt.Errorf("load built-in code model: %w", err)
	}
	return s, nil
}

// LoadStatic loads a static model from the bytes of a file written by
// [PackStatic], after checking its checksum. b must not change afterwards: the
// rows are read from it when first needed.
func LoadStatic(b []byte) (*Static, error) {
	f, err := parseStaticFile(bytes.NewReader(b), int64(len(b)), true)
	if err != nil {
		return nil, fmt.Errorf("load static model: %w", err)
	}
	s, err := newStatic(f)
	if err != nil {
		return nil, fmt.Errorf("load static model: %w", err)
	}
	return s, nil
}

// LoadStaticFile loads the static model file at path (see [LoadStatic]).
func LoadStaticFile(path string) (*Static, error) {
	b, err := readFileShared(path)
	if err != nil {
		return nil, fmt.Errorf("load static model: %w", err)
	}
	s, err := LoadStatic(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func newStatic(f *staticFile) (*Static, error) {
	t, err := newWordTable(f.words, f.meta.Dims, float32(f.meta.UnknownWeight))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCorruptStatic, err)
	}
	s := &Static{
		wordTable: t,
		meta:      f.meta,
		name:      fmt.Sprintf("%s-%08x", f.meta.Name, f.sum),
		dims:      f.meta.Dims + f.meta.HashDims,
		scales:    f.scales,
		rows:      f.rows,
		rowsOff:   f.rowsOff,
	}
	s.decode = s.decodeRows
	return s, nil
}

// decodeRows dequantises the rows of words [lo, hi) into dst, then scales them
// to unit length and returns their norms, the words' weights. The rows were
// bounds-checked when the file was parsed and come from memory (a byte slice,
// a mapped file or the executable's data), so reading them cannot fail; if it
// did, the block would stay zero and its words would count for nothing.
func (s *Static) decodeRows(dst []float32, lo, hi int) []float32 {
	d := s.wordDims
	q := make([]byte, (hi-lo)*d)
	norms := make([]float32, hi-lo)
	if _, err := s.rows.ReadAt(q, s.rowsOff+int64(lo*d)); err != nil {
		clear(dst)
		return norms
	}
	for r := range hi - lo {
		sc := s.scales[lo+r]
		row, in := dst[r*d:(r+1)*d], q[r*d:(r+1)*d]
		for k, b := range in {
			row[k] = float32(int8(b)) * sc
		}
	}
	unitRows(dst, d, norms)
	return norms
}

// Name returns the model name stored with every vector: the metadata's name and
// the file's checksum, e.g. "spelunk-code-256d-v1-5a0c91e2". Retrained weights
// are another vector space even when nobody bumps the name, and vectors of one
// set of weights are never compared with a query embedded by another.
func (s *Static) Name() string { return s.name }

// Dims returns the vector length: the table's dimensions plus the hashed ones.
func (s *Static) Dims() int { return s.dims }

// Meta returns the model's metadata.
func (s *Static) Meta() StaticMeta { return s.meta }

// Words returns the vocabulary size.
func (s *Static) Words() int { return len(s.words) }

// WordVector returns the unit vector of word (a lower-case token as produced
// by [Tokenize]) and whether the model has a non-zero row for it; it serves
// soft term matching as [GloVe.WordVector] does. The slice is shared and must
// not be written to (its capacity ends at its length, so an append copies).
func (s *Static) WordVector(word string) ([]float32, bool) { return s.wordVector(word) }

// Embed returns one unit vector per text. It fails only when ctx is done.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return s.embedTexts(ctx, "static", s.dims, texts)
}
