package tui_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/watch"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestWatcherInTheStatusBar: with the watcher beside it, the status bar says
// it watches; a saved file is indexed by the watcher, and the status that
// follows the run shows the working tree in the index.
func TestWatcherInTheStatusBar(t *testing.T) {
	env := tuitest.Open(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	ch, wait := env.Backend.Watch(ctx, watch.Options{}, false)
	t.Cleanup(func() { cancel(); wait() })
	m, d := newDriver(t, env.Backend, 160, 40, func(c *tui.Config) { c.Watch = ch })
	d.WaitFor("the catch-up run", func() bool { return m.Watch().State == tui.WatchIdle && m.Watch().Done }, 60*time.Second)
	if !strings.Contains(lastLine(m.View()), "◉ watching") {
		t.Errorf("the status bar does not say the watcher watches:\n%s", lastLine(m.View()))
	}
	src := "package billing\n\n// Watched is saved while the UI is open.\nfunc Watched() {}\n"
	if err := os.WriteFile(filepath.Join(env.Root, "billing", "watched.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d.WaitFor("the save indexed", func() bool {
		return m.Watch().Detail == "billing/watched.go changed" && m.Watch().Done && m.Status().WorkingTree
	}, 60*time.Second)
	if m.LastError() != nil {
		t.Errorf("error: %v", m.LastError())
	}
	if v := lastLine(m.View()); !strings.Contains(v, "working tree") || !strings.Contains(v, "◉ watching") {
		t.Errorf("status bar after the save:\n%s", v)
	}
}
