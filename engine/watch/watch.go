// Package watch keeps a repository's index in step with its working tree as
// files are saved, created and deleted (by an editor, a build, git stash), and
// as HEAD moves (commit, checkout, rebase, pull, reset).
//
// It watches, with fsnotify, every directory the index would list (directories
// git ignores, .git itself and nested repositories are not watched; new
// directories are added as they appear), waits for a short quiet time
// (Options.Debounce, 150 ms) and then re-indexes exactly the files that changed
// as working-tree revisions: one index run over those paths. A burst of
// changes (more than Options.MaxPaths paths, a branch switch) and every move of
// HEAD become one incremental run of the whole tree instead, at HEAD or with
// the working tree when it has uncommitted changes. Nothing is polled: an
// idle watcher waits on the kernel.
//
// One process leads per repository and database: the leader holds a
// PostgreSQL session advisory lock of its own (distinct from the index run
// lock, which every run still takes). Others wait on that lock in Standby,
// reading the index the leader keeps, and the first of them takes over when
// the leader goes away.
package watch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/source"
)

// Defaults of Options.
const (
	DefaultDebounce = 150 * time.Millisecond
	DefaultMaxDelay = 2 * time.Second
	DefaultMaxPaths = 500
)

// Options tune a Watcher. The zero value works.
type Options struct {
	// Debounce is the quiet time after the last change before a run starts: an
	// editor's save (write a temporary file, rename it over the old one) or a
	// tool touching many files arrives as a burst of events, and one run
	// should follow the burst, not each event. 0 = DefaultDebounce.
	Debounce time.Duration
	// MaxDelay bounds the wait while changes keep coming (a build writing all
	// the time), so the index never falls behind for long. 0 = DefaultMaxDelay.
	MaxDelay time.Duration
	// MaxPaths is how many changed paths a run over paths takes; past it, one
	// incremental run of the whole tree is cheaper. 0 = DefaultMaxPaths.
	MaxPaths int
	// BusyRetry is the wait before trying again when another process is
	// indexing the repository (index.ErrBusy). 0 = 500 ms.
	BusyRetry time.Duration
	// MaxFileBytes is passed to every run (index.Options.MaxFileBytes).
	MaxFileBytes int64
	// gitQuiet overrides maxGitWait (tests).
	gitQuiet time.Duration

	// OnEvent, when set, is told what the watcher does. It is called one
	// event at a time, from the watcher's goroutines, and should return
	// quickly (hand the event to a channel, print a line).
	OnEvent func(Event)
}

// Kind tells what an Event reports.
type Kind int

// The kinds of Event.
const (
	// Standby: another process watches the repository; this one waits to take
	// over and meanwhile only reads.
	Standby Kind = iota
	// Watching: this process leads; its watches are set up.
	Watching
	// Indexing: a run started (Reason, Paths).
	Indexing
	// Indexed: a run ended (Summary, Duration; Err when it failed, in which
	// case the changes are tried again later).
	Indexed
	// Busy: another process's index run holds the repository; the changes
	// wait for it to end.
	Busy
	// Warning: a problem the watcher goes on after (Err).
	Warning
)

func (k Kind) String() string {
	switch k {
	case Standby:
		return "standby"
	case Watching:
		return "watching"
	case Indexing:
		return "indexing"
	case Indexed:
		return "indexed"
	case Busy:
		return "busy"
	case Warning:
		return "warning"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Event is one thing the watcher did or saw.
type Event struct {
	Kind Kind
	// Root is the repository's root.
	Root string
	// Reason says why a run started: "start", "HEAD moved to 1a2b3c4d5e6f
	// (main)", "3 files changed", ... (Indexing, Indexed, Busy).
	Reason string
	// Paths are the files of a run over paths, nil for a run of the whole
	// tree (Indexing, Indexed, Busy).
	Paths    []string
	Summary  index.Summary // Indexed
	Duration time.Duration // Indexed: the run's wall time
	Err      error         // Indexed (failed), Warning
}

// Watcher follows one repository. Run does the work.
type Watcher struct {
	db   *pg.DB
	emb  index.Embedder
	dir  string
	opts Options

	mu sync.Mutex // serialises OnEvent calls
}

// New returns a watcher of the repository containing dir, indexing into db
// with emb.
func New(db *pg.DB, emb index.Embedder, dir string, opts Options) *Watcher {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	if opts.MaxDelay < opts.Debounce {
		opts.MaxDelay = opts.Debounce
	}
	if opts.MaxPaths <= 0 {
		opts.MaxPaths = DefaultMaxPaths
	}
	if opts.gitQuiet <= 0 {
		opts.gitQuiet = maxGitWait
	}
	if opts.BusyRetry <= 0 {
		opts.BusyRetry = 500 * time.Millisecond
	}
	return &Watcher{db: db, emb: emb, dir: dir, opts: opts}
}

// Run watches until ctx ends, then returns nil once the run in progress (if
// any) has stopped. It returns an error when the repository cannot be opened
// or watched, or the database cannot be reached for the watch lock. A run
// that fails does not stop it: the failure is reported (Indexed with Err) and
// the changes are tried again.
func (w *Watcher) Run(ctx context.Context) error {
	repo, err := source.Open(ctx, w.dir)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	root := repo.Root
	repo.Close()
	rec, err := w.db.EnsureRepository(ctx, root)
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	for {
		lk, err := acquire(ctx, w.db.URL, rec.ID, func() { w.emit(Event{Kind: Standby, Root: root}) })
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("watch %s: %w", root, err)
		}
		err = w.lead(ctx, root, lk)
		lk.close()
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, errLockLost):
			w.emit(Event{Kind: Warning, Root: root, Err: err})
		default:
			return err
		}
	}
}

// lead watches the repository while this process holds the watch lock.
func (w *Watcher) lead(ctx context.Context, root string, lk *watchLock) error {
	s, err := newSession(ctx, w, root, lk)
	if err != nil {
		return err
	}
	defer s.close()
	w.emit(Event{Kind: Watching, Root: root})
	return s.loop(ctx)
}

func (w *Watcher) emit(ev Event) {
	if w.opts.OnEvent == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.opts.OnEvent(ev)
}
