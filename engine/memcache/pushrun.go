package memcache

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// perTx bounds the queued writes of one kind applied in one core transaction:
// memory adds through memory.Store.AddMany (which checks a run of them
// set-wise), nugget writes through memory.Store.SetNuggets. A longer run costs
// fewer round trips; a failure retries the whole run.
const perTx = 256

// pushRun applies the run of memory adds or nugget writes at the head of batch
// in one core transaction and returns how many it pushed: 0 when the head is
// another write, or when the core refused the run for good (the caller then
// pushes them one by one, so that only the bad one is set aside).
func (c *Cache) pushRun(ctx context.Context, core Core, batch []queued) (int, error) {
	var n int
	var err error
	switch batch[0].op {
	case opAdd:
		n, err = c.pushAddRun(ctx, core, batch)
	case opNugget:
		n, err = pushNuggetRun(ctx, core, batch)
	}
	if n < 2 {
		if err != nil && !permanent(err) {
			c.noteAttempt(ctx, batch[0].seq, err)
			return 0, fmt.Errorf("push %s run from %s: %w", batch[0].op, batch[0].id, err)
		}
		return 0, nil
	}
	return c.dequeueRun(ctx, batch[:n])
}

// runOf decodes the payloads of the writes of batch[0]'s kind at its head (at
// most perTx; a payload that does not decode ends the run, and the one-by-one
// push sets it aside).
func runOf[T any](batch []queued) []T {
	var out []T
	for _, q := range batch {
		if q.op != batch[0].op || len(out) == perTx {
			break
		}
		var v T
		if err := json.Unmarshal([]byte(q.payload), &v); err != nil {
			break
		}
		out = append(out, v)
	}
	return out
}

// pushAddRun applies a run of adds; it returns the run's length on success and
// 0 with the error on failure.
func (c *Cache) pushAddRun(ctx context.Context, core Core, batch []queued) (int, error) {
	ins := runOf[memory.NewMemory](batch)
	if len(ins) < 2 {
		return 0, nil
	}
	as, err := core.Store.AddMany(ctx, ins)
	if err != nil {
		return 0, err
	}
	for _, a := range as {
		c.noteAdded(a)
	}
	return len(ins), nil
}

// pushNuggetRun applies a run of nugget writes.
func pushNuggetRun(ctx context.Context, core Core, batch []queued) (int, error) {
	ws := runOf[memory.NuggetWrite](batch)
	if len(ws) < 2 {
		return 0, nil
	}
	if _, err := core.Store.SetNuggets(ctx, ws); err != nil {
		return 0, err
	}
	return len(ws), nil
}

// dequeueRun takes applied writes off the queue in one local transaction.
func (c *Cache) dequeueRun(ctx context.Context, run []queued) (int, error) {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		for _, q := range run {
			if err := dequeueTx(ctx, tx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err // all stay queued: replaying them changes nothing
	}
	return len(run), nil
}
