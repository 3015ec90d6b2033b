//go:build unix

package source

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// within fails the test when fn does not return in d: a hang becomes a
// failure instead of a stuck test binary.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}

// TestSpecialFilesSkipped: FIFOs, sockets and devices are listed with the
// "special" reason and never opened, by the listing nor by ReadContent.
func TestSpecialFilesSkipped(t *testing.T) {
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"main.go": "package main\n"})
	want := map[string]string{"main.go": ""}
	mkfifo(t, filepath.Join(dir, "pipe"))
	want["pipe"] = SkipSpecial
	// A socket path must be short: listen from inside dir.
	if l, err := listenUnixIn(dir, "sock"); err == nil {
		defer l.Close()
		want["sock"] = SkipSpecial
	} else {
		t.Logf("no socket: %v", err)
	}
	if mkdev(t, filepath.Join(dir, "null")) {
		want["null"] = SkipSpecial
	}

	r := openT(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var files []File
	var err error
	within(t, 25*time.Second, "WorkingTree", func() { files, err = r.WorkingTree(ctx, Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	m := byPath(files)
	for p, skip := range want {
		if f, ok := m[p]; !ok || f.Skip != skip {
			t.Errorf("%s: %+v (listed %v), want Skip %q", p, f, ok, skip)
		}
		if skip == "" {
			continue
		}
		within(t, 10*time.Second, "ReadContent "+p, func() {
			_, err := r.ReadContent(ctx, File{Path: p}, WorkingTreeRev)
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadContent(%s) = %v, want a not-a-regular-file error", p, err)
			}
		})
	}
}

// listenUnixIn listens on a socket named name in dir, through a relative
// path so that a long temporary directory fits the sun_path limit.
func listenUnixIn(dir, name string) (net.Listener, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(dir); err != nil {
		return nil, err
	}
	defer os.Chdir(wd)
	return net.Listen("unix", name)
}

// TestSpecialModeOfDevNull checks the mode test on a real device.
func TestSpecialModeOfDevNull(t *testing.T) {
	fi, err := os.Lstat(os.DevNull)
	if err != nil {
		skipUnlessCI(t, err)
	}
	if !isSpecial(fi.Mode()) {
		t.Fatalf("isSpecial(%s mode %v) = false", os.DevNull, fi.Mode())
	}
	if fh, _, err := openRegular(os.DevNull); !errors.Is(err, ErrNotRegular) {
		if fh != nil {
			fh.Close()
		}
		t.Fatalf("openRegular(%s) = %v, want ErrNotRegular", os.DevNull, err)
	}
}

// TestReadHonoursContext: a read that waits for data (here a FIFO with a
// writer that never writes, standing in for a pseudo file such as
// /proc/kmsg) ends when the context does.
func TestReadHonoursContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	mkfifo(t, p)
	// O_RDWR: the reader is its own writer, so the open does not wait and
	// the read does.
	fh, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var buf bytes.Buffer
	within(t, 10*time.Second, "readRegular", func() { err = readRegular(ctx, fh, &buf, 1<<20) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("readRegular = %v, want the context's error", err)
	}
}
