package memcache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// DefaultTick is how often a long-lived client's background loop looks at its
// queue (pushed whenever it is not empty) and at the TTL (pulled once it passed).
const DefaultTick = 15 * time.Second

// inlineTimeout bounds the push a write makes at once: an unreachable core must
// not hold an agent's write up for long (it stays queued for the next tick).
const inlineTimeout = 3 * time.Second

// Client serves the memory operations of one long-lived process (the TUI, the
// MCP server) from a cache, with the method set of memory.Store: reads are
// local, writes are queued and pushed at once when the core is reachable (so
// that the core's conflict check answers the write), else by the background
// loop. A Client without a core (--offline) only queues.
type Client struct {
	cache *Cache
	core  *Core

	mu       sync.Mutex
	failedAt time.Time // the last failed sync: inline pushes wait for the loop until one succeeds
}

// NewClient serves from c and syncs with core (nil: offline).
func NewClient(c *Cache, core *Core) *Client { return &Client{cache: c, core: core} }

// Cache is the client's cache.
func (cl *Client) Cache() *Cache { return cl.cache }

// Start is what a long-lived client does before serving: it pulls the
// difference from the core (within timeout), then keeps the cache in step in the
// background every tick (the TTL decides when to pull) until the returned stop
// is called, which waits for the loop to end.
func (cl *Client) Start(ctx context.Context, timeout, tick time.Duration) (stop func()) {
	if cl.core == nil {
		return func() {}
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	r, err := cl.cache.Refresh(rctx, *cl.core)
	cancel()
	cl.note(err == nil && r.LastError == "")
	lctx, cancelLoop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cl.cache.Run(lctx, *cl.core, tick, cl.note)
	}()
	return func() { cancelLoop(); <-done }
}

// note records the outcome of a sync.
func (cl *Client) note(ok bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if ok {
		cl.failedAt = time.Time{}
	} else {
		cl.failedAt = time.Now()
	}
}

// pushNow syncs after a write, unless there is no core or the last sync failed
// (the background loop retries; a write never waits for a core known down).
func (cl *Client) pushNow(ctx context.Context) {
	cl.mu.Lock()
	down := !cl.failedAt.IsZero()
	cl.mu.Unlock()
	if cl.core == nil || down {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, inlineTimeout)
	defer cancel()
	_, err := cl.cache.Sync(sctx, *cl.core)
	cl.note(err == nil)
}

// Add records a memory in the cache and pushes it; it answers with the status
// and the open conflict the cache then holds, and the parents the core's check
// corrected. While the write waits for the core (Queued) the status is the
// cache's (PENDING_EMBEDDING, or ACTIVE with the core's embedder here), there
// is no conflict yet, and Corrected is the cached parents the core's judge (or,
// with no core, the built-in one) finds contradicted, as the core will check
// them at sync.
func (cl *Client) Add(ctx context.Context, in memory.NewMemory) (memory.Added, error) {
	m, err := cl.cache.Add(ctx, in)
	if err != nil {
		return memory.Added{}, err
	}
	cl.pushNow(ctx)
	out := memory.Added{Memory: m}
	if got, err := cl.cache.Memory(ctx, m.ID); err == nil {
		out.Memory = got
	}
	ks, err := cl.cache.Conflicts(ctx, memory.ConflictOpen)
	if err != nil {
		return out, err
	}
	for _, k := range ks {
		if slices.Contains(k.MemoryIDs, m.ID) {
			out.ConflictID = k.ID
		}
	}
	if out.Queued, err = cl.cache.queuedWrite(ctx, m.ID); err != nil || !out.Queued {
		if a, ok := cl.cache.takeAdded(m.ID); ok {
			out.Corrected = a.Corrected
		}
		return out, err
	}
	out.Corrected, err = cl.localCorrections(ctx, m)
	return out, err
}

// localCorrections is the core's correction check (a parent that is live and
// contradicted is corrected) run on the cached parents of a queued memory.
// A parent not in the cache cannot be judged here; the core judges it at sync.
func (cl *Client) localCorrections(ctx context.Context, m memory.Memory) ([]string, error) {
	var judge memory.Judge = memory.HeuristicJudge{}
	if cl.core != nil {
		judge = cl.core.Store.Judge()
	}
	var out []string
	for _, ref := range m.ParentIDs {
		p, err := cl.memory(ctx, ref)
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("check parent %s: %w", ref, err)
		}
		if p.Status != memory.StatusActive && p.Status != memory.StatusDisputed && p.Status != memory.StatusNeedsReview {
			continue
		}
		v, err := judge.Judge(ctx, memory.Claim{Kind: m.Kind, Text: m.Content}, memory.Claim{Kind: p.Kind, Text: p.Content})
		if err != nil {
			return nil, fmt.Errorf("judge %s against parent %s: %w", m.ID, p.ID, err)
		}
		if v.Contradicts && !slices.Contains(out, p.ID) {
			out = append(out, p.ID)
		}
	}
	return out, nil
}

// Search is the cache's recall in the shape of memory.Store.Search.
func (cl *Client) Search(ctx context.Context, query string, limit int) (memory.SearchResult, error) {
	ms, err := cl.cache.Recall(ctx, query, limit)
	if err != nil {
		return memory.SearchResult{}, err
	}
	out := memory.SearchResult{Query: query, Hits: make([]memory.Hit, 0, len(ms))}
	for _, m := range ms {
		h := memory.Hit{Memory: memory.Memory{ID: m.ID, Kind: m.Kind, Author: m.Author, Content: m.Content,
			Status: m.Status, CreatedAt: m.CreatedAt, Anchors: m.Anchors}, Score: m.Score}
		if m.Similarity != nil {
			h.Similarity, out.Dense = *m.Similarity, true
		}
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}

// Briefing is served from the cache.
func (cl *Client) Briefing(ctx context.Context, opts memory.BriefingOptions) (memory.Briefing, error) {
	return cl.cache.Briefing(ctx, opts)
}

// SetNugget writes the nugget in the cache and pushes it.
func (cl *Client) SetNugget(ctx context.Context, w memory.NuggetWrite) (memory.NuggetSet, error) {
	r, err := cl.cache.SetNugget(ctx, w)
	if err != nil {
		return r, err
	}
	cl.pushNow(ctx)
	return r, nil
}

// Invalidate tombstones a cached memory (id or unique prefix) and pushes it.
func (cl *Client) Invalidate(ctx context.Context, ref, actor, reason string) (memory.Memory, error) {
	m, err := cl.memory(ctx, ref)
	if err != nil {
		return memory.Memory{}, fmt.Errorf("invalidate %s: %w", ref, err)
	}
	if m.Status == memory.StatusInvalidated {
		return memory.Memory{}, fmt.Errorf("invalidate %s: %w", ref, memory.ErrAlreadyInvalidated)
	}
	if m.Status == memory.StatusDisputed && memory.IsAgent(actor) {
		return memory.Memory{}, fmt.Errorf("invalidate %s: %w", ref, memory.DisputedError(m.ID, "", "invalidate"))
	}
	if err := cl.cache.Invalidate(ctx, m.ID, actor, reason); err != nil {
		return memory.Memory{}, err
	}
	m.Status, m.StatusBy, m.StatusReason, m.TombstoneReason = memory.StatusInvalidated, actor, reason, reason
	cl.pushNow(ctx)
	return m, nil
}

// Supersede marks a cached memory as replaced by another (ids or unique
// prefixes) and pushes it.
func (cl *Client) Supersede(ctx context.Context, oldRef, newRef, actor, reason string) (memory.Memory, error) {
	old, err := cl.memory(ctx, oldRef)
	if err != nil {
		return memory.Memory{}, fmt.Errorf("supersede %s: %w", oldRef, err)
	}
	nw, err := cl.memory(ctx, newRef)
	if err != nil {
		return memory.Memory{}, fmt.Errorf("supersede %s by %s: %w", oldRef, newRef, err)
	}
	switch {
	case old.Status == memory.StatusDisputed && memory.IsAgent(actor):
		return memory.Memory{}, fmt.Errorf("supersede %s: %w", oldRef, memory.DisputedError(old.ID, "", "supersede"))
	case old.Status == memory.StatusSuperseded:
		return memory.Memory{}, fmt.Errorf("memory %s was superseded by %s: %w", old.ID, old.SupersededBy, memory.ErrAlreadySuperseded)
	case old.Status == memory.StatusInvalidated:
		return memory.Memory{}, fmt.Errorf("memory %s is invalidated: %w", old.ID, memory.ErrAlreadyInvalidated)
	case nw.Status == memory.StatusSuperseded || nw.Status == memory.StatusInvalidated:
		return memory.Memory{}, fmt.Errorf("memory %s is %s and cannot supersede another: %w", nw.ID, nw.Status, memory.ErrNotLive)
	}
	if reason == "" {
		reason = "superseded by " + nw.ID
	}
	if err := cl.cache.Supersede(ctx, old.ID, nw.ID, actor, reason); err != nil {
		return memory.Memory{}, err
	}
	old.Status, old.SupersededBy, old.StatusBy, old.StatusReason = memory.StatusSuperseded, nw.ID, actor, reason
	cl.pushNow(ctx)
	return old, nil
}

// Conflicts lists the cached conflicts.
func (cl *Client) Conflicts(ctx context.Context, status memory.ConflictStatus) ([]memory.Conflict, error) {
	return cl.cache.Conflicts(ctx, status)
}

// Conflict is a cached conflict (id or unique prefix) with the memories the
// cache holds of it (a resolution's superseded sides were evicted).
func (cl *Client) Conflict(ctx context.Context, ref string) (memory.ConflictDetail, error) {
	k, err := cl.cache.conflict(ctx, ref)
	if err != nil {
		return memory.ConflictDetail{}, err
	}
	d := memory.ConflictDetail{Conflict: k, Memories: []memory.Memory{}}
	for _, id := range k.MemoryIDs {
		m, err := cl.cache.Memory(ctx, id)
		if errors.Is(err, memory.ErrNotFound) {
			continue
		}
		if err != nil {
			return memory.ConflictDetail{}, err
		}
		d.Memories = append(d.Memories, m)
	}
	return d, nil
}

// Lineage is a cached memory with the ancestors the cache holds, nearest first
// (superseded ancestors were evicted: the core has the whole lineage).
func (cl *Client) Lineage(ctx context.Context, ref string) (memory.Lineage, error) {
	m, err := cl.memory(ctx, ref)
	if err != nil {
		return memory.Lineage{}, fmt.Errorf("lineage %s: %w", ref, err)
	}
	l := memory.Lineage{Memory: m, Ancestors: []memory.Ancestor{}, Successors: []memory.Memory{}, Children: []memory.Memory{}}
	seen := map[string]bool{m.ID: true}
	frontier := m.ParentIDs
	for depth := 1; len(frontier) > 0; depth++ {
		var next []string
		for _, id := range frontier {
			if seen[id] {
				continue
			}
			seen[id] = true
			a, err := cl.cache.Memory(ctx, id)
			if err != nil {
				continue // not cached
			}
			l.Ancestors = append(l.Ancestors, memory.Ancestor{Memory: a, Depth: depth})
			next = append(next, a.ParentIDs...)
		}
		frontier = next
	}
	return l, nil
}

// ErrNeedsCore is returned by a resolution while the core is unreachable: a
// person's decision on a conflict is taken against the core's rows, never
// queued blind.
var ErrNeedsCore = errors.New("resolving a conflict needs the core, which is unreachable (or --offline): try again once it is back (spelunk sync status shows the last error)")

// Resolve settles a conflict on the core (after pushing what is queued, so the
// core sees the writes made before it), then pulls the outcome.
func (cl *Client) Resolve(ctx context.Context, ref string, r memory.Resolution) (memory.Resolved, error) {
	var out memory.Resolved
	err := cl.onCore(ctx, func(s *memory.Store) error {
		var err error
		out, err = s.Resolve(ctx, ref, r)
		return err
	})
	return out, err
}

// Undo reverts a resolution on the core, then pulls the outcome.
func (cl *Client) Undo(ctx context.Context, ref, actor string) (memory.Conflict, error) {
	var out memory.Conflict
	err := cl.onCore(ctx, func(s *memory.Store) error {
		var err error
		out, err = s.Undo(ctx, ref, actor)
		return err
	})
	return out, err
}

func (cl *Client) onCore(ctx context.Context, fn func(*memory.Store) error) error {
	if cl.core == nil {
		return ErrNeedsCore
	}
	if _, err := cl.cache.Sync(ctx, *cl.core); err != nil {
		cl.note(false)
		return fmt.Errorf("%w: %w", ErrNeedsCore, err)
	}
	if err := fn(cl.core.Store); err != nil {
		return err
	}
	_, err := cl.cache.Sync(ctx, *cl.core)
	cl.note(err == nil)
	return nil // the resolution stands on the core; the next pull brings it if this one failed
}

// memory is a cached memory by id or unique prefix.
func (cl *Client) memory(ctx context.Context, ref string) (memory.Memory, error) {
	id, err := cl.cache.resolveRef(ctx, "memories", "memory", ref)
	if err != nil {
		return memory.Memory{}, err
	}
	return cl.cache.Memory(ctx, id)
}

// resolveRef turns a full id or a unique prefix into the id of a cached row of
// table (memories or conflicts).
func (c *Cache) resolveRef(ctx context.Context, table, what, ref string) (string, error) {
	ref, err := memory.NormID(ref)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	rows, err := c.db().QueryContext(ctx, `SELECT id FROM `+table+` WHERE id LIKE ? || '%' ORDER BY id LIMIT 2`, ref)
	if err != nil {
		return "", fmt.Errorf("look up %s %s: %w", what, ref, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("look up %s %s: %w", what, ref, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("look up %s %s: %w", what, ref, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%s %s (not in the local cache): %w", what, ref, memory.ErrNotFound)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%s %s matches several (%s): give more characters: %w", what, ref, strings.Join(ids, ", "), memory.ErrAmbiguous)
}

// conflict is one cached conflict by id or unique prefix.
func (c *Cache) conflict(ctx context.Context, ref string) (memory.Conflict, error) {
	id, err := c.resolveRef(ctx, "conflicts", "conflict", ref)
	if err != nil {
		return memory.Conflict{}, err
	}
	ks, err := c.Conflicts(ctx, "")
	if err != nil {
		return memory.Conflict{}, err
	}
	for _, k := range ks {
		if k.ID == id {
			return k, nil
		}
	}
	return memory.Conflict{}, fmt.Errorf("conflict %s: %w", ref, memory.ErrNotFound)
}
