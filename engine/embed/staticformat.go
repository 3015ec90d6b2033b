package embed

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"
)

// The static model file ("SPLKSTAT" version 1), written by [PackStatic]. All
// integers are little-endian.
//
//	offset  size            field
//	0       8               magic "SPLKSTAT"
//	8       4   uint32      format version (1)
//	12      4   uint32      dims: components per word vector
//	16      4   uint32      count: number of words
//	20      4   uint32      length of the metadata, then the metadata: the
//	                        trainer's meta.json, compacted (see [StaticMeta])
//	...     count × (uint8 length, bytes)     words, most frequent first
//	...     count × float32                   each row's scale
//	...     count × dims × int8               rows: component k of word i is
//	                                          int8 × scale[i] (the row's norm
//	                                          is the word's weight)
//	end-4   4   uint32      CRC-32C (Castagnoli) of every preceding byte
//
// The rows come last so that a reader can parse everything else from the
// first few hundred kilobytes and read rows by blocks when they are needed.
// 100k words × 256 dims is ~26 MB.
const (
	staticMagic   = "SPLKSTAT"
	staticVersion = 1
	staticHeader  = 24 // bytes before the metadata
	maxStaticMeta = 1 << 16
	maxStaticDims = 2048
	maxHashDims   = 1024
)

// errCorruptStatic is wrapped by every decoding error of a static model file.
var errCorruptStatic = errors.New("not a valid spelunk static model file")

// StaticMeta describes a static model: the trainer's meta.json.
type StaticMeta struct {
	// Name is the model name stored with every vector, e.g.
	// "spelunk-code-256d-v1": new weights need a new name.
	Name string `json:"name"`
	// Dims is the number of components of a word vector.
	Dims int `json:"dims"`
	// Teacher is the model the word table was distilled from.
	Teacher string `json:"teacher,omitempty"`
	// Source describes the training data.
	Source string `json:"source,omitempty"`
	// HashDims is the number of hashed dimensions for unknown tokens.
	HashDims int `json:"hash_dims"`
	// UnknownWeight is the weight of an unknown token in its hashed dimension.
	UnknownWeight float64 `json:"unknown_weight"`
}

// reservedPrefixes are the model names of the other providers: a static
// model must not claim their vector spaces.
var reservedPrefixes = []string{"spelunk-glove-", "spelunk-hash-", "openai:"}

// check reports what makes m unusable.
func (m *StaticMeta) check() error {
	switch {
	case m.Name == "" || len(m.Name) > 128 || strings.ContainsAny(m.Name, " \t\r\n"):
		return fmt.Errorf("name %q: want 1 to 128 bytes without spaces", m.Name)
	case m.Dims <= 0 || m.Dims > maxStaticDims:
		return fmt.Errorf("dims %d out of range [1, %d]", m.Dims, maxStaticDims)
	case m.HashDims <= 0 || m.HashDims > maxHashDims:
		return fmt.Errorf("hash_dims %d out of range [1, %d]", m.HashDims, maxHashDims)
	case math.IsNaN(m.UnknownWeight) || m.UnknownWeight < 0 || m.UnknownWeight > 100:
		return fmt.Errorf("unknown_weight %v out of range [0, 100]", m.UnknownWeight)
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(m.Name, p) {
			return fmt.Errorf("name %q: the prefix %q belongs to another embedder", m.Name, p)
		}
	}
	return nil
}

// staticFile is the decoded content of a static model file, but for its rows,
// which stay in rows from offset rowsOff: count*dims int8 values.
type staticFile struct {
	meta     StaticMeta
	metaJSON []byte
	words    []string
	scales   []float32
	rows     io.ReaderAt
	rowsOff  int64
	// sum is the file's stored CRC-32C: it names these weights (see Static.Name).
	sum uint32
}

// appendStaticFile encodes f, whose rows are q (count*dims int8 values as
// bytes), to dst.
func appendStaticFile(dst []byte, f *staticFile, q []byte) ([]byte, error) {
	d := f.meta.Dims
	if len(f.metaJSON) > maxStaticMeta {
		return nil, errors.New("metadata too long")
	}
	if len(f.scales) != len(f.words) || len(q) != len(f.words)*d {
		return nil, errors.New("inconsistent static model data")
	}
	dst = append(dst, staticMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, staticVersion)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(d))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(f.words)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(f.metaJSON)))
	dst = append(dst, f.metaJSON...)
	for _, w := range f.words {
		if len(w) == 0 || len(w) > maxWordBytes {
			return nil, fmt.Errorf("word %q: length out of range", w)
		}
		dst = append(dst, byte(len(w)))
		dst = append(dst, w...)
	}
	for _, s := range f.scales {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(s))
	}
	dst = append(dst, q...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst, castagnoli)), nil
}

// parseStaticFile decodes and validates the file of size bytes that r holds,
// checking its checksum when verify is set (which reads the whole file). It
// reads everything but the rows, and never panics, whatever r holds.
func parseStaticFile(r io.ReaderAt, size int64, verify bool) (*staticFile, error) {
	head := make([]byte, staticHeader)
	if size < staticHeader+4 {
		return nil, fmt.Errorf("%w: %d bytes", errCorruptStatic, size)
	}
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("%w: read header: %w", errCorruptStatic, err)
	}
	if string(head[:8]) != staticMagic {
		return nil, fmt.Errorf("%w: bad magic", errCorruptStatic)
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != staticVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d (repack it with a matching spelunk)", errCorruptStatic, v, staticVersion)
	}
	if verify {
		if err := verifyCRC(r, size); err != nil {
			return nil, err
		}
	}
	dims := int64(binary.LittleEndian.Uint32(head[12:]))
	count := int64(binary.LittleEndian.Uint32(head[16:]))
	metaLen := int64(binary.LittleEndian.Uint32(head[20:]))
	if dims <= 0 || dims > maxStaticDims || count <= 0 || count > 1<<24 || metaLen > maxStaticMeta {
		return nil, fmt.Errorf("%w: dims %d, count %d, metadata %d bytes out of range", errCorruptStatic, dims, count, metaLen)
	}
	// Everything but the words has a known size, which gives the word list's.
	wordsLen := size - staticHeader - metaLen - count*(4+dims) - 4
	if wordsLen < 2*count || wordsLen > count*(1+maxWordBytes) {
		return nil, fmt.Errorf("%w: %d bytes for %d words", errCorruptStatic, wordsLen, count)
	}
	mid := make([]byte, metaLen+wordsLen+4*count)
	if _, err := r.ReadAt(mid, staticHeader); err != nil {
		return nil, fmt.Errorf("%w: read: %w", errCorruptStatic, err)
	}
	tail := make([]byte, 4)
	if _, err := r.ReadAt(tail, size-4); err != nil {
		return nil, fmt.Errorf("%w: read checksum: %w", errCorruptStatic, err)
	}
	f := &staticFile{metaJSON: mid[:metaLen], rows: r, rowsOff: size - 4 - count*dims, sum: binary.LittleEndian.Uint32(tail)}
	if err := json.Unmarshal(f.metaJSON, &f.meta); err != nil {
		return nil, fmt.Errorf("%w: metadata: %w", errCorruptStatic, err)
	}
	if err := f.meta.check(); err != nil {
		return nil, fmt.Errorf("%w: metadata: %w", errCorruptStatic, err)
	}
	if int64(f.meta.Dims) != dims {
		return nil, fmt.Errorf("%w: metadata says %d dims, header %d", errCorruptStatic, f.meta.Dims, dims)
	}
	words, err := parseWordList(mid[metaLen:metaLen+wordsLen], int(count))
	if err != nil {
		return nil, err
	}
	f.words = words
	f.scales = make([]float32, count)
	sc := mid[metaLen+wordsLen:]
	for i := range f.scales {
		s := math.Float32frombits(binary.LittleEndian.Uint32(sc[4*i:]))
		if s < 0 || math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
			return nil, fmt.Errorf("%w: word %d: scale %v", errCorruptStatic, i, s)
		}
		f.scales[i] = s
	}
	return f, nil
}

// parseWordList splits b, exactly count (uint8 length, bytes) words, into
// strings sliced from one allocation.
func parseWordList(b []byte, count int) ([]string, error) {
	p := 0
	for range count {
		if p >= len(b) {
			return nil, fmt.Errorf("%w: truncated word list", errCorruptStatic)
		}
		l := int(b[p])
		if l == 0 || p+1+l > len(b) {
			return nil, fmt.Errorf("%w: bad word length", errCorruptStatic)
		}
		p += 1 + l
	}
	if p != len(b) {
		return nil, fmt.Errorf("%w: %d stray bytes after the word list", errCorruptStatic, len(b)-p)
	}
	section := string(b)
	words := make([]string, count)
	for i, q := 0, 0; i < count; i++ {
		l := int(section[q])
		words[i] = section[q+1 : q+1+l]
		q += 1 + l
	}
	return words, nil
}

// verifyCRC checks the trailing CRC-32C of the size bytes r holds.
func verifyCRC(r io.ReaderAt, size int64) error {
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, io.NewSectionReader(r, 0, size-4)); err != nil {
		return fmt.Errorf("%w: read: %w", errCorruptStatic, err)
	}
	var tail [4]byte
	if _, err := r.ReadAt(tail[:], size-4); err != nil {
		return fmt.Errorf("%w: read: %w", errCorruptStatic, err)
	}
	if sum.Sum32() != binary.LittleEndian.Uint32(tail[:]) {
		return fmt.Errorf("%w: checksum mismatch (truncated or damaged)", errCorruptStatic)
	}
	return nil
}
