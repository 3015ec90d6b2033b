package memcache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// Core is the system of record a cache syncs with: one project of a PostgreSQL
// database.
type Core struct {
	DB    *pg.DB
	Store *memory.Store
}

// queued is one write waiting for the core.
type queued struct {
	seq     int64
	id, op  string
	payload string
}

// pushBatch is how many queued writes are read at once.
const pushBatch = 512

// Push applies the queued writes to the core in order. Each is idempotent on
// the core (its client id is recorded there), so a write applied whose removal
// from the queue was lost (a crash between the two) is applied again harmlessly.
// It stops at the first failure that may be transient (the core unreachable):
// that write and the ones after it stay queued. A write the core refuses for good
// (invalid input) is set aside as dead, with the reason, and the push goes on.
func (c *Cache) Push(ctx context.Context, core Core) (int, error) {
	pushed := 0
	for {
		batch, err := c.nextBatch(ctx)
		if err != nil || len(batch) == 0 {
			return pushed, err
		}
		for len(batch) > 0 {
			n, err := c.pushRun(ctx, core, batch)
			pushed += n
			if err != nil {
				return pushed, err
			}
			if n > 0 {
				batch = batch[n:]
				continue
			}
			if err := c.pushOne(ctx, core, batch[0]); err != nil {
				return pushed, err
			}
			pushed++
			batch = batch[1:]
		}
	}
}

// pushOne applies one queued write and takes it off the queue (or sets it
// aside when the core refuses it for good).
func (c *Cache) pushOne(ctx context.Context, core Core, q queued) error {
	err := c.apply(ctx, core, q)
	if err != nil && !permanent(err) {
		c.noteAttempt(ctx, q.seq, err)
		return fmt.Errorf("push %s %s: %w", q.op, q.id, err)
	}
	return c.dequeue(ctx, q, err)
}

func (c *Cache) nextBatch(ctx context.Context) ([]queued, error) {
	rows, err := c.db().QueryContext(ctx, `SELECT seq, id, op, payload FROM queue WHERE dead = 0 ORDER BY seq LIMIT ?`, pushBatch)
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	defer rows.Close()
	var out []queued
	for rows.Next() {
		var q queued
		if err := rows.Scan(&q.seq, &q.id, &q.op, &q.payload); err != nil {
			return nil, fmt.Errorf("read queue: %w", err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	return out, nil
}

// apply sends one queued write to the core.
func (c *Cache) apply(ctx context.Context, core Core, q queued) error {
	switch q.op {
	case opAdd:
		var in memory.NewMemory
		if err := json.Unmarshal([]byte(q.payload), &in); err != nil {
			return fmt.Errorf("decode: %w: %w", err, memory.ErrInvalid)
		}
		a, err := core.Store.Add(ctx, in)
		if err == nil {
			c.noteAdded(a)
		}
		return err
	case opNugget:
		var w memory.NuggetWrite
		if err := json.Unmarshal([]byte(q.payload), &w); err != nil {
			return fmt.Errorf("decode: %w: %w", err, memory.ErrInvalid)
		}
		_, err := core.Store.SetNugget(ctx, w)
		return err
	case opState:
		var in memory.NewState
		if err := json.Unmarshal([]byte(q.payload), &in); err != nil {
			return fmt.Errorf("decode: %w: %w", err, memory.ErrInvalid)
		}
		_, err := core.Store.SetState(ctx, in)
		return err
	case opInvalidate:
		var in invalidation
		if err := json.Unmarshal([]byte(q.payload), &in); err != nil {
			return fmt.Errorf("decode: %w: %w", err, memory.ErrInvalid)
		}
		_, err := core.Store.Invalidate(ctx, in.ID, in.Actor, in.Reason)
		if errors.Is(err, memory.ErrAlreadyInvalidated) {
			return nil // replayed, or invalidated elsewhere: the outcome stands
		}
		return err
	case opSupersede:
		var in supersession
		if err := json.Unmarshal([]byte(q.payload), &in); err != nil {
			return fmt.Errorf("decode: %w: %w", err, memory.ErrInvalid)
		}
		_, err := core.Store.Supersede(ctx, in.OldID, in.NewID, in.Actor, in.Reason)
		if errors.Is(err, memory.ErrAlreadySuperseded) {
			return nil // replayed, or superseded elsewhere: the core's outcome stands and the next pull brings it
		}
		return err
	}
	return fmt.Errorf("unknown queued operation %q: %w", q.op, memory.ErrInvalid)
}

// permanent reports whether the core refused a write for a reason replaying
// cannot fix.
func permanent(err error) bool {
	for _, e := range []error{memory.ErrInvalid, memory.ErrTooLarge, memory.ErrNotFound, memory.ErrOtherProject,
		memory.ErrAmbiguous, memory.ErrNotLive, memory.ErrAlreadySuperseded,
		memory.ErrDisputed} { // an agent's write met a conflict found at sync: a person decides it

		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// dequeue removes an applied write (or sets a refused one aside) and marks its
// memory as synced, in one local transaction.
func (c *Cache) dequeue(ctx context.Context, q queued, refused error) error {
	return c.inTx(ctx, func(tx *sql.Tx) error {
		if refused != nil {
			_, err := tx.ExecContext(ctx, `UPDATE queue SET dead = 1, attempts = attempts + 1, last_error = ? WHERE seq = ?`,
				refused.Error(), q.seq)
			if err != nil {
				return fmt.Errorf("set aside %s: %w", q.id, err)
			}
			return nil
		}
		return dequeueTx(ctx, tx, q)
	})
}

// dequeueTx removes an applied write and marks its memory as synced.
func dequeueTx(ctx context.Context, tx *sql.Tx, q queued) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM queue WHERE seq = ?`, q.seq); err != nil {
		return fmt.Errorf("dequeue %s: %w", q.id, err)
	}
	if q.op == opAdd {
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET synced = 1 WHERE id = ?`, q.id); err != nil {
			return fmt.Errorf("mark %s synced: %w", q.id, err)
		}
	}
	return nil
}

// noteAttempt records a failed attempt; the write stays queued.
func (c *Cache) noteAttempt(ctx context.Context, seq int64, err error) {
	// Best effort: the context may be the reason the push failed.
	_, _ = c.db().ExecContext(context.WithoutCancel(ctx), `UPDATE queue SET attempts = attempts + 1, last_error = ? WHERE seq = ?`, err.Error(), seq)
}
