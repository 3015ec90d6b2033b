package main

// spelunk sync status|now and the memory edge cache (issue 16): a SQLite file per
// machine, database and project that serves memory reads and queues writes.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// refreshTimeout bounds the freshness check a command makes before reading the
// cache: an unreachable core must not hold a local read up for long.
const refreshTimeout = 3 * time.Second

// cacheFile is the cache of the project at root: --cache / $SPELUNK_CACHE, else,
// for a database given by URL (--db or $SPELUNK_DATABASE_URL), the default file
// of that database, tenant and project (memcache.DefaultPath). "" means no
// cache: --cache off, or the embedded cluster on this machine, which needs none.
// The CLI, the TUI and spelunk mcp all take their cache from here.
func cacheFile(g *globals, root string) (string, error) {
	switch g.cache {
	case "off":
		return "", nil
	case "":
	default:
		return g.cache, nil
	}
	url := g.db
	if url == "" {
		url = os.Getenv("SPELUNK_DATABASE_URL")
	}
	if url == "" {
		return "", nil
	}
	return memcache.DefaultPath(url, g.tenant, root)
}

// cacheSession is an open cache and, when reachable, its core.
type cacheSession struct {
	cache *memcache.Cache
	core  *memcache.Core // nil offline or when the core is unreachable
	// coreErr is why there is no core ("" with --offline).
	coreErr error
}

func (s *cacheSession) close() {
	s.cache.Close()
	if s.core != nil {
		s.core.DB.Close()
	}
}

// openCache opens the project's cache ("", nil when none is configured) and,
// unless offline, its core. An unreachable core is not an error: the cache
// serves, and the writes stay queued.
func openCache(cmd *cobra.Command, g *globals, embedder bool) (*cacheSession, error) {
	ctx := cmd.Context()
	root, err := repoRoot(ctx, g)
	if err != nil {
		return nil, err
	}
	path, err := cacheFile(g, root)
	if err != nil || path == "" {
		if err == nil && g.offline {
			err = usagef("--offline needs a cache: give --cache FILE, or a --db URL (the embedded cluster has none)")
		}
		return nil, err
	}
	var emb memory.Embedder
	if embedder {
		if emb, _, err = g.embed.embedder(); err != nil {
			return nil, err
		}
	}
	c, err := memcache.Open(ctx, memcache.Options{Path: path, Embedder: emb})
	if err != nil {
		return nil, err
	}
	s := &cacheSession{cache: c}
	if g.offline {
		return s, nil
	}
	octx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	db, err := openDB(octx, g)
	if err != nil {
		s.coreErr = err
		return s, nil
	}
	repo, err := db.EnsureRepository(octx, root)
	if err != nil {
		db.Close()
		s.coreErr = err
		return s, nil
	}
	s.core = &memcache.Core{DB: db, Store: memory.New(db, repo.ID, g.memOptions(emb))}
	return s, nil
}

// refresh brings the cache up to date with the core before a read (watermarks
// compared, the difference pulled, the queue pushed), within refreshTimeout.
func (s *cacheSession) refresh(ctx context.Context, stderr io.Writer) {
	if s.core == nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	r, err := s.cache.Refresh(rctx, *s.core)
	switch {
	case err != nil:
		s.coreErr = err
	case r.LastError != "":
		s.coreErr = errors.New(r.LastError)
	}
	if s.coreErr != nil {
		fmt.Fprintf(stderr, "note: served from the local cache; the core is unreachable: %s\n", pg.RedactText(s.coreErr.Error()))
	}
	if r.Queued > 0 {
		fmt.Fprintf(stderr, "note: %d writes queued for the core\n", r.Queued)
	}
}

func newSyncCmd(g *globals) *cobra.Command {
	group := &cobra.Command{
		Use:   "sync",
		Short: "The local memory cache: its state (status) and a sync with the core (now)",
		Long: "With a database given by URL, memory reads are served from a local SQLite cache and writes are\n" +
			"queued there and pushed to the core in order. --cache FILE / $SPELUNK_CACHE picks the file,\n" +
			"--cache off disables it; --offline serves from the cache only.",
	}
	status := &cobra.Command{
		Use: "status", Short: "Cache file, last pull watermark, queued writes, last error", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if root, err := repoRoot(cmd.Context(), g); err != nil {
				return err
			} else if path, err := cacheFile(g, root); err != nil || path == "" {
				return cmp.Or(err, noCache(g))
			}
			offline := g.offline
			g.offline = true // status reads the file only
			defer func() { g.offline = offline }()
			return runSync(cmd, g, false)
		},
	}
	now := &cobra.Command{
		Use: "now", Short: "Push the queued writes, then pull what changed on the core", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.offline {
				return usagef("sync now cannot run --offline")
			}
			return runSync(cmd, g, true)
		},
	}
	return cmdGroup(group, status, now)
}

// noCache says why no cache is configured.
func noCache(g *globals) error {
	if g.cache == "off" {
		return usagef("no cache: --cache off disables it")
	}
	return usagef("no cache: the embedded cluster needs none; give --cache FILE or a --db URL")
}

func runSync(cmd *cobra.Command, g *globals, sync bool) error {
	s, err := openCache(cmd, g, true)
	if err != nil {
		return err
	}
	if s == nil {
		return noCache(g)
	}
	defer s.close()
	ctx := cmd.Context()
	var r memcache.Report
	var syncErr error
	switch {
	case !sync:
		r, err = s.cache.Status(ctx)
	case s.core == nil:
		r, err = s.cache.Status(ctx)
		syncErr = fmt.Errorf("core unreachable: %w", s.coreErr)
	default:
		r, syncErr = s.cache.Sync(ctx, *s.core)
	}
	if err != nil {
		return err
	}
	if g.json {
		if err := memJSON(cmd.OutOrStdout(), r); err != nil {
			return err
		}
		return syncErr
	}
	printReport(cmd.OutOrStdout(), r, sync)
	if syncErr == nil && sync {
		s.indexDelta(ctx, cmd.ErrOrStderr())
	}
	return syncErr
}

// indexDelta moves the vectors the push stored unindexed into the HNSW index
// (memory.Store.IndexDelta) after the command's answer is out. A failure is a
// note: unindexed vectors are still found, by an exact scan of them.
func (s *cacheSession) indexDelta(ctx context.Context, stderr io.Writer) {
	if s.core == nil {
		return
	}
	if _, err := s.core.Store.IndexDelta(ctx); err != nil {
		fmt.Fprintf(stderr, "note: %s\n", pg.RedactText(err.Error()))
	}
}

func printReport(w io.Writer, r memcache.Report, sync bool) {
	wm := "never pulled"
	if !r.Watermark.IsZero() {
		wm = memTime(r.Watermark)
	}
	fmt.Fprintf(w, "cache:      %s\nwatermark:  %s\nmemories:   %d cached\nqueued:     %d writes queued", r.Path, wm, r.Memories, r.Queued)
	if r.Dead > 0 {
		fmt.Fprintf(w, " (%d refused by the core)", r.Dead)
	}
	fmt.Fprintln(w)
	if r.CoreModel != "" {
		fmt.Fprintf(w, "embedder:   %s (the core's)\n", r.CoreModel)
	}
	if r.LastError != "" {
		fmt.Fprintf(w, "last error: %s\n", pg.RedactText(r.LastError))
	}
	if sync {
		fmt.Fprintf(w, "pushed %d, pulled %d\n", r.Pushed, r.Pulled)
	}
}

// withCache runs fn on the project's cache when one is configured and reports
// whether it did. A read is brought up to date first; a write is queued by fn
// and pushed after it (it stays queued when the core is unreachable).
func withCache(cmd *cobra.Command, g *globals, write bool, fn func(context.Context, *memcache.Cache) error) (bool, error) {
	s, err := openCache(cmd, g, write)
	if err != nil || s == nil {
		return false, err
	}
	defer s.close()
	if !write {
		s.refresh(cmd.Context(), cmd.ErrOrStderr())
		return true, fn(cmd.Context(), s.cache)
	}
	if err := fn(cmd.Context(), s.cache); err != nil {
		return true, err
	}
	s.refresh(cmd.Context(), cmd.ErrOrStderr())
	return true, nil
}

// cacheShow is memShow served by the cache when one is configured.
func cacheShow[T any](cmd *cobra.Command, g *globals, write bool, viaCache func(context.Context, *memcache.Cache) (T, error),
	viaCore func(context.Context, *memory.Store) (T, error), text func(io.Writer, T)) error {
	var v T
	used, err := withCache(cmd, g, write, func(ctx context.Context, c *memcache.Cache) error {
		var err error
		v, err = viaCache(ctx, c)
		return err
	})
	if !used && err == nil {
		return memShow(cmd, g, viaCore, text)
	}
	if err != nil {
		return err
	}
	return printOne(cmd, g, v, text)
}

// cacheAdd records a memory through the cache when one is configured: queued,
// pushed at once when the core is reachable (which runs its conflict check), and
// printed with the status the cache then holds.
func cacheAdd(cmd *cobra.Command, g *globals, in memory.NewMemory) (bool, error) {
	var m memory.Memory
	var conflict *string
	var queued int
	used, err := withCache(cmd, g, true, func(ctx context.Context, c *memcache.Cache) error {
		var err error
		m, err = c.Add(ctx, in)
		return err
	})
	if !used || err != nil {
		return used, err
	}
	// Read back what the push and pull left (status, conflict), from the file.
	_, err = withCache(cmd, g, false, func(ctx context.Context, c *memcache.Cache) error {
		if got, err := c.Memory(ctx, m.ID); err == nil {
			m = got
		}
		ks, err := c.Conflicts(ctx, memory.ConflictOpen)
		for _, k := range ks {
			if slices.Contains(k.MemoryIDs, m.ID) {
				conflict = &k.ID
			}
		}
		r, _ := c.Status(ctx)
		queued = r.Queued
		return err
	})
	if err != nil {
		return true, err
	}
	out := cmd.OutOrStdout()
	if g.json {
		return true, memJSON(out, struct {
			ID         string        `json:"id"`
			Status     memory.Status `json:"status"`
			ConflictID *string       `json:"conflict_id"`
			Queued     int           `json:"queued"`
		}{m.ID, m.Status, conflict, queued})
	}
	fmt.Fprintln(out, m.ID)
	switch {
	case conflict != nil:
		fmt.Fprintf(out, "DISPUTED: conflict %s\nresolve with: spelunk conflicts show %s\n", *conflict, memShortID(*conflict))
	case queued > 0:
		fmt.Fprintf(out, "queued: %d writes wait for the core (spelunk sync now)\n", queued)
	}
	return true, nil
}
