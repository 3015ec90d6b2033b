package source

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestOpenSystemDir: / and the pseudo file systems are refused unless
// allowed, and opening them never hangs.
func TestOpenSystemDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /proc on Windows")
	}
	for _, dir := range []string{"/", "/proc", "/sys", "/dev", "/proc/self", "/proc/../proc"} {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		t.Run(dir, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := Open(ctx, dir)
			if !errors.Is(err, ErrSystemDir) {
				t.Fatalf("Open(%s) = %v, want ErrSystemDir", dir, err)
			}
			if !strings.Contains(err.Error(), "refusing to index") || !strings.Contains(err.Error(), "--force") {
				t.Errorf("message %q does not say what to do", err)
			}
		})
	}
	if _, err := os.Stat("/proc"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r, err := OpenWith(ctx, "/proc", OpenOptions{AllowSystemDirs: true})
		if err != nil {
			t.Fatalf("OpenWith(/proc, AllowSystemDirs) = %v", err)
		}
		r.Close()
	}
}

// TestOpenSymlinkToSystemDir: a link is followed before the check.
func TestOpenSymlinkToSystemDir(t *testing.T) {
	if _, err := os.Stat("/proc"); err != nil {
		skipUnlessCI(t, "no /proc")
	}
	link := realTempDir(t) + "/p"
	if err := os.Symlink("/proc", link); err != nil {
		skipUnlessCI(t, err)
	}
	if _, err := Open(context.Background(), link); !errors.Is(err, ErrSystemDir) {
		t.Fatalf("Open(link to /proc) = %v, want ErrSystemDir", err)
	}
}
