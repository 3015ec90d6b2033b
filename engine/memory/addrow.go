package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// The single write path, pipelined: an add sends its statements in as few round
// trips as their dependencies allow. Before the row: the parents (one lookup
// each, when given) and the index lookups of the names the text mentions (one
// round trip for all, none when it names nothing code-like). Then one batch: the
// row, its "add" event, its embedding, its anchors and the query for its
// conflict candidates (the id is picked here, so nothing waits for the insert's
// answer). Then, only when the judge finds a contradiction, the conflict's
// statements (dispute).

// newRow is a memory ready to be inserted.
type newRow struct {
	in      NewMemory
	id      string
	parents []string
	status  Status
	vec     []float32
	model   string
	pins    []pin
}

// resolvedAnchors are a new memory's anchors, resolved before its transaction
// (Add looks them up on the pool: they read the index, not the memories, and
// need no lock).
type resolvedAnchors struct{ pins []pin }

// lookupAnchors resolves the anchors of in on q: none and no round trip when its
// text names nothing code-like and none were given.
func (s *Store) lookupAnchors(ctx context.Context, q querier, in NewMemory) (*resolvedAnchors, error) {
	refs, err := anchorRefs(in)
	if err != nil || len(refs) == 0 {
		return &resolvedAnchors{}, err
	}
	pins, err := s.resolveAnchors(ctx, q, refs)
	if err != nil {
		return nil, err
	}
	if len(pins) > MaxAnchors {
		return nil, fmt.Errorf("the memory names %d definitions; the limit is %d: %w", len(pins), MaxAnchors, ErrTooLarge)
	}
	return &resolvedAnchors{pins: pins}, nil
}

// prepareRow resolves what the row refers to: its parents, and its anchors
// unless given.
func (s *Store) prepareRow(ctx context.Context, tx pgx.Tx, in NewMemory, vec []float32, model string, anchors *resolvedAnchors) (newRow, error) {
	r := newRow{in: in, id: in.ID, vec: vec, model: model, status: StatusActive, parents: make([]string, 0, len(in.Parents))}
	for _, ref := range in.Parents {
		id, err := s.resolveMemory(ctx, tx, ref)
		if err != nil {
			return newRow{}, fmt.Errorf("parent: %w", err)
		}
		r.parents = appendNew(r.parents, id)
	}
	if anchors == nil {
		var err error
		if anchors, err = s.lookupAnchors(ctx, tx, in); err != nil {
			return newRow{}, err
		}
	}
	r.pins = anchors.pins
	if vec == nil {
		r.status = StatusPendingEmbedding
	}
	if r.id == "" {
		r.id = newID()
	}
	return r, nil
}

// queue queues the row, its event, its embedding and its anchors on b; read
// them back with read.
func (r newRow) queue(s *Store, b *pgx.Batch) {
	// created_at is the clock's, not the transaction's: the memories of one
	// AddMany are ordered in time as they are in the batch, as if added one by one.
	b.Queue(`INSERT INTO memories AS m (repository_id, id, parent_ids, author, kind, content, content_hash, status, created_at)
		VALUES ($1, $8::uuid, $2::uuid[], $3, $4, $5, $6, $7, clock_timestamp())
		RETURNING `+memoryColumns,
		s.project, r.parents, r.in.Author, string(r.in.Kind), r.in.Text, contentHash(r.in.Text), string(r.status), r.id)
	b.Queue(eventSQL, s.project, r.id, ActionAdd, "", string(r.status), r.in.Author, "", "")
	if r.vec != nil {
		b.Queue(storeEmbeddingSQL, s.project, r.id, r.model, pgvector.NewVector(r.vec))
	}
	if len(r.pins) > 0 {
		b.Queue(insertAnchorsSQL, s.anchorArgs(r.id, r.pins)...)
	}
}

// read reads the results of queue, in order.
func (r newRow) read(br pgx.BatchResults) (Memory, error) {
	rows, err := br.Query()
	if err != nil {
		return Memory{}, fmt.Errorf("insert: %w", err)
	}
	m, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Memory])
	if err != nil {
		return Memory{}, fmt.Errorf("insert: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return Memory{}, fmt.Errorf("audit: %w", err)
	}
	if r.vec != nil {
		if _, err := br.Exec(); err != nil {
			return Memory{}, fmt.Errorf("store embedding: %w", err)
		}
	}
	if len(r.pins) > 0 {
		if _, err := br.Exec(); err != nil {
			return Memory{}, fmt.Errorf("anchors of memory %s: %w", r.id, err)
		}
	}
	m.Anchors = anchorsOf(r.pins)
	return m, nil
}

// insert stores a memory, its embedding (when vec is not nil; otherwise it is
// PENDING_EMBEDDING), the "add" event and its anchors, without checking for
// conflicts.
func (s *Store) insert(ctx context.Context, tx pgx.Tx, in NewMemory, vec []float32, model string) (Memory, error) {
	r, err := s.prepareRow(ctx, tx, in, vec, model, nil)
	if err != nil {
		return Memory{}, err
	}
	b := &pgx.Batch{}
	r.queue(s, b)
	br := tx.SendBatch(ctx, b)
	m, err := r.read(br)
	return m, closeBatch(br, err, "insert")
}

// add inserts the memory (in the caller's locked transaction), its embedding,
// audit event and anchors, then checks it for conflicts.
func (s *Store) add(ctx context.Context, tx pgx.Tx, in NewMemory, vec []float32, model string) (Added, error) {
	return s.addRow(ctx, tx, in, vec, model, nil, false)
}

// addRow is add with the anchors resolved beforehand (nil: resolve them here),
// taking the project's lock first in the batch that inserts the row when lock
// is set (the caller's transaction does not hold it yet: the lock and the row
// then cost one round trip, not two).
func (s *Store) addRow(ctx context.Context, tx pgx.Tx, in NewMemory, vec []float32, model string, anchors *resolvedAnchors, lock bool) (Added, error) {
	r, err := s.prepareRow(ctx, tx, in, vec, model, anchors)
	if err != nil {
		return Added{}, err
	}
	b := &pgx.Batch{}
	if lock {
		b.Queue(lockSQL, s.project)
	}
	r.queue(s, b)
	if vec != nil {
		iterative, err := s.iterativeScan(ctx, tx)
		if err != nil {
			return Added{}, err
		}
		b.Queue(candidatesSQL(model, len(vec), iterative), s.project, pgvector.NewVector(vec), s.Threshold(), r.id, r.parents, contentHash(in.Text))
	}
	br := tx.SendBatch(ctx, b)
	if lock {
		if _, err := br.Exec(); err != nil {
			return Added{}, closeBatch(br, fmt.Errorf("lock project: %w", err), "add")
		}
	}
	m, cands, err := readAdd(br, r)
	if err = closeBatch(br, err, "add"); err != nil {
		return Added{}, err
	}
	out := Added{Memory: m}
	if vec == nil {
		return out, nil
	}
	det, err := s.detectAmong(ctx, tx, m, cands, in.Author)
	if err != nil {
		return Added{}, err
	}
	out.ConflictID, out.Corrected = det.conflictID, det.corrected
	switch {
	case det.conflictID != "":
		out.Memory = det.disputed
	case len(det.corrected) > 0:
		if out.Memory, err = s.get(ctx, tx, m.ID); err != nil {
			return Added{}, err
		}
		out.Memory.Anchors = m.Anchors
	}
	return out, nil
}

// readAdd reads the row and, when it has a vector, its conflict candidates.
func readAdd(br pgx.BatchResults, r newRow) (Memory, []candidate, error) {
	m, err := r.read(br)
	if err != nil || r.vec == nil {
		return m, nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return Memory{}, nil, fmt.Errorf("find conflict candidates: %w", err)
	}
	cands, err := pgx.CollectRows(rows, pgx.RowToStructByName[candidate])
	if err != nil {
		return Memory{}, nil, fmt.Errorf("find conflict candidates: %w", err)
	}
	return m, cands, nil
}

// closeBatch closes a batch's results, keeping the first error.
func closeBatch(br pgx.BatchResults, err error, what string) error {
	if cerr := br.Close(); err == nil && cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	return err
}

// newID is a random (version 4) UUID for a new row.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error (Go 1.24 on)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// storeEmbeddingSQL stores (or replaces) the embedding of one memory.
//
//	$1 project  $2 memory id  $3 model  $4 vector
const storeEmbeddingSQL = `INSERT INTO memory_embeddings (repository_id, memory_id, model, embedding)
		VALUES ($1, $2::uuid, $3, $4)
		ON CONFLICT (repository_id, memory_id, model) DO UPDATE SET embedding = EXCLUDED.embedding`
