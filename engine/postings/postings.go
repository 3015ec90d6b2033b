// Package postings is the storage format of the BM25 postings (migrations
// 0017 and 0021): one row per term and postings group (files.postings_group:
// up to 64 files a write batch added, engine/index/postgroups.go) holding the
// postings of the term in those files, packed. The indexer encodes, the
// lexical and literal channels decode; nothing else reads them.
//
// A row's data is, per posting in ascending symbol id order, three unsigned
// varints: the symbol id minus the previous one (the first minus zero), the
// field-weighted term frequency and the symbol's weighted length. Both weights
// are whole numbers (name 3, signature 2, body 1 per occurrence). A row of
// several files is their postings merged in id order, so a reader decodes it
// as it would one file's; a file's postings leave a row by their symbol ids.
// A posting costs ~4 bytes instead of a 68-byte row; a row per (term, file)
// cost ~68 bytes of row overhead, so grouping files stores $GOROOT/src's 3.9M
// postings in 0.7M rows instead of 1.76M.
package postings

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Posting is one symbol's occurrence of a term.
type Posting struct {
	Symbol int64
	TF     uint32 // field-weighted term frequency
	DL     uint32 // the symbol's weighted length
}

// Encode appends ps, sorted by symbol id here, to dst in the row format.
func Encode(dst []byte, ps []Posting) []byte {
	slices.SortFunc(ps, func(a, b Posting) int {
		switch {
		case a.Symbol < b.Symbol:
			return -1
		case a.Symbol > b.Symbol:
			return 1
		}
		return 0
	})
	var prev int64
	for _, p := range ps {
		dst = binary.AppendUvarint(dst, uint64(p.Symbol-prev))
		dst = binary.AppendUvarint(dst, uint64(p.TF))
		dst = binary.AppendUvarint(dst, uint64(p.DL))
		prev = p.Symbol
	}
	return dst
}

// ErrCorrupt is returned for data that is not a sequence of whole postings.
var ErrCorrupt = errors.New("corrupt postings")

// Decode calls fn with each posting of data, in order.
func Decode(data []byte, fn func(Posting)) error {
	var prev int64
	for len(data) > 0 {
		var v [3]uint64
		for i := range v {
			x, n := binary.Uvarint(data)
			if n <= 0 {
				return fmt.Errorf("%w: truncated at %d bytes from the end", ErrCorrupt, len(data))
			}
			v[i], data = x, data[n:]
		}
		if v[1] > 1<<32-1 || v[2] > 1<<32-1 {
			return fmt.Errorf("%w: a weight past 32 bits", ErrCorrupt)
		}
		prev += int64(v[0])
		fn(Posting{Symbol: prev, TF: uint32(v[1]), DL: uint32(v[2])})
	}
	return nil
}
