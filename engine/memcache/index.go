package memcache

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// vecIndex is the cached vectors of the live memories held in memory: a recall
// is a brute-force scan of one contiguous slice, loaded from the file on first
// use and dropped whenever a write or a pull changes the memories.
type vecIndex struct {
	mu      sync.Mutex
	loaded  bool
	dims    int
	ids     []string
	created []int64
	flat    []float32 // len(ids) * dims
}

func (x *vecIndex) invalidate() {
	x.mu.Lock()
	x.loaded, x.ids, x.created, x.flat = false, nil, nil, nil
	x.mu.Unlock()
}

func (c *Cache) loadIndex(ctx context.Context, dims int) error {
	x := &c.vecs
	if x.loaded && x.dims == dims {
		return nil
	}
	rows, err := c.db.QueryContext(ctx, `SELECT id, created_at, embedding FROM memories
		WHERE status IN ('ACTIVE', 'DISPUTED') AND embedding IS NOT NULL AND length(embedding) = ?`, 4*dims)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	defer rows.Close()
	x.ids, x.created, x.flat = x.ids[:0], x.created[:0], x.flat[:0]
	for rows.Next() {
		var id string
		var at int64
		var blob []byte
		if err := rows.Scan(&id, &at, &blob); err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		x.ids = append(x.ids, id)
		x.created = append(x.created, at)
		x.flat = append(x.flat, decodeVector(blob)...)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	x.loaded, x.dims = true, dims
	return nil
}

type scored struct {
	i          int
	sim, score float64
}

// similar ranks the live memories with a cached vector by similarity times
// recency decay, and loads the top limit.
func (c *Cache) similar(ctx context.Context, qv []float32, limit int) ([]memory.BriefMemory, error) {
	x := &c.vecs
	x.mu.Lock()
	if err := c.loadIndex(ctx, len(qv)); err != nil {
		x.mu.Unlock()
		return nil, fmt.Errorf("similar memories: %w", err)
	}
	d := x.dims
	now := c.opts.Now()
	top := make([]scored, 0, limit+1)
	for i := range x.ids {
		sim := dot(qv, x.flat[i*d:(i+1)*d])
		s := scored{i: i, sim: sim, score: sim * c.decayAt(now, x.created[i])}
		if len(top) == limit && !x.better(s, top[limit-1]) {
			continue
		}
		// Insertion into the short ranked list: limit is at most maxBriefing.
		k := sort.Search(len(top), func(j int) bool { return x.better(s, top[j]) })
		top = append(top, scored{})
		copy(top[k+1:], top[k:])
		top[k] = s
		top = top[:min(len(top), limit)]
	}
	ids := make([]string, len(top))
	for k, s := range top {
		ids[k] = x.ids[s.i]
	}
	x.mu.Unlock()
	ms, err := c.briefMemories(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("similar memories: %w", err)
	}
	out := make([]memory.BriefMemory, 0, len(top))
	for k, s := range top {
		m, ok := ms[ids[k]]
		if !ok {
			continue // evicted since the index was read
		}
		sim := s.sim
		m.Similarity, m.Decay, m.Score = &sim, c.decay(m.CreatedAt), s.score
		out = append(out, m)
	}
	return out, nil
}

// better orders by score, then the newer first.
func (x *vecIndex) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return x.created[a.i] > x.created[b.i]
}

// briefMemories loads memories by id.
func (c *Cache) briefMemories(ctx context.Context, ids []string) (map[string]memory.BriefMemory, error) {
	out := make(map[string]memory.BriefMemory, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := c.db.QueryContext(ctx, `SELECT id, kind, author, content, status, created_at FROM memories
		WHERE id IN (?`+strings.Repeat(",?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var m memory.BriefMemory
		var at int64
		if err := rows.Scan(&m.ID, &m.Kind, &m.Author, &m.Content, &m.Status, &at); err != nil {
			return nil, err
		}
		m.CreatedAt = fromMicros(at)
		out[m.ID] = m
	}
	return out, rows.Err()
}
