package memcache

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Report is the outcome of a sync and what `spelunk sync status` shows.
type Report struct {
	Path string `json:"cache"`
	// Watermark is the newest core change the cache holds (zero before a pull).
	Watermark time.Time `json:"watermark"`
	LastPull  time.Time `json:"last_pull"`
	LastPush  time.Time `json:"last_push"`
	// Queued is how many writes wait for the core; Dead how many it refused.
	Queued    int    `json:"queued"`
	Dead      int    `json:"dead"`
	LastError string `json:"last_error"`
	// Pulled and Pushed count the rows of this sync (0 for a status).
	Pulled int `json:"pulled"`
	Pushed int `json:"pushed"`
	// CoreModel is the embedder of the core's vectors the cache holds.
	CoreModel string `json:"core_model,omitempty"`
	Memories  int    `json:"memories"`
}

// Sync pushes the write queue, then pulls what changed (so that the outcome of
// the core's conflict check on the pushed writes comes back at once). The error
// of a failed step is recorded as the cache's last error.
func (c *Cache) Sync(ctx context.Context, core Core) (Report, error) {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	if err := c.checkCore(ctx, core); err != nil {
		return Report{}, fmt.Errorf("sync: %w", err)
	}
	pushed, err := c.Push(ctx, core)
	if err == nil {
		c.noteMeta(ctx, metaLastPush, strconv.FormatInt(micros(c.opts.Now()), 10))
	}
	pulledN := 0
	if err == nil {
		pulledN, err = c.Pull(ctx, core)
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	c.noteMeta(ctx, metaLastError, msg)
	r, serr := c.Status(context.WithoutCancel(ctx))
	r.Pulled, r.Pushed = pulledN, pushed
	if err != nil {
		return r, fmt.Errorf("sync: %w", err)
	}
	return r, serr
}

// Refresh is what a client does when it starts: it compares the core's
// watermark with the cache's and pulls the difference when they differ, then
// pushes what is queued.
func (c *Cache) Refresh(ctx context.Context, core Core) (Report, error) {
	wm, err := CoreWatermark(ctx, core)
	if err != nil {
		c.noteMeta(ctx, metaLastError, err.Error())
		return c.Status(context.WithoutCancel(ctx))
	}
	local, err := getMetaInt(ctx, c.db(), metaWatermark)
	if err != nil {
		return Report{}, err
	}
	queued, err := c.count(ctx, `SELECT count(*) FROM queue WHERE dead = 0`)
	if err != nil {
		return Report{}, err
	}
	if micros(wm) == local && queued == 0 {
		c.noteMeta(ctx, metaLastPull, strconv.FormatInt(micros(c.opts.Now()), 10))
		c.noteMeta(ctx, metaLastError, "") // the core answered
		return c.Status(ctx)
	}
	return c.Sync(ctx, core)
}

// Stale reports whether the TTL has passed since the last pull.
func (c *Cache) Stale(ctx context.Context) bool {
	last, err := getMetaInt(ctx, c.db(), metaLastPull)
	return err != nil || c.opts.Now().Sub(fromMicros(last)) >= c.opts.TTL
}

// Run keeps the cache in step while a long-lived client (the TUI, the MCP
// server) runs: every tick it pushes what is queued and, once the TTL has
// passed, pulls. It returns when ctx ends. Errors are recorded, not returned;
// synced (when not nil) hears whether each sync it ran succeeded.
func (c *Cache) Run(ctx context.Context, core Core, tick time.Duration, synced func(ok bool)) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		queued, _ := c.count(ctx, `SELECT count(*) FROM queue WHERE dead = 0`)
		if queued > 0 || c.Stale(ctx) {
			_, err := c.Sync(ctx, core)
			if synced != nil && ctx.Err() == nil {
				synced(err == nil)
			}
			if err == nil {
				// The pushed runs' vectors into the HNSW index, here in the
				// loop, off every caller's path; an error leaves them
				// unindexed, which only costs reads an exact scan of them.
				_, _ = core.Store.IndexDelta(ctx)
			}
		}
	}
}

// Status reads the cache's sync state.
func (c *Cache) Status(ctx context.Context) (Report, error) {
	r := Report{Path: c.opts.Path}
	for _, f := range []struct {
		key string
		to  *time.Time
	}{{metaWatermark, &r.Watermark}, {metaLastPull, &r.LastPull}, {metaLastPush, &r.LastPush}} {
		n, err := getMetaInt(ctx, c.db(), f.key)
		if err != nil {
			return r, err
		}
		*f.to = fromMicros(n)
	}
	var err error
	if r.LastError, err = getMeta(ctx, c.db(), metaLastError); err != nil {
		return r, err
	}
	if r.CoreModel, err = getMeta(ctx, c.db(), metaCoreModel); err != nil {
		return r, err
	}
	if r.Queued, err = c.count(ctx, `SELECT count(*) FROM queue WHERE dead = 0`); err != nil {
		return r, err
	}
	if r.Dead, err = c.count(ctx, `SELECT count(*) FROM queue WHERE dead = 1`); err != nil {
		return r, err
	}
	r.Memories, err = c.count(ctx, `SELECT count(*) FROM memories`)
	return r, err
}

func (c *Cache) count(ctx context.Context, q string) (int, error) {
	var n int
	if err := c.db().QueryRowContext(ctx, q).Scan(&n); err != nil {
		return 0, fmt.Errorf("cache: count: %w", err)
	}
	return n, nil
}

// noteMeta records a sync fact, best effort (even when ctx has ended).
func (c *Cache) noteMeta(ctx context.Context, key, value string) {
	_ = setMeta(context.WithoutCancel(ctx), c.db(), key, value)
}

// checkCore ties the cache to the first project it synced with: a file given to
// another project (--cache FILE) would mix their memories.
func (c *Cache) checkCore(ctx context.Context, core Core) error {
	want := strconv.FormatInt(core.Store.Project(), 10)
	got, err := getMeta(ctx, c.db(), metaProject)
	if err != nil {
		return err
	}
	if got == "" {
		return setMeta(ctx, c.db(), metaProject, want)
	}
	if got != want {
		return fmt.Errorf("cache %s holds project %s, not %s: give each project its own --cache file", c.opts.Path, got, want)
	}
	return nil
}
