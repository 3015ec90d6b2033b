package golden_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/internal/golden"
)

// recorder is a testing.TB that keeps what Check reports instead of failing.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)) }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	const regen = "go test ./x -update"

	r := &recorder{TB: t}
	golden.Check(r, path, "a\nb\n", false, regen)
	if !r.failed || !strings.Contains(r.msg, regen) {
		t.Fatalf("a missing golden: failed %v, %q; want a failure naming %q", r.failed, r.msg, regen)
	}

	golden.Check(t, path, "a\nb\nc\n", true, regen)
	if data, err := os.ReadFile(path); err != nil || string(data) != "a\nb\nc\n" {
		t.Fatalf("-update wrote %q, %v", data, err)
	}

	r = &recorder{TB: t}
	golden.Check(r, path, "a\nb\nc\n", false, regen)
	if r.failed {
		t.Fatalf("equal output failed: %s", r.msg)
	}

	r = &recorder{TB: t}
	golden.Check(r, path, "a\nB\nc\n", false, regen)
	for _, want := range []string{"-b\n", "+B\n", regen} {
		if !r.failed || !strings.Contains(r.msg, want) {
			t.Errorf("a changed line: failed %v, message lacks %q:\n%s", r.failed, want, r.msg)
		}
	}
}
