package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SetNuggets applies nugget writes in order in one round trip and one
// transaction, each exactly as SetNugget applies it (last write wins by
// timestamp, every write in the history, a replayed mutation id recorded once):
// the edge cache's push of its queue, where a round trip per write would be
// most of the cost. It reports which writes became the current value. Any
// failure fails them all.
func (s *Store) SetNuggets(ctx context.Context, ws []NuggetWrite) ([]bool, error) {
	for i, w := range ws {
		if err := validateNugget(w); err != nil {
			return nil, fmt.Errorf("nugget %d of %d: %w", i+1, len(ws), err)
		}
	}
	applied := make([]bool, len(ws))
	err := pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, w := range ws {
			b.Queue(setNuggetSQL, nuggetArgs(s.project, w)...)
		}
		br := tx.SendBatch(ctx, b)
		defer br.Close()
		for i, w := range ws {
			if err := br.QueryRow().Scan(&applied[i]); err != nil {
				return fmt.Errorf("set nugget %s: %w", w.Key, err)
			}
		}
		return br.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("set nuggets: %w", err)
	}
	return applied, nil
}

// validateNugget checks a write as SetNugget does.
func validateNugget(w NuggetWrite) error {
	if err := checkText("nugget key", w.Key, MaxNameBytes); err != nil {
		return fmt.Errorf("set nugget: %w", err)
	}
	if err := checkActor(w.Author); err != nil {
		return fmt.Errorf("set nugget %s: %w", w.Key, err)
	}
	if err := checkBytes("nugget value", w.Value, MaxValueBytes); err != nil {
		return fmt.Errorf("set nugget %s: %w", w.Key, err)
	}
	if w.MutationID != "" && !uuidRE.MatchString(w.MutationID) {
		return fmt.Errorf("set nugget %s: mutation id %q is not a UUID: %w", w.Key, w.MutationID, ErrInvalid)
	}
	return nil
}

// nuggetArgs are setNuggetSQL's arguments for w (a zero timestamp is the
// database clock's).
func nuggetArgs(project int64, w NuggetWrite) []any {
	var at *time.Time
	if !w.At.IsZero() {
		at = &w.At
	}
	return []any{project, w.Key, w.Value, w.Author, at, w.MutationID}
}
