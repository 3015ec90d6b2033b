package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/source"
)

// maxGitWait is how long a run waits for a git command that holds the index
// lock (a checkout writing thousands of files) after the tree went quiet:
// past it the lock is taken for a stale one a crashed git left behind. While
// the command writes files, events keep coming and the run keeps waiting, so
// a branch switch is one run however long it takes.
const maxGitWait = 10 * time.Second

// session is one stretch of leading: the watches, what changed since the
// last run, and the HEAD last seen. Its fields belong to the loop goroutine;
// a run goroutine gets a batch and reports back through a channel.
type session struct {
	w    *Watcher
	root string
	lock *watchLock
	repo *source.Repo // for its ignore rules (no content is read through it)
	fsw  *fsnotify.Watcher
	dirs map[string]bool // watched directories, relative to root ("" = root)
	git  *gitState       // nil for a plain directory
	pend pending

	failures int  // runs failed in a row (backoff); touched by the run goroutine only
	busy     bool // Busy was reported for the waiting batch
	gitWait  bool // take is waiting for a git command that holds index.lock
}

// pending is what changed since the last run started.
type pending struct {
	paths    map[string]bool // files (or paths of unknown kind) created, written, removed
	newDirs  map[string]bool // directories created: to watch and scan
	whole    string          // why the whole tree needs a run; "" when the paths do
	gitEvent bool            // something under .git changed: look at HEAD again
	resync   bool            // the ignore rules changed: watch again from scratch
	first    time.Time       // the first change not yet run
	last     time.Time       // the latest one
}

func newPending() pending {
	return pending{paths: map[string]bool{}, newDirs: map[string]bool{}}
}

func (p *pending) touch() {
	p.last = time.Now()
	if p.first.IsZero() {
		p.first = p.last
	}
}

func (p *pending) setWhole(reason string) {
	p.touch()
	if p.whole == "" {
		p.whole = reason
	}
}

func (p *pending) any() bool {
	return len(p.paths) > 0 || len(p.newDirs) > 0 || p.whole != "" || p.gitEvent || p.resync
}

// merge puts back a batch that could not run.
func (p *pending) merge(b batch) {
	if b.whole != "" {
		p.setWhole(b.whole)
	}
	for _, path := range b.paths {
		p.touch()
		p.paths[path] = true
	}
}

// batch is one run's worth of changes.
type batch struct {
	whole string   // a run of the whole tree, for this reason; "" = over paths
	paths []string // sorted
}

func (b batch) empty() bool { return b.whole == "" && len(b.paths) == 0 }

func (b batch) reason() string {
	if b.whole != "" {
		return b.whole
	}
	const show = 3
	if len(b.paths) == 1 {
		return b.paths[0] + " changed"
	}
	if len(b.paths) <= show {
		return fmt.Sprintf("%d files changed: %s", len(b.paths), strings.Join(b.paths, ", "))
	}
	return fmt.Sprintf("%d files changed: %s, ...", len(b.paths), strings.Join(b.paths[:show], ", "))
}

// result is what a run goroutine reports back.
type result struct {
	retry time.Duration // > 0: put the batch back and try again after this
	err   error         // errLockLost: stop leading
}

func newSession(ctx context.Context, w *Watcher, root string, lk *watchLock) (*session, error) {
	repo, err := source.Open(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		repo.Close()
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	s := &session{w: w, root: root, lock: lk, repo: repo, fsw: fsw, dirs: map[string]bool{}, pend: newPending()}
	if repo.IsGit {
		if err := s.watchGit(ctx, repo); err != nil {
			s.close()
			return nil, err
		}
	}
	if _, err := s.addTree(ctx, []string{""}, false); err != nil {
		s.close()
		return nil, err
	}
	// Whatever changed while nobody watched: one incremental run catches up.
	s.pend.setWhole("start")
	return s, nil
}

func (s *session) close() {
	_ = s.fsw.Close()
	_ = s.repo.Close()
}

// loop reads events, debounces them into batches and runs one batch at a
// time in a goroutine of its own, so events keep being read during a run.
func (s *session) loop(ctx context.Context) error {
	timer := time.NewTimer(0) // the catch-up run
	defer timer.Stop()
	var done chan result
	var running batch
	for {
		select {
		case <-ctx.Done():
			if done != nil {
				<-done
			}
			return ctx.Err()
		case ev, ok := <-s.fsw.Events:
			if !ok {
				return fmt.Errorf("watch %s: the event stream closed", s.root)
			}
			if s.onEvent(ev) && done == nil {
				s.arm(timer)
			}
		case err, ok := <-s.fsw.Errors:
			if !ok {
				return fmt.Errorf("watch %s: the event stream closed", s.root)
			}
			s.onError(err)
			if done == nil {
				s.arm(timer)
			}
		case <-timer.C:
			if done != nil {
				continue
			}
			b, wait, err := s.take(ctx)
			if err != nil {
				return err
			}
			if wait > 0 {
				timer.Reset(wait)
				continue
			}
			if b.empty() {
				continue
			}
			done, running = make(chan result, 1), b
			go func() { done <- s.execute(ctx, b) }()
		case res := <-done:
			done = nil
			if res.err != nil {
				return res.err
			}
			if res.retry > 0 {
				s.pend.merge(running)
				timer.Reset(res.retry)
				continue
			}
			if s.pend.any() {
				s.arm(timer)
			}
		}
	}
}

// arm (re)starts the debounce: the quiet time after the latest change, but
// never later than MaxDelay after the first change still waiting (except
// while a git command holds the tree: then take looks again every Debounce).
func (s *session) arm(timer *time.Timer) {
	d := s.w.opts.Debounce
	if !s.pend.first.IsZero() && !s.gitWait {
		if left := time.Until(s.pend.first.Add(s.w.opts.MaxDelay)); left < d {
			d = max(left, 0)
		}
	}
	timer.Reset(d)
}

// take turns what is pending into a batch, or asks to wait (a git command is
// rewriting the tree). It looks at HEAD, watches and scans new directories
// and drops ignored paths first. New directories are watched also while it
// waits: a checkout writes most of its files into directories it creates, and
// without their watches the tree would look quiet.
func (s *session) take(ctx context.Context) (batch, time.Duration, error) {
	p := &s.pend
	if p.gitEvent {
		p.gitEvent = false
		if err := s.refreshHead(ctx); err != nil {
			s.warn(err)
		}
	}
	if len(p.newDirs) > 0 {
		files, err := s.addTree(ctx, sortedKeys(p.newDirs), true)
		if err != nil {
			return batch{}, 0, err
		}
		for _, f := range files {
			p.paths[f] = true
		}
		clear(p.newDirs)
	}
	s.gitWait = s.git != nil && p.any() && gitBusy(s.git.gitDir) && time.Since(p.last) < s.w.opts.gitQuiet
	if s.gitWait {
		return batch{}, s.w.opts.Debounce, nil
	}
	if p.resync {
		p.resync = false
		if err := s.resync(ctx); err != nil {
			return batch{}, 0, err
		}
	}
	b := batch{whole: p.whole}
	if b.whole == "" && len(p.paths) > 0 {
		b.paths = s.unignored(ctx, sortedKeys(p.paths))
		if len(b.paths) > s.w.opts.MaxPaths {
			b = batch{whole: fmt.Sprintf("%d files changed", len(b.paths))}
		}
	}
	s.pend = newPending()
	return b, 0, nil
}

// unignored drops the paths the ignore rules leave out (a log file, a build
// output): they would cost a run that changes nothing. When the rules cannot
// be read every path stays; the run itself decides then.
func (s *session) unignored(ctx context.Context, paths []string) []string {
	ig, err := s.repo.Ignored(ctx, paths)
	if err != nil {
		s.warn(err)
		return paths
	}
	out := paths[:0]
	for _, p := range paths {
		if !ig[p] {
			out = append(out, p)
		}
	}
	return out
}

// execute runs one batch: a run over its paths, or an incremental run of the
// whole tree (with the working tree when it differs from HEAD).
func (s *session) execute(ctx context.Context, b batch) result {
	if err := s.lock.alive(ctx); err != nil {
		return result{err: err}
	}
	opts := index.Options{NoWait: true, MaxFileBytes: s.w.opts.MaxFileBytes, Paths: b.paths}
	if b.whole != "" {
		opts.WorkingTree = s.needsWorkingTree(ctx)
	}
	ev := Event{Root: s.root, Reason: b.reason(), Paths: b.paths}
	if !s.busy {
		ev.Kind = Indexing
		s.w.emit(ev)
	}
	start := time.Now()
	sum, err := index.New(s.w.db, s.w.emb).Index(ctx, s.root, opts)
	switch {
	case errors.Is(err, index.ErrBusy):
		if !s.busy {
			s.busy = true
			ev.Kind = Busy
			s.w.emit(ev)
		}
		return result{retry: s.w.opts.BusyRetry}
	case ctx.Err() != nil:
		return result{}
	}
	s.busy = false
	ev.Kind, ev.Summary, ev.Duration, ev.Err = Indexed, sum, time.Since(start), err
	s.w.emit(ev)
	if err != nil {
		s.failures++
		return result{retry: min(time.Second<<min(s.failures, 6), time.Minute)}
	}
	s.failures = 0
	return result{}
}

// needsWorkingTree tells whether a run of the whole tree must index the
// working tree: when it has uncommitted changes (or git cannot tell, or there
// is no commit). A clean tree is indexed at HEAD, which records the index as
// exactly HEAD's and lists files from git instead of hashing every one.
func (s *session) needsWorkingTree(ctx context.Context) bool {
	repo, err := source.Open(ctx, s.root)
	if err != nil {
		return true
	}
	defer repo.Close()
	if !repo.IsGit || repo.Head == "" {
		return true
	}
	dirty, err := repo.Dirty(ctx)
	return err != nil || dirty
}

func (s *session) warn(err error) {
	s.w.emit(Event{Kind: Warning, Root: s.root, Err: err})
}

// onError handles an error of the event stream. An overflow of the kernel's
// queue means events were lost: only a run of the whole tree is sure to see
// what they said, and the directories created meanwhile are found by
// watching the tree again.
func (s *session) onError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		s.pend.setWhole("too many changes at once for the event queue")
		s.pend.resync = true
		return
	}
	s.warn(fmt.Errorf("watch %s: %w", s.root, err))
}

// gitBusy reports whether a git command holds the index lock, as a checkout,
// merge or rebase does while it rewrites files.
func gitBusy(gitDir string) bool {
	_, err := os.Stat(filepath.Join(gitDir, "index.lock"))
	return err == nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
