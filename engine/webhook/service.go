// Package webhook keeps a shared index up to date from push webhooks: one
// PostgreSQL, many developers, one server that follows the shared remote.
//
// A delivery (GitHub or GitLab) is verified before its body is read, reduced to
// a push of the branch the server's clone follows, and queued as a durable
// river job in PostgreSQL. The job fetches the branch into the clone, moves
// the clone to it and indexes it incrementally. Jobs retry with backoff, a
// delivery sent twice is queued once (river unique jobs on the delivery id),
// one job per repository runs at a time (a queue per repository with one
// worker, and one server per repository), and a job left running by a killed
// server is rescued and run again after a restart.
package webhook

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// Defaults of Config.
const (
	// DefaultJobTimeout bounds one index run: an incremental run takes seconds, a
	// first index of a large repository minutes.
	DefaultJobTimeout = 30 * time.Minute
	// DefaultMaxAttempts with river's attempt^4 s backoff keeps retrying for
	// about ten hours (a remote that is down for a night).
	DefaultMaxAttempts = 12
	// keepDone is how long finished jobs stay in river's table, and so how long a
	// redelivered delivery is recognised: longer than the 3 days (github.com) or
	// 7 days (GitHub Enterprise Server) within which a delivery can be redelivered.
	keepDone = 8 * 24 * time.Hour
)

// SecretEnv is the environment variable spelunk serve reads the secret from;
// the git processes of a job never see it.
const SecretEnv = "SPELUNK_WEBHOOK_SECRET"

// ErrBusy means another server already serves the repository.
var ErrBusy = errors.New("another spelunk serve is already serving this repository")

// Config configures a Service.
type Config struct {
	DB       *pg.DB // where the index is written (its tenant); river connects with DB.URL
	Embedder index.Embedder
	Dir      string // the server's clone of the shared remote (origin), on the branch to follow
	Secret   []byte // the webhook secret (GitHub HMAC key, GitLab token)
	Logger   *slog.Logger
	// JobTimeout bounds one attempt (default DefaultJobTimeout); a job still
	// running 15 minutes after it is rescued.
	JobTimeout time.Duration
	// MaxAttempts before a job is discarded (default DefaultMaxAttempts).
	MaxAttempts int
	// RetryDelay replaces river's exponential backoff with a fixed delay (tests).
	RetryDelay time.Duration
	// CatchUp queues one job at Start, for pushes made while no server was
	// listening: GitHub does not retry a failed delivery by itself.
	CatchUp bool
}

// Service is the webhook server's engine: the handler that queues pushes and
// the river client that works them.
type Service struct {
	cfg    Config
	clone  clone
	queue  string
	log    *slog.Logger
	pool   *pgxpool.Pool // river's, as the URL's user (river's tables are not under RLS)
	lock   *pgx.Conn     // holds the one-server-per-repository lock
	client *river.Client[pgx.Tx]
}

// New checks the clone, migrates river's schema, takes the repository's
// server lock and builds the river client. Start begins working jobs.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	c, err := openClone(ctx, cfg.Dir)
	if err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, clone: c, queue: queueName(cfg.DB.Tenant, c.root), log: cfg.Logger}
	if err := s.open(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (cfg *Config) fill() error {
	switch {
	case cfg.DB == nil || cfg.Embedder == nil:
		return errors.New("webhook: a database and an embedder are required")
	case len(cfg.Secret) == 0:
		return errors.New("webhook: the secret is empty: anyone could sign a delivery with it")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = DefaultJobTimeout
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	return nil
}

func (s *Service) open(ctx context.Context) error {
	pcfg, err := pgxpool.ParseConfig(s.cfg.DB.URL)
	if err != nil {
		return fmt.Errorf("webhook: database URL %s: %w", pg.RedactURL(s.cfg.DB.URL), err)
	}
	if pcfg.ConnConfig.ConnectTimeout == 0 {
		pcfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	// River holds one connection to LISTEN and uses a few more for fetching,
	// leader election and maintenance; deliveries insert on top of that.
	pcfg.MaxConns = max(pcfg.MaxConns, 8)
	if s.pool, err = pgxpool.NewWithConfig(ctx, pcfg); err != nil {
		return fmt.Errorf("webhook: open river's pool: %w", err)
	}
	if err := Migrate(ctx, s.pool); err != nil {
		return err
	}
	if s.lock, err = lockServer(ctx, s.cfg.DB.URL, s.cfg.DB.Tenant, s.clone.root); err != nil {
		return err
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &pushWorker{s: s}); err != nil {
		return fmt.Errorf("webhook: register the worker: %w", err)
	}
	s.client, err = river.NewClient(riverpgxv5.New(s.pool), &river.Config{
		Schema:  Schema,
		Queues:  map[string]river.QueueConfig{s.queue: {MaxWorkers: 1}},
		Workers: workers,
		// A job of a kind this binary has no worker for is left for one that has.
		FetchOnlyKnownKinds:         true,
		JobTimeout:                  s.cfg.JobTimeout,
		RescueStuckJobsAfter:        s.cfg.JobTimeout + 15*time.Minute,
		MaxAttempts:                 s.cfg.MaxAttempts,
		CompletedJobRetentionPeriod: keepDone,
		Logger:                      slog.New(minLevel{s.log.Handler(), slog.LevelWarn}),
	})
	if err != nil {
		return fmt.Errorf("webhook: river client: %w", err)
	}
	return nil
}

// queueName is one queue per repository and tenant: with one worker it runs
// the repository's jobs one at a time, and only the server of that clone
// works them.
func queueName(tenant, root string) string {
	h := sha256.Sum256([]byte(tenant + "\x00" + root))
	return "spelunk_push_" + hex.EncodeToString(h[:8])
}

// lockSpace is the first key of the server lock (two-key advisory locks never
// collide with one-key ones; engine/index uses another first key).
const lockSpace int32 = 0x5350_5742 // "SPWB"

// lockServer takes a session lock on (tenant, root) on a connection of its own,
// held while the server runs: two servers fetching into and resetting one clone
// would trip over each other.
func lockServer(ctx context.Context, url, tenant, root string) (*pgx.Conn, error) {
	conn, err := pg.ConnectOwner(ctx, url)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256([]byte(tenant + "\x00" + root))
	var got bool
	err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, lockSpace, int32(binary.BigEndian.Uint32(h[:4]))).Scan(&got)
	if err == nil && !got {
		err = fmt.Errorf("%s (tenant %s): %w", root, tenant, ErrBusy)
	}
	if err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("webhook: server lock: %w", err)
	}
	return conn, nil
}

// Handler serves POST /webhook (deliveries) and GET /healthz.
func (s *Service) Handler() http.Handler {
	h := &handler{secret: s.cfg.Secret, branch: s.clone.branch, enqueue: s.enqueue, log: s.log}
	return h.routes()
}

// Root is the clone's root: the repository key the index is written under.
func (s *Service) Root() string { return s.clone.root }

// Branch is the branch the index follows.
func (s *Service) Branch() string { return s.clone.branch }

// Queue is the river queue of this repository's jobs.
func (s *Service) Queue() string { return s.queue }

func (s *Service) enqueue(ctx context.Context, p Push) (enqueued, error) {
	branch, _ := p.Branch()
	return s.insert(ctx, PushArgs{Repository: s.clone.root, Tenant: s.cfg.DB.Tenant, Delivery: p.Delivery,
		Provider: string(p.Provider), Branch: branch, After: p.After, Source: p.Repository})
}

func (s *Service) insert(ctx context.Context, args PushArgs) (enqueued, error) {
	res, err := s.client.Insert(ctx, args, &river.InsertOpts{
		Queue: s.queue, MaxAttempts: s.cfg.MaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return enqueued{}, fmt.Errorf("queue the index job: %w", err)
	}
	return enqueued{JobID: res.Job.ID, Duplicate: res.UniqueSkippedAsDuplicate}, nil
}

// Start begins working jobs (and queues the catch-up job). Its context must
// outlive the server: cancelling it starts river's soft stop; call Stop instead.
func (s *Service) Start(ctx context.Context) error {
	if err := s.client.Start(ctx); err != nil {
		return fmt.Errorf("webhook: start river: %w", err)
	}
	if !s.cfg.CatchUp {
		return nil
	}
	q, err := s.insert(ctx, PushArgs{Repository: s.clone.root, Tenant: s.cfg.DB.Tenant,
		Delivery: "start:" + time.Now().UTC().Format(time.RFC3339Nano) + ":" + rand.Text()[:8],
		Provider: "start", Branch: s.clone.branch})
	if err != nil {
		return err
	}
	s.log.Info("webhook catch-up queued", slog.Int64("job", q.JobID), slog.String("branch", s.clone.branch))
	return nil
}

// Stop waits for the running job until ctx ends, then cancels it (it is
// retried on the next start: the index run resumes where it stopped).
func (s *Service) Stop(ctx context.Context) error {
	err := s.client.Stop(ctx)
	if err == nil {
		return nil
	}
	hard, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.client.StopAndCancel(hard); err != nil {
		return fmt.Errorf("webhook: stop river: %w", err)
	}
	return nil
}

// Close releases the server lock and river's pool. Stop first.
func (s *Service) Close() {
	if s.lock != nil {
		_ = s.lock.Close(context.Background())
		s.lock = nil
	}
	if s.pool != nil {
		s.pool.Close()
		s.pool = nil
	}
}

// minLevel drops river's records below a level: its info lines (leader
// elected, maintenance ran) would drown the one line per delivery.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(as), m.min}
}

func (m minLevel) WithGroup(g string) slog.Handler { return minLevel{m.Handler.WithGroup(g), m.min} }
