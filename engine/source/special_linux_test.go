package source

import (
	"bytes"
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// mkdev creates a character device like /dev/null (major 1, minor 3) and
// reports whether it could: that takes root and CAP_MKNOD.
func mkdev(t *testing.T, path string) bool {
	t.Helper()
	if os.Getuid() != 0 {
		t.Log("not root: no device file")
		return false
	}
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("no device file: %v", err)
		return false
	}
	return true
}

// TestKmsgNotDrained: /proc/kmsg is a "regular" file of size 0 whose read
// blocks until the kernel logs, and consumes what it returns. It must be
// neither waited on nor read (a masked one is a device: also not read).
func TestKmsgNotDrained(t *testing.T) {
	if _, err := os.Lstat("/proc/kmsg"); err != nil {
		skipUnlessCI(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var buf bytes.Buffer
	var err error
	within(t, 10*time.Second, "readFile(/proc/kmsg)", func() { _, err = readFile(ctx, "/proc/kmsg", &buf, 1<<20) })
	if err != nil && !errors.Is(err, ErrNotRegular) && !errors.Is(err, os.ErrPermission) {
		t.Fatalf("readFile(/proc/kmsg) = %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("read %d bytes of the kernel log", buf.Len())
	}
}

// TestProcSelfWorkingTree: a forced listing of a procfs directory ends, and
// fast: nothing in it is waited on.
func TestProcSelfWorkingTree(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		skipUnlessCI(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := OpenWith(ctx, "/proc/self", OpenOptions{AllowSystemDirs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var files []File
	within(t, 40*time.Second, "WorkingTree(/proc/self)", func() { files, err = r.WorkingTree(ctx, Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no files listed")
	}
}
