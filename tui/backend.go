package tui

import (
	"context"
	"time"

	"github.com/spelunkhq/spelunk/tui/conflictview"
	"github.com/spelunkhq/spelunk/tui/graphview"
	"github.com/spelunkhq/spelunk/tui/memoryview"
	"github.com/spelunkhq/spelunk/tui/searchview"
	"github.com/spelunkhq/spelunk/tui/symbolview"
)

// Backend is everything the TUI asks of the engine: each pane's own small
// interface plus the repository's status and indexing. The TUI calls it only from
// commands, never from Update or View.
type Backend interface {
	searchview.Backend
	symbolview.Backend
	graphview.Backend
	conflictview.Backend
	memoryview.Backend

	// Status describes the repository's index.
	Status(ctx context.Context) (RepoStatus, error)
	// Index brings the index up to date (the working tree included when it has
	// uncommitted changes), reporting progress as it goes.
	Index(ctx context.Context, progress func(Progress)) (IndexResult, error)
}

// RepoFilter is implemented by a backend over several repositories: the
// search pane labels each result with its repository and the filter key
// narrows the search to one of them (all → the first → … → all).
type RepoFilter interface {
	Repositories() []string
	// Filter names the one repository searched, "" when all are.
	Filter() string
	// CycleFilter moves the filter to the next repository and returns it.
	CycleFilter() string
	// RepoOf names the repository of a symbol the backend returned.
	RepoOf(id int64) string
}

// SyncStatus is what the status bar shows about the local memory cache.
type SyncStatus struct {
	Cached    bool   // memory is served from a local cache
	Queued    int    // its writes waiting for the core
	LastError string // the last sync's error, "" after a clean one
}

// Syncer is implemented by a backend whose memory is served from a local cache;
// it is asked with every status refresh, and answers even with the core down.
type Syncer interface {
	SyncStatus(ctx context.Context) (SyncStatus, error)
}

// RepoStatus is what the status bar shows about the repository.
type RepoStatus struct {
	Name        string
	Root        string
	Revision    string // the last indexed commit; "" when never indexed
	WorkingTree bool   // the index includes uncommitted changes
	Head        string // the repository's HEAD commit, "" outside git
	Indexed     bool   // indexed at least once
	Stale       bool
	StaleReason string
	StaleFiles  int    // files on disk that differ from the index
	Model       string // the embedding model
	Files       int
	Symbols     int
	Pending     int // symbols waiting for an embedding
	// Incomplete is pg.Repository.Incomplete once a run has started: the last
	// run stopped before it finished (or is still running), so answers may be
	// missing results (issue 36, 5).
	Incomplete string
}

// Progress is a snapshot of an indexing run.
type Progress struct {
	Phase        string
	FilesTotal   int
	FilesDone    int
	FilesSkipped int
	Chunks       int
	EmbedQueued  int
	Embedded     int
	Rate         float64 // files per second
	ETA          time.Duration
}

// IndexResult summarises a finished run.
type IndexResult struct {
	Revision     string
	FilesIndexed int
	FilesDeleted int
	Symbols      int
	Embedded     int
	Duration     time.Duration
	Notes        []string
}

// WatchState is what the watcher running beside the program is doing.
type WatchState int

// The states of the watcher.
const (
	WatchStarting WatchState = iota // not yet watching
	WatchIdle                       // watching; the index follows the tree
	WatchIndexing                   // a run for the latest changes is in progress
	WatchStandby                    // another process watches the repository
	WatchFailed                     // the latest run failed; it is tried again
	WatchOff                        // the watcher stopped (Err says why)
)

// WatchEvent is one state of the watcher.
type WatchEvent struct {
	State  WatchState
	Detail string // what the run is about ("cart/cart.go changed")
	Done   bool   // a run just ended: the index changed
	Err    error  // a failed run, or why the watcher stopped
}
