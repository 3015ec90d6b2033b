package backend

import (
	"context"

	"github.com/spelunkhq/spelunk/engine/watch"
	"github.com/spelunkhq/spelunk/tui"
)

// Watch runs the watcher of the backend's repository (engine/watch) until ctx
// ends, for the program's Config.Watch. The channel holds the latest state
// only, so a busy UI never holds the watcher up; it is closed when the watcher
// has stopped, and the returned function waits for that.
//
// With afterIndex the watcher starts once the program's first index run has
// returned: a repository never indexed is indexed by the program, with its
// progress bar, rather than by the watcher's catch-up run, which would take
// the index first and leave the program waiting without a word of progress.
func (e *Engine) Watch(ctx context.Context, opts watch.Options, afterIndex bool) (<-chan tui.WatchEvent, func()) {
	ch := make(chan tui.WatchEvent, 1)
	stopped := make(chan struct{})
	opts.OnEvent = func(ev watch.Event) {
		if st, ok := watchEvent(ev); ok {
			sendLatest(ch, st)
		}
	}
	w := watch.New(e.db, e.emb, e.repo.Root, opts)
	go func() {
		defer close(stopped)
		defer close(ch)
		if afterIndex {
			select {
			case <-e.indexed:
			case <-ctx.Done():
				return
			}
		}
		if err := w.Run(ctx); err != nil {
			sendLatest(ch, tui.WatchEvent{State: tui.WatchOff, Err: err})
		}
	}()
	return ch, func() { <-stopped }
}

// watchEvent is what the status bar shows of ev; warnings (the watcher goes
// on) are not shown.
func watchEvent(ev watch.Event) (tui.WatchEvent, bool) {
	switch ev.Kind {
	case watch.Standby:
		return tui.WatchEvent{State: tui.WatchStandby}, true
	case watch.Watching:
		return tui.WatchEvent{State: tui.WatchIdle}, true
	case watch.Indexing:
		return tui.WatchEvent{State: tui.WatchIndexing, Detail: ev.Reason}, true
	case watch.Busy:
		return tui.WatchEvent{State: tui.WatchIndexing, Detail: "waiting for another index run"}, true
	case watch.Indexed:
		if ev.Err != nil {
			return tui.WatchEvent{State: tui.WatchFailed, Detail: ev.Reason, Err: ev.Err}, true
		}
		return tui.WatchEvent{State: tui.WatchIdle, Detail: ev.Reason, Done: true}, true
	}
	return tui.WatchEvent{}, false
}

// sendLatest puts ev in the one-slot channel, replacing an unread state. A
// replaced "done" is carried over: the UI must still learn that the index
// changed.
func sendLatest(ch chan tui.WatchEvent, ev tui.WatchEvent) {
	for {
		select {
		case ch <- ev:
			return
		default:
		}
		select {
		case old := <-ch:
			ev.Done = ev.Done || old.Done
		default:
		}
	}
}
