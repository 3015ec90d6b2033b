package index

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// A rewritten file's symbols keep the ids of the ones they replace (ids.go),
// and a chunk whose text is unchanged keeps the vector row it has: inserting
// it again cost an HNSW insertion per vector per index (the model's and the
// repository's own), ~1-3 ms each, the largest part of a one-file change at
// $GOROOT/src scale. Vectors have no foreign key to symbols since migration
// 0013, so every row is deleted explicitly with its symbol (dropVectors).

// keptRows says which stored rows of a batch's rewritten symbols stay.
type keptRows struct {
	// vectors maps the ids of chunks whose stored vector of the run's model was
	// computed from the same text (same content hash) to that hash.
	vectors map[int64]string
}

// keptRows finds the rows that may stay. A full run keeps no vector: it
// embeds everything again.
func (w *writer) keptRows(batch []parsed, old map[string][]oldSymbol, ids [][]int64) *keptRows {
	k := &keptRows{vectors: map[int64]string{}}
	for i := range batch {
		byID := map[int64]oldSymbol{}
		for _, o := range old[batch[i].Path] {
			byID[o.id] = o
		}
		if len(byID) == 0 || batch[i].file == nil {
			continue
		}
		texts := batch[i].texts()
		for j := range batch[i].file.Symbols {
			o, ok := byID[ids[i][j]]
			if !ok {
				continue
			}
			if o.vector != "" && o.vector == texts[j].hash && w.reuseSince.IsZero() {
				k.vectors[o.id] = o.vector
			}
		}
	}
	return k
}

// oldIDs lists the ids of the stored symbols of a batch.
func oldIDs(old map[string][]oldSymbol) []int64 {
	var out []int64
	for _, syms := range old {
		for _, o := range syms {
			out = append(out, o.id)
		}
	}
	return out
}

// execer is a connection or a transaction.
type execer interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}

// keys lists the ids of kept, for a statement's bigint[].
func keys(kept map[int64]string) []int64 {
	out := make([]int64, 0, len(kept))
	for id := range kept {
		out = append(out, id)
	}
	return out
}

// dropVectors deletes the vectors of the symbols ids, but for the rows of the
// run's model that kept names (those of other models go: their symbols are
// rewritten, as the cascade of old did).
func (w *writer) dropVectors(ctx context.Context, q execer, ids []int64, kept map[int64]string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `DELETE FROM symbol_embeddings WHERE repository_id = $1 AND symbol_id = ANY ($2)
		AND NOT (model_id = $3 AND symbol_id = ANY (coalesce($4::bigint[], '{}')))`, w.repoID, ids, w.modelID, keys(kept))
	if err != nil {
		return fmt.Errorf("delete the vectors of %d replaced symbols: %w", len(ids), err)
	}
	return nil
}
