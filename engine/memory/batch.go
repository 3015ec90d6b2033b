package memory

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// addBatch records the memories of one AddMany in order, in the caller's locked
// transaction, with the outcome Add would give each one after the ones before
// it. Runs of at least two new memories without parents are written and checked
// set-wise (addRun: a few statements for the whole run instead of a handful per
// memory); a memory with parents, a replay of an id the project has, a repeated
// id, and every memory when there are no vectors, go through Add's own path at
// their place in the order.
func (s *Store) addBatch(ctx context.Context, tx pgx.Tx, ins []NewMemory, vecs [][]float32, model string) ([]Added, error) {
	out := make([]Added, len(ins))
	alone, err := s.aloneInBatch(ctx, tx, ins, vecs != nil)
	if err != nil {
		return nil, err
	}
	judge := newMemoJudge(s.judge)
	for i := 0; i < len(ins); {
		j := i
		for j < len(ins) && !alone[j] {
			j++
		}
		if j-i >= 2 {
			if err := s.addRun(ctx, tx, ins[i:j], vecs[i:j], model, judge, out[i:j]); err != nil {
				return nil, fmt.Errorf("memories %d to %d of %d: %w", i+1, j, len(ins), err)
			}
			i = j
			continue
		}
		var vec []float32
		if vecs != nil {
			vec = vecs[i]
		}
		if out[i], err = s.addOrReplay(ctx, tx, ins[i], vec, model); err != nil {
			return nil, fmt.Errorf("memory %d of %d: %w", i+1, len(ins), err)
		}
		i++
	}
	return out, nil
}

// aloneInBatch marks the memories that take Add's path: all of them without
// vectors (nothing is checked), else those with parents (a correction's
// parents can be earlier members of the batch, resolved by prefix), ids the
// project already has (replays: the stored row as it is at that point) and ids
// given twice in the batch (the second is a replay of the first).
func (s *Store) aloneInBatch(ctx context.Context, tx pgx.Tx, ins []NewMemory, embedded bool) ([]bool, error) {
	alone := make([]bool, len(ins))
	if !embedded {
		for i := range alone {
			alone[i] = true
		}
		return alone, nil
	}
	var ids []string
	for _, in := range ins {
		if in.ID != "" {
			ids = append(ids, strings.ToLower(in.ID))
		}
	}
	known := map[string]bool{}
	if len(ids) > 0 {
		rows, err := tx.Query(ctx, `SELECT id::text FROM memories WHERE repository_id = $1 AND id = ANY($2::uuid[])`, s.project, ids)
		if err != nil {
			return nil, fmt.Errorf("look up replayed ids: %w", err)
		}
		have, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, fmt.Errorf("look up replayed ids: %w", err)
		}
		for _, id := range have {
			known[id] = true
		}
	}
	for i, in := range ins {
		id := strings.ToLower(in.ID)
		alone[i] = len(in.Parents) > 0 || (id != "" && known[id])
		if id != "" {
			known[id] = true
		}
	}
	return alone, nil
}

// addOrReplay is one memory of a batch on Add's path: the stored memory when its
// id is already there, else added and checked.
func (s *Store) addOrReplay(ctx context.Context, tx pgx.Tx, in NewMemory, vec []float32, model string) (Added, error) {
	if in.ID != "" {
		m, err := s.get(ctx, tx, in.ID)
		if err == nil {
			return Added{Memory: m}, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return Added{}, err
		}
	}
	return s.add(ctx, tx, in, vec, model)
}

// newUUID is a random (version 4) UUID, what gen_random_uuid() gives a memory
// added without a client id: a run's ids are known before its rows are written.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
