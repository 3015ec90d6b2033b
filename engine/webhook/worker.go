package webhook

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/spelunkhq/spelunk/engine/index"
)

// PushArgs is the durable job: bring the index of one clone up to its branch
// on origin. Repository, tenant and delivery make its unique key, so a
// delivery sent twice (a redelivery, a forge's retry) is queued and indexed
// once.
type PushArgs struct {
	Repository string `json:"repository" river:"unique"` // the clone's root: the index's repository key
	Tenant     string `json:"tenant" river:"unique"`
	Delivery   string `json:"delivery" river:"unique"`
	Provider   string `json:"provider"`
	Branch     string `json:"branch"`
	After      string `json:"after,omitempty"`  // the commit the event announced ("" for a catch-up)
	Source     string `json:"source,omitempty"` // the repository as the event named it, for the log
}

// Kind names the job in river's tables.
func (PushArgs) Kind() string { return "spelunk_index_push" }

// pushWorker runs PushArgs jobs for the service's clone.
type pushWorker struct {
	river.WorkerDefaults[PushArgs]
	s *Service
}

// Work fetches the branch, moves the clone to its tip and indexes it. It indexes
// the tip, not the event's commit: when jobs run late or out of order (a retry
// after a newer push succeeded) the index still ends on the newest commit and
// never goes back to an older one. An error makes river retry with backoff;
// the index run itself is crash-safe, so a retry or a rescued job resumes
// without duplicates.
func (w *pushWorker) Work(ctx context.Context, job *river.Job[PushArgs]) error {
	s, a := w.s, job.Args
	if a.Repository != s.clone.root || a.Tenant != s.cfg.DB.Tenant {
		// Queues are per repository and tenant, so this is a bug or a hand-made job.
		return river.JobCancel(fmt.Errorf("job for %s (tenant %s) reached the server of %s (tenant %s)",
			a.Repository, a.Tenant, s.clone.root, s.cfg.DB.Tenant))
	}
	start := time.Now()
	attrs := []slog.Attr{slog.Int64("job", job.ID), slog.Int("attempt", job.Attempt),
		slog.String("delivery", a.Delivery), slog.String("branch", a.Branch)}
	sum, tip, err := w.index(ctx)
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
		if job.Attempt < job.MaxAttempts {
			attrs = append(attrs, slog.String("next", "retried with backoff"))
		} else {
			attrs = append(attrs, slog.String("next", "given up: the next push or restart indexes the branch"))
		}
		s.log.LogAttrs(ctx, slog.LevelWarn, "webhook index failed", attrs...)
		return err
	}
	attrs = append(attrs, slog.String("revision", tip), slog.Int("files_indexed", sum.FilesIndexed),
		slog.Int("files_deleted", sum.FilesDeleted), slog.Int("symbols", sum.Symbols),
		slog.Duration("took", time.Since(start).Round(time.Millisecond)))
	if a.After != "" && a.After != tip {
		attrs = append(attrs, slog.String("note", "the branch moved on since "+a.After+": indexed its newer tip"))
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "webhook indexed", attrs...)
	return nil
}

func (w *pushWorker) index(ctx context.Context) (index.Summary, string, error) {
	s := w.s
	tip, err := s.clone.fetch(ctx)
	if err != nil {
		return index.Summary{}, "", err
	}
	if err := s.clone.advance(ctx, tip); err != nil {
		return index.Summary{}, tip, err
	}
	sum, err := index.New(s.cfg.DB, s.cfg.Embedder).Index(ctx, s.clone.root, index.Options{})
	if err != nil {
		return sum, tip, fmt.Errorf("index %s at %s: %w", s.clone.root, tip, err)
	}
	if sum.Revision != tip {
		// Someone moved the clone between the checkout and the listing.
		return sum, tip, fmt.Errorf("index %s: indexed %s, but the branch is at %s: the clone changed under the job", s.clone.root, sum.Revision, tip)
	}
	return sum, tip, nil
}

// Timeout bounds one attempt; river rescues a job still marked running after
// RescueStuckJobsAfter (longer than this), e.g. when the server was killed.
func (w *pushWorker) Timeout(*river.Job[PushArgs]) time.Duration { return w.s.cfg.JobTimeout }

// NextRetry is river's exponential backoff unless the service has a fixed
// delay (tests).
func (w *pushWorker) NextRetry(*river.Job[PushArgs]) time.Time {
	if w.s.cfg.RetryDelay > 0 {
		return time.Now().Add(w.s.cfg.RetryDelay)
	}
	return time.Time{}
}
