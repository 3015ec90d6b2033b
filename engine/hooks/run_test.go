package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHookCoalesce: while one run indexes, one more may wait; a third call
// returns at once without running, since the waiting run starts later.
func TestHookCoalesce(t *testing.T) {
	dir := t.TempDir()
	var runs atomic.Int32
	inFirst, releaseFirst := make(chan struct{}), make(chan struct{})
	firstDone := make(chan error, 1)
	go func() {
		_, err := Coalesce(dir, func() error {
			runs.Add(1)
			close(inFirst)
			<-releaseFirst
			return nil
		})
		firstDone <- err
	}()
	<-inFirst

	secondDone := make(chan bool, 1)
	go func() {
		ran, err := Coalesce(dir, func() error { runs.Add(1); return nil })
		if err != nil {
			t.Error(err)
		}
		secondDone <- ran
	}()
	// The second call is queued once the queue lock is taken.
	waitFor(t, "the second run to queue", func() bool {
		f, err := lockFile(filepath.Join(dir, queueLock), false)
		if f != nil {
			f.Close()
		}
		return err == nil && f == nil
	})
	ran, err := Coalesce(dir, func() error { runs.Add(1); return nil })
	if err != nil || ran {
		t.Errorf("third call: ran %v, %v; want dropped", ran, err)
	}
	close(releaseFirst)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	if !<-secondDone {
		t.Error("the queued run did not run")
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
	// With nothing running, a call runs.
	if ran, err := Coalesce(dir, func() error { return nil }); !ran || err != nil {
		t.Errorf("idle call: %v %v", ran, err)
	}
}

func TestHookSkip(t *testing.T) {
	gitDir := t.TempDir()
	loc := Location{GitDir: gitDir}
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	tests := []struct {
		hook string
		args []string
		skip bool
	}{
		{"post-checkout", []string{a, b, "1"}, false},
		{"post-checkout", []string{a, b, "0"}, true}, // files only
		{"post-checkout", []string{a, a, "1"}, true}, // checkout -b
		{"post-commit", nil, false},
		{"post-merge", []string{"0"}, false},
		{"post-rewrite", []string{"rebase"}, false},
	}
	for _, tt := range tests {
		if got := Skip(loc, tt.hook, tt.args); (got != "") != tt.skip {
			t.Errorf("Skip(%s %v) = %q, want skip %v", tt.hook, tt.args, got, tt.skip)
		}
	}
	if err := os.Mkdir(filepath.Join(gitDir, "rebase-merge"), 0o755); err != nil {
		t.Fatal(err)
	}
	if Skip(loc, "post-commit", nil) == "" {
		t.Error("post-commit during a rebase was not skipped")
	}
	if got := Skip(loc, "post-rewrite", []string{"rebase"}); got != "" {
		t.Errorf("post-rewrite during a rebase skipped: %s", got)
	}
}

func TestHookLogRotates(t *testing.T) {
	gitDir := t.TempDir()
	p := filepath.Join(gitDir, LogFile)
	writeFile(t, p, strings.Repeat("x", maxLog+1), 0o644)
	f, err := OpenLog(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("fresh\n")
	f.Close()
	if got := readFile(t, p); got != "fresh\n" {
		t.Errorf("log after rotation: %q", got)
	}
	if fi, err := os.Stat(p + ".1"); err != nil || fi.Size() != maxLog+1 {
		t.Errorf("rotated log: %v %v", fi, err)
	}
}
