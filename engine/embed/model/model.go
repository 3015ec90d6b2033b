// Package model ships spelunk's code embedding model inside the binary.
//
// The packed model (File, written by `spelunk model pack`) is embedded when it
// is in this directory at build time; without it the build still succeeds and
// [Code] reports that there is none, so the embedder falls back to GloVe or
// hashing. This package only holds the bytes: engine/embed reads them.
package model

import (
	"embed"
	"io"
)

// File is the name of the packed code model in this directory.
const File = "spelunk-code.bin"

// files is this directory: README.md always, File when it was there at build
// time. A pattern naming File itself would fail the build without it.
//
//go:embed *
var files embed.FS

// Code returns the packed code model built into the binary and its size, or ok
// false when the build has none. Reading it copies only what is read: the
// bytes stay in the executable's read-only data.
func Code() (r io.ReaderAt, size int64, ok bool) {
	f, err := files.Open(File)
	if err != nil {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false
	}
	ra, isAt := f.(io.ReaderAt)
	if !isAt || fi.Size() == 0 {
		return nil, 0, false
	}
	return ra, fi.Size(), true
}
