package tui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// While another run indexes the repository, the TUI's own run waits for it and
// says so in the status bar, then indexes (issue 11.1).
func TestIndexWaitsForAnotherRun(t *testing.T) {
	env := tuitest.Open(t, false)
	hold, release := make(chan struct{}), make(chan struct{})
	other := make(chan error, 1)
	go func() {
		opts := index.Options{ProgressEvery: time.Nanosecond}
		held := false
		opts.Progress = func(p index.Progress) {
			if p.Phase == "indexing" && !held {
				held = true
				close(hold)
				<-release
			}
		}
		_, err := index.New(env.DB, env.Emb).Index(context.Background(), env.Root, opts)
		other <- err
	}()
	select {
	case <-hold:
	case err := <-other:
		t.Fatalf("the other run ended before holding the lock: %v", err)
	}
	m, d := newDriver(t, env.Backend, 120, 40, func(c *tui.Config) { c.NoAutoIndex = false })
	d.WaitFor("the waiting message", func() bool { return strings.Contains(lastLine(m.View()), "waiting: another index") }, 30*time.Second)
	close(release)
	if err := <-other; err != nil {
		t.Fatal(err)
	}
	d.WaitFor("indexed after the other run", func() bool { return !m.Indexing() && m.Status().Indexed && !m.Status().Stale }, 60*time.Second)
}
