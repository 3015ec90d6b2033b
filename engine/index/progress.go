package index

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/redact"
)

// progressTracker counts a run and reports snapshots, throttled.
type progressTracker struct {
	mu     sync.Mutex
	p      Progress
	main   string // the phase of the run's own steps
	beside string // what runs beside them (sideBuilds), "" when nothing

	reporting sync.Mutex // held while fn runs
	start     time.Time
	last      time.Time
	every     time.Duration
	fn        func(Progress)
}

func newProgressTracker(opts Options, start time.Time) *progressTracker {
	every := opts.ProgressEvery
	if every == 0 {
		every = 100 * time.Millisecond
	}
	return &progressTracker{start: start, every: every, fn: opts.Progress}
}

// update applies f and reports a snapshot when one is due (or forced). The
// callback is never run twice at once, though the pipeline, the embedder and
// the side builds all update, and each call gets the latest snapshot, so the
// snapshots it sees never go back.
func (t *progressTracker) update(force bool, f func(p *Progress)) {
	t.mu.Lock()
	f(&t.p)
	now := time.Now()
	t.p.Elapsed = now.Sub(t.start)
	report := t.fn != nil && (force || now.Sub(t.last) >= t.every)
	if report {
		t.last = now
	}
	t.mu.Unlock()
	if report {
		t.reporting.Lock()
		t.fn(t.snapshot())
		t.reporting.Unlock()
	}
}

func (t *progressTracker) phase(name string) {
	t.update(true, func(p *Progress) { t.main = name; p.Phase = t.phaseText() })
}

// besidePhase names the work running beside the phase ("" when it ends): the
// Phase reads "resolving; building the vector index".
func (t *progressTracker) besidePhase(name string) {
	t.update(true, func(p *Progress) { t.beside = name; p.Phase = t.phaseText() })
}

func (t *progressTracker) phaseText() string {
	if t.beside == "" || t.beside == t.main {
		return t.main // a bulk run's last step and its side build can both be "analyzing"
	}
	if t.main == "" {
		return t.beside
	}
	return t.main + "; " + t.beside
}

// restart counts elapsed time (and so rates) from now, after a wait for another run.
func (t *progressTracker) restart(now time.Time) {
	t.mu.Lock()
	t.start = now
	t.mu.Unlock()
}

func (t *progressTracker) setTotal(n int) { t.update(false, func(p *Progress) { p.FilesTotal = n }) }

func (t *progressTracker) fileDone(skipped bool, chunks int) {
	t.update(false, func(p *Progress) {
		if p.FilesDone == 0 {
			p.firstFile = time.Since(t.start) // the rate is measured from here: listing is not indexing
		}
		p.FilesDone++
		if skipped {
			p.FilesSkipped++
		}
		p.Chunks += chunks
	})
}

func (t *progressTracker) queued(n int) { t.update(false, func(p *Progress) { p.EmbedQueued += n }) }

func (t *progressTracker) embedded(n int) { t.update(false, func(p *Progress) { p.Embedded += n }) }

func (t *progressTracker) snapshot() Progress {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.p
}

func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// redactSecrets replaces secrets before anything is stored or embedded.
func redactSecrets(data []byte) ([]byte, int) {
	clean, findings := redact.Redact(data)
	return clean, len(findings)
}
