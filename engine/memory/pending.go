package memory

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/embed"
)

// SystemActor is the actor recorded for changes spelunk makes on its own (checking
// memories embedded late).
const SystemActor = "spelunk"

// pendingBatch is how many pending memories are embedded per call to the embedder.
const pendingBatch = 64

// EmbedReport is what EmbedPending did.
type EmbedReport struct {
	// Embedded counts the memories embedded and checked.
	Embedded int `json:"embedded"`
	// Conflicts are the conflicts those checks opened or extended.
	Conflicts []string `json:"conflicts,omitempty"`
}

// pendingMemory is a memory waiting for its embedding.
type pendingMemory struct {
	ID      string `db:"id"`
	Content string `db:"content"`
}

// EmbedPending embeds the project's PENDING_EMBEDDING memories, oldest first, makes
// them ACTIVE and checks each for conflicts as Add would have. When the embedder is
// still unavailable it stops and returns an error wrapping embed.ErrUnavailable;
// what was done before stays done.
func (s *Store) EmbedPending(ctx context.Context) (EmbedReport, error) {
	var rep EmbedReport
	if s.emb == nil {
		return rep, fmt.Errorf("embed pending memories: no embedder: %w", embed.ErrUnavailable)
	}
	for {
		rows, err := s.db.Pool.Query(ctx, `SELECT id::text AS id, content FROM memories
			WHERE repository_id = $1 AND status = 'PENDING_EMBEDDING' ORDER BY created_at, id LIMIT $2`,
			s.project, pendingBatch)
		if err != nil {
			return rep, fmt.Errorf("embed pending memories: %w", err)
		}
		batch, err := pgx.CollectRows(rows, pgx.RowToStructByName[pendingMemory])
		if err != nil {
			return rep, fmt.Errorf("embed pending memories: %w", err)
		}
		if len(batch) == 0 {
			return rep, nil
		}
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.Content
		}
		vecs, model, err := s.embed(ctx, texts)
		if err != nil {
			return rep, fmt.Errorf("embed pending memories: %w", err)
		}
		if vecs == nil {
			return rep, fmt.Errorf("embed pending memories: %d still pending: %w", len(batch), embed.ErrUnavailable)
		}
		progress := 0
		for i, p := range batch {
			var conflictID string
			done := false
			err := s.inTx(ctx, func(tx pgx.Tx) error {
				var err error
				done, conflictID, err = s.embedPending(ctx, tx, p.ID, vecs[i], model)
				return err
			})
			if err != nil {
				return rep, fmt.Errorf("embed pending memory %s: %w", p.ID, err)
			}
			if done {
				progress++
				rep.Embedded++
				if conflictID != "" {
					rep.Conflicts = appendNew(rep.Conflicts, conflictID)
				}
			}
		}
		if progress == 0 || len(batch) < pendingBatch {
			return rep, nil
		}
	}
}

// embedPending stores the embedding of one pending memory, if it is still pending,
// activates it and checks it for conflicts.
func (s *Store) embedPending(ctx context.Context, tx pgx.Tx, id string, vec []float32, model string) (bool, string, error) {
	ms, err := s.lockMemories(ctx, tx, []string{id})
	if err != nil || len(ms) == 0 || ms[0].Status != StatusPendingEmbedding {
		return false, "", err // gone, or handled by a concurrent call
	}
	if err := s.storeEmbedding(ctx, tx, id, model, vec); err != nil {
		return false, "", err
	}
	if err := s.apply(ctx, tx, transition{id: id, from: StatusPendingEmbedding, to: StatusActive, action: ActionEmbedded,
		actor: SystemActor, reason: "embedded with " + model}); err != nil {
		return false, "", err
	}
	m := ms[0]
	m.Status = StatusActive
	det, err := s.detect(ctx, tx, m, vec, model, SystemActor)
	if err != nil {
		return false, "", err
	}
	return true, det.conflictID, nil
}
