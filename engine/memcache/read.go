package memcache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// liveSQL is the local filter of live memories.
const liveSQL = `status IN ('ACTIVE', 'DISPUTED', 'PENDING_EMBEDDING', 'NEEDS_REVIEW')`

// maxBriefing bounds a briefing's memories, as the core does.
const maxBriefing = 100

// Briefing is the core's briefing served from the cache: the most recent live
// memories (or, with a query and a local embedder that matches the core's, the
// most similar ones, by brute force over the cached vectors), the nuggets, the
// latest state and the number of open conflicts.
func (c *Cache) Briefing(ctx context.Context, opts memory.BriefingOptions) (memory.Briefing, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = 10
	}
	limit = min(limit, maxBriefing)
	b := memory.Briefing{Query: opts.Query, Ranking: "recent"}
	var qv []float32
	if opts.Query != "" {
		var err error
		if qv, _, err = c.localVector(ctx, opts.Query); err != nil {
			return memory.Briefing{}, fmt.Errorf("briefing: %w", err)
		}
	}
	var err error
	if qv != nil {
		b.Ranking = "similarity"
		b.Memories, err = c.similar(ctx, qv, limit)
	} else {
		b.Memories, err = c.recent(ctx, limit)
	}
	if err != nil {
		return memory.Briefing{}, fmt.Errorf("briefing: %w", err)
	}
	if b.Nuggets, err = c.Nuggets(ctx); err != nil {
		return memory.Briefing{}, fmt.Errorf("briefing: %w", err)
	}
	if st, err := c.LatestState(ctx); err == nil {
		b.State = &st
	} else if !errors.Is(err, memory.ErrNotFound) {
		return memory.Briefing{}, fmt.Errorf("briefing: %w", err)
	}
	if b.OpenConflicts, err = c.count(ctx, `SELECT count(*) FROM conflicts WHERE status = 'open'`); err != nil {
		return memory.Briefing{}, fmt.Errorf("briefing: %w", err)
	}
	if err := c.withAnchors(ctx, b.Memories); err != nil {
		return memory.Briefing{}, fmt.Errorf("briefing: %w", err)
	}
	c.touch(ctx, b.Memories)
	return b, nil
}

func (c *Cache) decay(created time.Time) float64 {
	return c.decayAt(c.opts.Now(), micros(created))
}

// decayAt is the recency decay at now of a memory created at createdMicros.
func (c *Cache) decayAt(now time.Time, createdMicros int64) float64 {
	age := float64(micros(now)-createdMicros) / 1e6
	return math.Pow(0.5, age/c.opts.HalfLife.Seconds())
}

func (c *Cache) recent(ctx context.Context, limit int) ([]memory.BriefMemory, error) {
	out, err := c.newest(ctx, liveSQL, nil, limit)
	if err != nil {
		return nil, fmt.Errorf("recent memories: %w", err)
	}
	return out, nil
}

// newest lists the memories matching where (with args), newest first, scored
// by their decay alone.
func (c *Cache) newest(ctx context.Context, where string, args []any, limit int) ([]memory.BriefMemory, error) {
	rows, err := c.db().QueryContext(ctx, `SELECT id, kind, author, content, status, created_at FROM memories
		WHERE `+where+` ORDER BY created_at DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []memory.BriefMemory{}
	for rows.Next() {
		var m memory.BriefMemory
		var at int64
		if err := rows.Scan(&m.ID, &m.Kind, &m.Author, &m.Content, &m.Status, &at); err != nil {
			return nil, err
		}
		m.CreatedAt = fromMicros(at)
		m.Decay = c.decay(m.CreatedAt)
		m.Score = m.Decay
		out = append(out, m)
	}
	return out, rows.Err()
}

// Recall is a local memory search: by vector similarity when the local embedder
// matches the core's, otherwise every query word (case-insensitive) must occur.
func (c *Cache) Recall(ctx context.Context, query string, limit int) ([]memory.BriefMemory, error) {
	if limit <= 0 {
		limit = 10
	}
	qv, _, err := c.localVector(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	if qv != nil {
		ms, err := c.similar(ctx, qv, limit)
		if err == nil {
			err = c.withAnchors(ctx, ms)
		}
		c.touch(ctx, ms)
		return ms, err
	}
	where, args := []string{liveSQL}, []any{}
	for _, w := range strings.Fields(strings.ToLower(query)) {
		where = append(where, `instr(lower(content), ?) > 0`)
		args = append(args, w)
	}
	out, err := c.newest(ctx, strings.Join(where, " AND "), args, limit)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	if err := c.withAnchors(ctx, out); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	c.touch(ctx, out)
	return out, nil
}

// Memory is one cached memory by full id.
func (c *Cache) Memory(ctx context.Context, id string) (memory.Memory, error) {
	var m memory.Memory
	var parents string
	var at int64
	err := c.db().QueryRowContext(ctx, `SELECT id, kind, author, content, status, parent_ids, superseded_by, created_at
		FROM memories WHERE id = ?`, id).Scan(&m.ID, &m.Kind, &m.Author, &m.Content, &m.Status, &parents, &m.SupersededBy, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Memory{}, fmt.Errorf("memory %s: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return memory.Memory{}, fmt.Errorf("memory %s: %w", id, err)
	}
	m.ParentIDs = []string{}
	if parents != "" {
		m.ParentIDs = strings.Split(parents, ",")
	}
	m.CreatedAt = fromMicros(at)
	return m, nil
}

// Nuggets lists the cached nuggets by key.
func (c *Cache) Nuggets(ctx context.Context) ([]memory.Nugget, error) {
	rows, err := c.db().QueryContext(ctx, `SELECT key, value, author, updated_at FROM nuggets WHERE deleted = 0 ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("list nuggets: %w", err)
	}
	defer rows.Close()
	out := []memory.Nugget{}
	for rows.Next() {
		var n memory.Nugget
		var at int64
		if err := rows.Scan(&n.Key, &n.Value, &n.Author, &at); err != nil {
			return nil, fmt.Errorf("list nuggets: %w", err)
		}
		n.UpdatedAt = fromMicros(at)
		out = append(out, n)
	}
	return out, rows.Err()
}

// Nugget is one cached nugget.
func (c *Cache) Nugget(ctx context.Context, key string) (memory.Nugget, error) {
	n := memory.Nugget{Key: key}
	var at int64
	err := c.db().QueryRowContext(ctx, `SELECT value, author, updated_at FROM nuggets WHERE key = ? AND deleted = 0`, key).
		Scan(&n.Value, &n.Author, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Nugget{}, fmt.Errorf("nugget %s: %w", key, memory.ErrNotFound)
	}
	if err != nil {
		return memory.Nugget{}, fmt.Errorf("get nugget %s: %w", key, err)
	}
	n.UpdatedAt = fromMicros(at)
	return n, nil
}

// LatestState is the newest cached state compilation.
func (c *Cache) LatestState(ctx context.Context) (memory.State, error) {
	var st memory.State
	var b, p string
	var at int64
	err := c.db().QueryRowContext(ctx, `SELECT core_id, summary, blockers, priorities, author, compiled_at FROM state WHERE id = 1`).
		Scan(&st.ID, &st.Summary, &b, &p, &st.Author, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.State{}, fmt.Errorf("no state compiled yet: %w", memory.ErrNotFound)
	}
	if err != nil {
		return memory.State{}, fmt.Errorf("show state: %w", err)
	}
	_ = json.Unmarshal([]byte(b), &st.Blockers)
	_ = json.Unmarshal([]byte(p), &st.Priorities)
	st.CompiledAt = fromMicros(at)
	return st, nil
}

// Conflicts lists the cached conflicts with status ("" for all), oldest first.
func (c *Cache) Conflicts(ctx context.Context, status memory.ConflictStatus) ([]memory.Conflict, error) {
	rows, err := c.db().QueryContext(ctx, `SELECT id, memory_ids, similarity, reason, status, resolution, created_at
		FROM conflicts WHERE ? = '' OR status = ? ORDER BY created_at, id`, string(status), string(status))
	if err != nil {
		return nil, fmt.Errorf("list conflicts: %w", err)
	}
	defer rows.Close()
	out := []memory.Conflict{}
	for rows.Next() {
		var k memory.Conflict
		var ids string
		var at int64
		if err := rows.Scan(&k.ID, &ids, &k.Similarity, &k.Reason, &k.Status, &k.Resolution, &at); err != nil {
			return nil, fmt.Errorf("list conflicts: %w", err)
		}
		_ = json.Unmarshal([]byte(ids), &k.MemoryIDs)
		k.CreatedAt = fromMicros(at)
		out = append(out, k)
	}
	return out, rows.Err()
}

// touch marks memories as just used (the LRU order of pruning). The marks are
// kept in memory and written in one transaction before a prune reads them (or
// once many wait, or at Close): a write per read was most of a local read's
// wall time, and every write grows the WAL that a checkpoint then copies.
func (c *Cache) touch(ctx context.Context, ms []memory.BriefMemory) {
	if len(ms) == 0 {
		return
	}
	now := micros(c.opts.Now())
	t := &c.touched
	t.mu.Lock()
	if t.at == nil {
		t.at = map[string]int64{}
	}
	for _, m := range ms {
		t.at[m.ID] = now
	}
	full := len(t.at) >= maxTouched
	t.mu.Unlock()
	if full {
		_ = c.flushTouches(ctx) // best effort, as the marks always were
	}
}

// maxTouched is how many LRU marks wait in memory before they are written.
const maxTouched = 4096

// touches are LRU marks not yet written: memory id -> last use.
type touches struct {
	mu sync.Mutex
	at map[string]int64
}

// flushTouches writes the waiting LRU marks.
func (c *Cache) flushTouches(ctx context.Context) error {
	t := &c.touched
	t.mu.Lock()
	at := t.at
	t.at = nil
	t.mu.Unlock()
	if len(at) == 0 {
		return nil
	}
	return c.inTx(ctx, func(tx *sql.Tx) error {
		for id, used := range at {
			if _, err := tx.ExecContext(ctx, `UPDATE memories SET last_used = max(last_used, ?) WHERE id = ?`, used, id); err != nil {
				return fmt.Errorf("cache: mark used: %w", err)
			}
		}
		return nil
	})
}

// prune keeps at most MaxEpisodes synced episodes, dropping the least recently
// used. Facts, decisions and rules are never pruned, nor is an unsynced write.
func (c *Cache) prune(ctx context.Context) error {
	if err := c.flushTouches(ctx); err != nil {
		return fmt.Errorf("prune cache: %w", err)
	}
	n, err := c.count(ctx, `SELECT count(*) FROM memories WHERE kind = 'episode' AND synced = 1`)
	if err != nil || n <= c.opts.MaxEpisodes {
		return err
	}
	defer c.vecs.invalidate()
	_, err = c.db().ExecContext(ctx, `DELETE FROM memories WHERE id IN (SELECT id FROM memories
		WHERE kind = 'episode' AND synced = 1 ORDER BY last_used, created_at LIMIT ?)`, n-c.opts.MaxEpisodes)
	if err != nil {
		return fmt.Errorf("prune cache: %w", err)
	}
	return nil
}
