// Package memcache is the local edge of agent memory: a SQLite file per machine
// and database that serves briefing, recall, nuggets, state and the conflict list
// without a round trip, keeps accepting writes while PostgreSQL (the core) is
// unreachable, and syncs with the core: it pulls what changed past its watermark
// and pushes its write queue, in order and idempotently (every queued write has a
// client-generated id the core records).
//
// Only memories, nuggets, state and conflicts (with their resolutions) are
// cached; source code never is.
package memcache

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// DefaultTTL is how long a pulled cache is served as authoritative before the
// next pull.
const DefaultTTL = 5 * time.Minute

// DefaultMaxEpisodes bounds the synced episode records kept (LRU beyond it).
const DefaultMaxEpisodes = 50_000

// Options configure a Cache.
type Options struct {
	// Path is the SQLite file (created with its directory when missing).
	Path string
	// Embedder is the local embedder ("" model when nil). Its vectors are used
	// only when it is the one the core's vectors came from (embedding parity).
	Embedder memory.Embedder
	// TTL is the freshness window; 0 means DefaultTTL.
	TTL time.Duration
	// MaxEpisodes bounds the synced episodes kept; 0 means DefaultMaxEpisodes.
	MaxEpisodes int
	// HalfLife is the briefing's recency decay; 0 means memory.DefaultHalfLife.
	HalfLife time.Duration
	// Now is the clock (UTC timestamps of offline writes); nil means time.Now.
	Now func() time.Time
}

// Cache is one SQLite cache file. It is safe for concurrent use; syncs are
// serialised.
type Cache struct {
	handle atomic.Pointer[sql.DB] // swapped when the file at the path is replaced: file.go
	opts   Options

	// fileMu guards the file's identity: writes hold it shared from the
	// transaction to the check that the file is still the one at the path; a
	// reopen holds it alone.
	fileMu   sync.RWMutex
	file     os.FileInfo
	retired  []*sql.DB // the handles of files replaced, closed with the cache
	notesMu  sync.Mutex
	recovery []string

	syncMu  sync.Mutex
	vecs    vecIndex
	added   outcomes
	touched touches
}

// Open opens (creating when missing) the cache file in WAL mode.
func Open(ctx context.Context, opts Options) (*Cache, error) {
	if opts.Path == "" {
		return nil, errors.New("open cache: no path")
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MaxEpisodes <= 0 {
		opts.MaxEpisodes = DefaultMaxEpisodes
	}
	if opts.HalfLife <= 0 {
		opts.HalfLife = memory.DefaultHalfLife
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	c := &Cache{opts: opts}
	db, fi, note, err := openOrRecover(ctx, opts.Path, opts.Now())
	if err != nil {
		return nil, err
	}
	c.handle.Store(db)
	c.file = fi
	c.noteRecovery(note)
	return c, nil
}

// db is the handle of the file the cache holds open.
func (c *Cache) db() *sql.DB { return c.handle.Load() }

// DefaultPath is the cache file of a project (its root) of the database at
// dbURL for tenant: one file per machine, database and project, under the
// user's cache directory ($XDG_CACHE_HOME/spelunk/ on Linux). The names are
// hashes: the URL's password and the paths never appear in them.
func DefaultPath(dbURL, tenant, root string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	db := sha256.Sum256([]byte(pg.RedactURL(dbURL) + "\x00" + tenant))
	proj := sha256.Sum256([]byte(root))
	return filepath.Join(dir, "spelunk", hex.EncodeToString(db[:8]), hex.EncodeToString(proj[:8])+".db"), nil
}

// Close closes the file.
func (c *Cache) Close() error {
	_ = c.flushTouches(context.Background()) // the LRU order, best effort
	c.fileMu.Lock()
	for _, db := range c.retired {
		db.Close()
	}
	c.retired = nil
	c.fileMu.Unlock()
	return c.db().Close()
}

// Path is the cache file.
func (c *Cache) Path() string { return c.opts.Path }

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL,
	author TEXT NOT NULL,
	content TEXT NOT NULL,
	status TEXT NOT NULL,
	parent_ids TEXT NOT NULL DEFAULT '',
	superseded_by TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,   -- unix microseconds, UTC
	sync_at INTEGER NOT NULL DEFAULT 0,
	synced INTEGER NOT NULL DEFAULT 0, -- 0: written here, not yet on the core
	last_used INTEGER NOT NULL DEFAULT 0,
	model TEXT NOT NULL DEFAULT '',
	embedding BLOB
);
CREATE INDEX IF NOT EXISTS memories_recent ON memories (status, created_at DESC);
CREATE INDEX IF NOT EXISTS memories_lru ON memories (kind, synced, last_used);
CREATE TABLE IF NOT EXISTS nuggets (
	key TEXT PRIMARY KEY,
	value TEXT NOT NULL,
	author TEXT NOT NULL,
	updated_at INTEGER NOT NULL,
	deleted INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS nugget_history (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	key TEXT NOT NULL,
	value TEXT NOT NULL,
	author TEXT NOT NULL,
	written_at INTEGER NOT NULL,
	mutation_id TEXT UNIQUE
);
CREATE TABLE IF NOT EXISTS state (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	core_id INTEGER NOT NULL DEFAULT 0,
	summary TEXT NOT NULL,
	blockers TEXT NOT NULL,
	priorities TEXT NOT NULL,
	author TEXT NOT NULL,
	compiled_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS conflicts (
	id TEXT PRIMARY KEY,
	memory_ids TEXT NOT NULL,
	similarity REAL NOT NULL,
	reason TEXT NOT NULL,
	status TEXT NOT NULL,
	resolution TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS queue (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	id TEXT NOT NULL UNIQUE,
	op TEXT NOT NULL,
	payload TEXT NOT NULL,
	queued_at INTEGER NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	dead INTEGER NOT NULL DEFAULT 0,  -- refused by the core for good (invalid input)
	last_error TEXT NOT NULL DEFAULT ''
);`

// The meta keys.
const (
	metaWatermark = "watermark"  // unix micros of the newest core change pulled
	metaLastPull  = "last_pull"  // unix micros of the last successful pull (local clock)
	metaLastPush  = "last_push"  // unix micros of the last successful push
	metaLastError = "last_error" // the last sync error, "" after a clean sync
	metaCoreModel = "core_model" // the embedder of the core's vectors
	metaCoreDims  = "core_dims"
	metaProject   = "project" // the core's repository id the cache belongs to
)

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getMeta(ctx context.Context, q execer, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read cache meta %s: %w", key, err)
	}
	return v, nil
}

func setMeta(ctx context.Context, q execer, key, value string) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("write cache meta %s: %w", key, err)
	}
	return nil
}

func getMetaInt(ctx context.Context, q execer, key string) (int64, error) {
	v, err := getMeta(ctx, q, key)
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cache meta %s: %w", key, err)
	}
	return n, nil
}

func micros(t time.Time) int64 { return t.UTC().UnixMicro() }

func fromMicros(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMicro(n).UTC()
}

// newID returns a random (version 4) UUID: the client-generated id of a write.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// inTx runs fn in a SQLite transaction.
func (c *Cache) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return inTxOn(ctx, c.db(), fn)
}

// inTxOn runs fn in a transaction of db.
func inTxOn(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cache: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cache: commit: %w", err)
	}
	return nil
}
