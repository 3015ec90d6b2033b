package memcache

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// The queued operations.
const (
	opAdd        = "add"
	opNugget     = "nugget"
	opState      = "state"
	opInvalidate = "invalidate"
	opSupersede  = "supersede"
)

// invalidation is the payload of a queued invalidate.
type invalidation struct {
	ID     string `json:"id"`
	Actor  string `json:"actor"`
	Reason string `json:"reason"`
}

// Add records a memory locally and queues it for the core. Its id is generated
// here and is the one the core stores. It is PENDING_EMBEDDING until the core
// embeds it and runs its conflict check, unless the local embedder is the core's:
// then it is embedded here for local recall (the core still embeds it itself).
func (c *Cache) Add(ctx context.Context, in memory.NewMemory) (memory.Memory, error) {
	if !in.Kind.Valid() || strings.TrimSpace(in.Text) == "" || strings.TrimSpace(in.Author) == "" {
		return memory.Memory{}, fmt.Errorf("add memory: kind, author and text are required: %w", memory.ErrInvalid)
	}
	if in.ID == "" {
		in.ID = newID()
	}
	now := c.opts.Now().UTC()
	m := memory.Memory{ID: in.ID, Kind: in.Kind, Author: in.Author, Content: in.Text,
		Status: memory.StatusPendingEmbedding, ParentIDs: in.Parents, CreatedAt: now}
	if m.ParentIDs == nil {
		m.ParentIDs = []string{}
	}
	vec, model, err := c.localVector(ctx, in.Text)
	if err != nil {
		return memory.Memory{}, fmt.Errorf("add memory: %w", err)
	}
	if vec != nil {
		m.Status = memory.StatusActive
	}
	payload, err := json.Marshal(in)
	if err != nil {
		return memory.Memory{}, fmt.Errorf("add memory: %w", err)
	}
	err = c.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO memories (id, kind, author, content, status, parent_ids,
			created_at, synced, last_used, model, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
			m.ID, string(m.Kind), m.Author, m.Content, string(m.Status), strings.Join(m.ParentIDs, ","),
			micros(now), micros(now), model, encodeVector(vec)); err != nil {
			return fmt.Errorf("store memory: %w", err)
		}
		return enqueue(ctx, tx, in.ID, opAdd, payload, now)
	})
	if err != nil {
		return memory.Memory{}, fmt.Errorf("add memory: %w", err)
	}
	if vec != nil {
		c.indexAdded(m.ID, now, vec) // a memory without one is not in the index
	}
	return m, nil
}

// SetNugget writes a nugget locally (last write wins by UTC timestamp; every
// write is kept in the history) and queues it for the core with its timestamp.
func (c *Cache) SetNugget(ctx context.Context, w memory.NuggetWrite) (memory.NuggetSet, error) {
	if strings.TrimSpace(w.Key) == "" || strings.TrimSpace(w.Author) == "" {
		return memory.NuggetSet{}, fmt.Errorf("set nugget: key and author are required: %w", memory.ErrInvalid)
	}
	if w.At.IsZero() {
		w.At = c.opts.Now()
	}
	w.At = w.At.UTC().Truncate(1000) // the core keeps microseconds
	if w.MutationID == "" {
		w.MutationID = newID()
	}
	payload, err := json.Marshal(w)
	if err != nil {
		return memory.NuggetSet{}, fmt.Errorf("set nugget %s: %w", w.Key, err)
	}
	var out memory.NuggetSet
	err = c.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		if out.Applied, err = putNugget(ctx, tx, w); err != nil {
			return err
		}
		return enqueue(ctx, tx, w.MutationID, opNugget, payload, c.opts.Now())
	})
	if err != nil {
		return memory.NuggetSet{}, fmt.Errorf("set nugget %s: %w", w.Key, err)
	}
	out.Nugget, err = c.Nugget(ctx, w.Key)
	return out, err
}

// putNugget records a write in the local history and applies it when it is
// newer than the current value.
func putNugget(ctx context.Context, tx *sql.Tx, w memory.NuggetWrite) (bool, error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO nugget_history (key, value, author, written_at, mutation_id)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (mutation_id) DO NOTHING`,
		w.Key, w.Value, w.Author, micros(w.At), w.MutationID); err != nil {
		return false, fmt.Errorf("nugget history: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO nuggets (key, value, author, updated_at, deleted) VALUES (?, ?, ?, ?, 0)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, author = excluded.author,
			updated_at = excluded.updated_at, deleted = 0
		WHERE nuggets.updated_at < excluded.updated_at`, w.Key, w.Value, w.Author, micros(w.At))
	if err != nil {
		return false, fmt.Errorf("store nugget: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// SetState stores a state compilation locally and queues it.
func (c *Cache) SetState(ctx context.Context, in memory.NewState) (memory.State, error) {
	if strings.TrimSpace(in.Summary) == "" || strings.TrimSpace(in.Author) == "" {
		return memory.State{}, fmt.Errorf("set state: summary and author are required: %w", memory.ErrInvalid)
	}
	if in.MutationID == "" {
		in.MutationID = newID()
	}
	st := memory.State{Summary: in.Summary, Blockers: nonNil(in.Blockers), Priorities: nonNil(in.Priorities),
		Author: in.Author, CompiledAt: c.opts.Now().UTC()}
	payload, err := json.Marshal(in)
	if err != nil {
		return memory.State{}, fmt.Errorf("set state: %w", err)
	}
	err = c.writeTx(ctx, func(tx *sql.Tx) error {
		if err := putState(ctx, tx, st); err != nil {
			return err
		}
		return enqueue(ctx, tx, in.MutationID, opState, payload, st.CompiledAt)
	})
	if err != nil {
		return memory.State{}, fmt.Errorf("set state: %w", err)
	}
	return st, nil
}

func putState(ctx context.Context, tx *sql.Tx, st memory.State) error {
	b, _ := json.Marshal(nonNil(st.Blockers))
	p, _ := json.Marshal(nonNil(st.Priorities))
	_, err := tx.ExecContext(ctx, `INSERT INTO state (id, core_id, summary, blockers, priorities, author, compiled_at)
		VALUES (1, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET core_id = excluded.core_id,
		summary = excluded.summary, blockers = excluded.blockers, priorities = excluded.priorities,
		author = excluded.author, compiled_at = excluded.compiled_at
		WHERE state.compiled_at <= excluded.compiled_at`,
		st.ID, st.Summary, string(b), string(p), st.Author, micros(st.CompiledAt))
	if err != nil {
		return fmt.Errorf("store state: %w", err)
	}
	return nil
}

// Invalidate tombstones a cached memory at once (it leaves the local briefing)
// and queues the invalidation. id must be a full id.
func (c *Cache) Invalidate(ctx context.Context, id, actor, reason string) error {
	if strings.TrimSpace(actor) == "" || strings.TrimSpace(reason) == "" {
		return fmt.Errorf("invalidate %s: actor and reason are required: %w", id, memory.ErrInvalid)
	}
	payload, err := json.Marshal(invalidation{ID: id, Actor: actor, Reason: reason})
	if err != nil {
		return fmt.Errorf("invalidate %s: %w", id, err)
	}
	err = c.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET status = 'INVALIDATED' WHERE id = ?`, id); err != nil {
			return fmt.Errorf("tombstone: %w", err)
		}
		return enqueue(ctx, tx, newID(), opInvalidate, payload, c.opts.Now())
	})
	if err != nil {
		return fmt.Errorf("invalidate %s: %w", id, err)
	}
	c.vecs.invalidate()
	return nil
}

// supersession is the payload of a queued supersede.
type supersession struct {
	OldID  string `json:"old_id"`
	NewID  string `json:"new_id"`
	Actor  string `json:"actor"`
	Reason string `json:"reason"`
}

// Supersede marks a cached memory as replaced by another at once (it leaves the
// local briefing) and queues the supersession. Both must be full ids of cached
// memories; the core checks them again when the write reaches it.
func (c *Cache) Supersede(ctx context.Context, oldID, byID, actor, reason string) error {
	if strings.TrimSpace(actor) == "" || oldID == byID {
		return fmt.Errorf("supersede %s: an actor and two different memories are required: %w", oldID, memory.ErrInvalid)
	}
	payload, err := json.Marshal(supersession{OldID: oldID, NewID: byID, Actor: actor, Reason: reason})
	if err != nil {
		return fmt.Errorf("supersede %s: %w", oldID, err)
	}
	err = c.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET status = 'SUPERSEDED', superseded_by = ? WHERE id = ?`,
			byID, oldID); err != nil {
			return fmt.Errorf("tombstone: %w", err)
		}
		return enqueue(ctx, tx, newID(), opSupersede, payload, c.opts.Now())
	})
	if err != nil {
		return fmt.Errorf("supersede %s: %w", oldID, err)
	}
	c.vecs.invalidate()
	return nil
}

func enqueue(ctx context.Context, tx *sql.Tx, id, op string, payload []byte, at interface{ UnixMicro() int64 }) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO queue (id, op, payload, queued_at) VALUES (?, ?, ?, ?)`,
		id, op, string(payload), at.UnixMicro()); err != nil {
		return fmt.Errorf("queue %s: %w", op, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
