package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// ErrNotRegular reports a path that is not a regular file (a FIFO, socket,
// device, directory or symlink, possibly swapped in since the listing):
// such a path is never opened.
var ErrNotRegular = errors.New("not a regular file")

// isSpecial reports a FIFO, socket or device file: opening or reading one
// can block forever or have side effects, so it is never opened.
func isSpecial(mode fs.FileMode) bool {
	return mode&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice|fs.ModeIrregular) != 0
}

// openRegular opens abs for reading only if it is a regular file, checked
// twice: with Lstat before the open and with Fstat on the opened file (it
// may have been replaced in between). The FileInfo is the opened file's.
func openRegular(abs string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%w (%s)", ErrNotRegular, modeName(fi.Mode()))
	}
	fh, err := os.OpenFile(abs, openFlags, 0)
	if err != nil {
		return nil, fi, err
	}
	fi, err = fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		fh.Close()
		return nil, fi, fmt.Errorf("%w (%s)", ErrNotRegular, modeName(fi.Mode()))
	}
	return fh, fi, nil
}

// modeName names a file type in an error message.
func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}

// readRegular appends up to limit bytes of fh to buf. A pseudo file that
// waits for data (its descriptor is pollable) is interrupted when ctx ends;
// a disk file never waits, so for it the deadline is simply unsupported.
func readRegular(ctx context.Context, fh *os.File, buf *bytes.Buffer, limit int64) error {
	stop := context.AfterFunc(ctx, func() { _ = fh.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	_, err := buf.ReadFrom(io.LimitReader(fh, limit))
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return err
}

// readFile reads the regular file abs into buf (reset first), at most limit
// bytes, and returns the stat of the opened file. A file whose size is 0 is
// not read: on a disk it is empty, while on a pseudo file system (procfs
// reports 0 for everything) a read can block or consume data, as /proc/kmsg
// drains the kernel log.
func readFile(ctx context.Context, abs string, buf *bytes.Buffer, limit int64) (fs.FileInfo, error) {
	buf.Reset()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fh, fi, err := openRegular(abs)
	if err != nil {
		return fi, err
	}
	defer fh.Close()
	if fi.Size() == 0 {
		return fi, nil
	}
	buf.Grow(int(min(fi.Size(), limit)) + 1)
	return fi, readRegular(ctx, fh, buf, limit)
}
