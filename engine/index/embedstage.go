package index

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// pendingSymbol is a stored symbol that still needs a vector.
type pendingSymbol struct {
	id   int64
	hash string // of text: its vector's key
	def  string // the symbol's content hash when queued: a rewrite since changes it
	text string
}

// embedStage embeds symbols as the writer commits them, in batches, concurrently with
// parsing. When the backend is down it stops trying for the rest of the run and
// leaves the symbols pending.
type embedStage struct {
	db          *pg.DB
	repoID      int64
	emb         Embedder
	modelID     int16 // emb's (pg.DB.ModelID)
	prog        *progressTracker
	in          chan []pendingSymbol
	unavailable error
	ownIndex    bool // the rows the shared index leaves out (writer.ownIndex)
}

// vectorColumns are the columns of a symbol_embeddings row the indexer writes.
var vectorColumns = []string{"repository_id", "symbol_id", "model_id", "content_hash", "embedding", "own_index"}

// ownIndexValue is a vector row's own_index: true where the model's shared
// index leaves the row out, else NULL, which keeps the row as short as it
// was before the column (migration 0024).
func ownIndexValue(left bool) any {
	if left {
		return true
	}
	return nil
}

const embedBatch = 256

func newEmbedStage(db *pg.DB, repoID int64, modelID int16, ownIndex bool, emb Embedder, prog *progressTracker) *embedStage {
	return &embedStage{db: db, repoID: repoID, modelID: modelID, ownIndex: ownIndex, emb: emb, prog: prog,
		in: make(chan []pendingSymbol, 8)}
}

func (e *embedStage) enqueue(ctx context.Context, syms []pendingSymbol) error {
	if len(syms) == 0 {
		return nil
	}
	e.prog.queued(len(syms))
	select {
	case e.in <- syms:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *embedStage) close() { close(e.in) }

// enqueuePending queues symbols left without a vector by an earlier run (embedder
// down, or a crash between the write and the embedding).
func (e *embedStage) enqueuePending(ctx context.Context) error {
	rows, err := e.db.Pool.Query(ctx, `
		SELECT id, content_hash, qualified_name, path, doc, coalesce(skeleton, content) FROM symbols
		WHERE repository_id = $1 AND embedding_state = 'pending' ORDER BY id`, e.repoID)
	if err != nil {
		return fmt.Errorf("list pending symbols: %w", err)
	}
	syms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingSymbol, error) {
		var s pendingSymbol
		var q, p, doc, content string
		err := r.Scan(&s.id, &s.def, &q, &p, &doc, &content)
		s.text = embedText(q, p, doc, content)
		s.hash = contentHash([]byte(s.text))
		return s, err
	})
	if err != nil {
		return fmt.Errorf("list pending symbols: %w", err)
	}
	for len(syms) > 0 {
		n := min(len(syms), embedBatch)
		if err := e.enqueue(ctx, syms[:n]); err != nil {
			return err
		}
		syms = syms[n:]
	}
	return nil
}

func (e *embedStage) run(ctx context.Context) error {
	var buf []pendingSymbol
	for syms := range e.in {
		if e.unavailable != nil {
			continue // drain: these stay pending
		}
		buf = append(buf, syms...)
		for len(buf) >= embedBatch {
			if err := e.embed(ctx, buf[:embedBatch]); err != nil {
				return err
			}
			buf = buf[embedBatch:]
		}
	}
	if e.unavailable == nil && len(buf) > 0 {
		return e.embed(ctx, buf)
	}
	return nil
}

func (e *embedStage) embed(ctx context.Context, syms []pendingSymbol) error {
	texts := make([]string, len(syms))
	for i, s := range syms {
		texts[i] = s.text
	}
	vecs, err := e.emb.Embed(ctx, texts)
	if err != nil {
		if errUnavailable(err) {
			e.unavailable = err
			return nil
		}
		return fmt.Errorf("embed %d symbols with %s: %w", len(syms), e.emb.Name(), err)
	}
	if len(vecs) != len(syms) {
		return fmt.Errorf("embedder %s returned %d vectors for %d texts", e.emb.Name(), len(vecs), len(syms))
	}
	model := e.modelID
	ids := make([]int64, len(syms))
	err = pg.InTx(ctx, e.db.Pool, func(tx pgx.Tx) error { // again when a writer deadlocks with it
		rows := make([][]any, len(syms))
		for i, s := range syms {
			ids[i] = s.id
			rows[i] = []any{e.repoID, s.id, model, s.hash, pgvector.NewHalfVector(vecs[i]), ownIndexValue(e.ownIndex)}
		}
		// Symbols deleted since they were queued (by a concurrent run) are skipped:
		// their rows are gone, and a vector for them would fail the foreign key.
		// So are symbols rewritten since (a rewrite keeps the id of the symbol it
		// replaces): the vector is of the old content.
		r, err := tx.Query(ctx, `SELECT id, content_hash FROM symbols WHERE repository_id = $1 AND id = ANY ($2) FOR UPDATE`, e.repoID, ids)
		if err != nil {
			return err
		}
		live := map[int64]string{}
		var id int64
		var hash string
		if _, err := pgx.ForEachRow(r, []any{&id, &hash}, func() error { live[id] = hash; return nil }); err != nil {
			return err
		}
		kept, keptIDs := rows[:0], ids[:0]
		for i, row := range rows {
			if h, ok := live[syms[i].id]; ok && h == syms[i].def {
				kept, keptIDs = append(kept, row), append(keptIDs, syms[i].id)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM symbol_embeddings WHERE repository_id = $1 AND model_id = $2 AND symbol_id = ANY ($3)`,
			e.repoID, model, keptIDs); err != nil {
			return err
		}
		if err := copyRows(ctx, tx, e.db, "symbol_embeddings", vectorColumns, kept); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE symbols SET embedding_state = 'embedded'
			WHERE repository_id = $1 AND id = ANY($2)`, e.repoID, keptIDs)
		return err
	})
	if err != nil {
		return fmt.Errorf("store %d embeddings: %w", len(syms), err)
	}
	e.prog.embedded(len(syms))
	return nil
}
