package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// What a trainer needs to change a static model's rows (engine/learn): a text
// as the embedder reads it, the rows as floats, and a new model file with some
// rows replaced.

// Bag is a text as [Static] embeds it: its vector is the L2-normalised
// concatenation of Σ Weights[i] × Row(IDs[i]) and Hashed.
type Bag struct {
	// IDs are the distinct word ids of the text's known tokens, ascending.
	IDs []int32
	// Weights are their sublinear term frequencies, 1 + ln(tf).
	Weights []float32
	// Hashed is the part of the tokens the table does not know: HashDims
	// values that no row change alters.
	Hashed []float32
}

// Bag returns text as the embedder reads it (see [Static.Embed]).
func (s *Static) Bag(text string) Bag {
	sc := getScratch()
	defer putScratch(sc)
	ids, feats := s.tokens(sc, clip(text))
	b := Bag{Hashed: make([]float32, s.meta.HashDims)}
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		b.IDs = append(b.IDs, ids[i])
		b.Weights = append(b.Weights, tfWeight(j-i))
		i = j
	}
	for i := 0; i < len(feats); {
		j := i + 1
		for j < len(feats) && feats[j] == feats[i] {
			j++
		}
		k, sign := bucket(feats[i], len(b.Hashed))
		b.Hashed[k] += sign * s.unknownWeight * tfWeight(j-i)
		i = j
	}
	return b
}

// Row returns a copy of word id's row: its unit vector times its weight.
func (s *Static) Row(id int32) []float32 {
	v := slices.Clone(s.vector(int(id))) // decodes the block, which sets the weight
	w := s.weight[id]
	for k := range v {
		v[k] *= w
	}
	return v
}

// Word returns the token of word id.
func (s *Static) Word(id int32) string { return s.words[id] }

// WordDims is the length of a row (Dims less the hashed dimensions).
func (s *Static) WordDims() int { return s.wordDims }

// Retuned returns a new static model file: this model's words and rows, but
// for the rows replaced by rows (word id → row of WordDims values), under
// name, with source describing what changed. Unchanged rows keep their int8
// bytes exactly; the file's checksum, and so its vector space's name, differs.
func (s *Static) Retuned(name, source string, rows map[int32][]float32) ([]byte, error) {
	d := s.wordDims
	q := make([]byte, len(s.words)*d)
	if _, err := s.rows.ReadAt(q, s.rowsOff); err != nil {
		return nil, fmt.Errorf("retune %s: read rows: %w", s.name, err)
	}
	f := &staticFile{meta: s.meta, words: s.words, scales: slices.Clone(s.scales)}
	f.meta.Name, f.meta.Source = name, source
	if err := f.meta.check(); err != nil {
		return nil, fmt.Errorf("retune %s: %w", s.name, err)
	}
	for id, row := range rows {
		if int(id) < 0 || int(id) >= len(s.words) || len(row) != d {
			return nil, fmt.Errorf("retune %s: row %d of %d values (want an id below %d and %d values)", s.name, id, len(row), len(s.words), d)
		}
		for _, x := range row {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("retune %s: row %d (%q) is not finite", s.name, id, s.words[id])
			}
		}
		f.scales[id], _, _ = quantiseRow(q[int(id)*d:(int(id)+1)*d], row)
	}
	meta, err := json.Marshal(f.meta)
	if err != nil {
		return nil, fmt.Errorf("retune %s: %w", s.name, err)
	}
	f.metaJSON = meta
	buf, err := appendStaticFile(make([]byte, 0, staticHeader+len(meta)+len(s.words)*(10+d)), f, q)
	if err != nil {
		return nil, fmt.Errorf("retune %s: %w", s.name, err)
	}
	if _, err := LoadStatic(buf); err != nil {
		return nil, errors.Join(fmt.Errorf("retune %s: the new model does not load", s.name), err)
	}
	return buf, nil
}
