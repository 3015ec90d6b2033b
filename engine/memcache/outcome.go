package memcache

import (
	"context"
	"fmt"
	"sync"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// maxOutcomes bounds the corrections kept for Client.Add to collect: a push
// of a long queue outside any Add (sync now, the background loop) must not
// grow them without end.
const maxOutcomes = 1024

// outcomes are the core's answers to pushed adds that corrected parents,
// until the Client.Add that wrote the memory reads its answer (the pull that
// follows evicts the superseded parents, so the cache cannot tell afterwards).
type outcomes struct {
	mu sync.Mutex
	m  map[string]memory.Added
}

// noteAdded keeps the core's answer to a pushed add when it corrected parents.
func (c *Cache) noteAdded(a memory.Added) {
	if len(a.Corrected) == 0 {
		return
	}
	o := &c.added
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil || len(o.m) >= maxOutcomes {
		o.m = map[string]memory.Added{}
	}
	o.m[a.Memory.ID] = a
}

// takeAdded returns (and forgets) the core's answer to the add of memory id.
func (c *Cache) takeAdded(id string) (memory.Added, bool) {
	o := &c.added
	o.mu.Lock()
	defer o.mu.Unlock()
	a, ok := o.m[id]
	delete(o.m, id)
	return a, ok
}

// queuedWrite reports whether the write with id still waits for the core.
func (c *Cache) queuedWrite(ctx context.Context, id string) (bool, error) {
	var n int
	if err := c.db().QueryRowContext(ctx, `SELECT count(*) FROM queue WHERE id = ? AND dead = 0`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("cache: look up queued write %s: %w", id, err)
	}
	return n > 0, nil
}
