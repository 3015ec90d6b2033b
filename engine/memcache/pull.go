package memcache

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// overlap is how far before its watermark a pull starts again: clock_timestamp()
// order is not commit order, so a row stamped just before the newest one seen
// may commit after it. Re-pulled rows are upserts and change nothing.
const overlap = 5 * time.Second

// coreWatermarkSQL is the newest change of a project: the greatest sync_at of
// its memories, nuggets and conflicts and its newest state compilation.
const coreWatermarkSQL = `SELECT greatest(
	(SELECT max(sync_at) FROM memories WHERE repository_id = $1),
	(SELECT max(sync_at) FROM nuggets WHERE repository_id = $1),
	(SELECT max(sync_at) FROM conflicts WHERE repository_id = $1),
	(SELECT max(compiled_at) FROM state_compilations WHERE repository_id = $1))`

// CoreWatermark is the newest change of the core's project (zero when empty).
func CoreWatermark(ctx context.Context, core Core) (time.Time, error) {
	var t *time.Time
	if err := core.DB.Pool.QueryRow(ctx, coreWatermarkSQL, core.Store.Project()).Scan(&t); err != nil {
		return time.Time{}, fmt.Errorf("core watermark: %w", err)
	}
	if t == nil {
		return time.Time{}, nil
	}
	return t.UTC(), nil
}

// pulled is what one pull read from the core.
type pulled struct {
	memories  []memory.Memory
	syncAt    map[string]time.Time
	vectors   map[string][]float32
	model     string
	nuggets   []pulledNugget
	state     *memory.State
	conflicts []memory.Conflict
	anchors   map[string][]memory.Anchor
	newest    time.Time
}

type pulledNugget struct {
	memory.Nugget
	Deleted bool
	SyncAt  time.Time
}

// Pull reads what changed on the core since the cache's watermark and applies
// it: new and changed memories (with their vectors when the core has them for
// its newest model), nuggets (newest write wins), the latest state and
// conflicts. A memory the core superseded or invalidated is evicted at once.
// It returns how many rows were applied.
func (c *Cache) Pull(ctx context.Context, core Core) (int, error) {
	wm, err := getMetaInt(ctx, c.db(), metaWatermark)
	if err != nil {
		return 0, err
	}
	since := time.Time{}
	if wm > 0 {
		since = fromMicros(wm).Add(-overlap)
	}
	p, err := readCore(ctx, core, since)
	if err != nil {
		return 0, fmt.Errorf("pull: %w", err)
	}
	n := 0
	err = c.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if n, err = applyPulled(ctx, tx, p); err != nil {
			return err
		}
		if micros(p.newest) > wm {
			if err := setMeta(ctx, tx, metaWatermark, strconv.FormatInt(micros(p.newest), 10)); err != nil {
				return err
			}
		}
		return setMeta(ctx, tx, metaLastPull, strconv.FormatInt(micros(c.opts.Now()), 10))
	})
	if err != nil {
		return 0, fmt.Errorf("pull: %w", err)
	}
	if n > 0 {
		c.vecs.invalidate()
	}
	if err := c.prune(ctx); err != nil {
		return n, fmt.Errorf("pull: %w", err)
	}
	return n, nil
}

// readCore reads the rows changed since since, in one repeatable-read snapshot.
func readCore(ctx context.Context, core Core, since time.Time) (pulled, error) {
	p := pulled{syncAt: map[string]time.Time{}, vectors: map[string][]float32{}}
	project := core.Store.Project()
	err := pgx.BeginTxFunc(ctx, core.DB.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			steps := []func(context.Context, pgx.Tx, int64, time.Time, *pulled) error{
				readMemories, readVectors, readNuggets, readState, readConflicts, readAnchors}
			for _, step := range steps {
				if err := step(ctx, tx, project, since, &p); err != nil {
					return err
				}
			}
			return nil
		})
	return p, err
}

func (p *pulled) saw(t time.Time) {
	if t.After(p.newest) {
		p.newest = t.UTC()
	}
}

func readMemories(ctx context.Context, tx pgx.Tx, project int64, since time.Time, p *pulled) error {
	rows, err := tx.Query(ctx, `SELECT id::text, kind, author, content, status, parent_ids::text[],
		coalesce(superseded_by::text, ''), created_at, sync_at
		FROM memories WHERE repository_id = $1 AND sync_at > $2 ORDER BY sync_at`, project, since)
	if err != nil {
		return fmt.Errorf("memories: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var m memory.Memory
		var at time.Time
		if err := rows.Scan(&m.ID, &m.Kind, &m.Author, &m.Content, &m.Status, &m.ParentIDs, &m.SupersededBy, &m.CreatedAt, &at); err != nil {
			return fmt.Errorf("memories: %w", err)
		}
		p.memories = append(p.memories, m)
		p.syncAt[m.ID] = at
		p.saw(at)
	}
	return rows.Err()
}

// readVectors reads the vectors of the pulled memories in the core's newest
// embedding model: the one the cache records, and the only one it keeps.
func readVectors(ctx context.Context, tx pgx.Tx, project int64, since time.Time, p *pulled) error {
	err := tx.QueryRow(ctx, `SELECT coalesce((SELECT model FROM memory_embeddings WHERE repository_id = $1
		ORDER BY created_at DESC LIMIT 1), '')`, project).Scan(&p.model)
	if err != nil {
		return fmt.Errorf("core model: %w", err)
	}
	if p.model == "" || len(p.memories) == 0 {
		return nil
	}
	// The vectors of the pulled live memories, by id (in this snapshot, so
	// the same rows): a join on the memories' sync_at, planned on a fresh
	// core without statistics, walked the project's memories once per vector
	// (3 s after a 9,000-memory push). In binary: parsing the text form cost
	// more than reading them.
	var ids []string
	for _, m := range p.memories {
		switch m.Status {
		case memory.StatusActive, memory.StatusDisputed, memory.StatusPendingEmbedding, memory.StatusNeedsReview:
			ids = append(ids, m.ID)
		}
	}
	rows, err := tx.Query(ctx, `SELECT memory_id::text, embedding FROM memory_embeddings
		WHERE repository_id = $1 AND model = $2 AND memory_id = ANY($3::uuid[])`,
		pgx.QueryResultFormats{pgx.TextFormatCode, pgx.BinaryFormatCode}, project, p.model, ids)
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var v pgvector.Vector
		if err := rows.Scan(&id, &v); err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
		p.vectors[id] = v.Slice()
	}
	return rows.Err()
}

func readNuggets(ctx context.Context, tx pgx.Tx, project int64, since time.Time, p *pulled) error {
	rows, err := tx.Query(ctx, `SELECT key, value, author, updated_at, deleted, sync_at FROM nuggets
		WHERE repository_id = $1 AND sync_at > $2`, project, since)
	if err != nil {
		return fmt.Errorf("nuggets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n pulledNugget
		if err := rows.Scan(&n.Key, &n.Value, &n.Author, &n.UpdatedAt, &n.Deleted, &n.SyncAt); err != nil {
			return fmt.Errorf("nuggets: %w", err)
		}
		p.nuggets = append(p.nuggets, n)
		p.saw(n.SyncAt)
	}
	return rows.Err()
}

func readState(ctx context.Context, tx pgx.Tx, project int64, since time.Time, p *pulled) error {
	rows, err := tx.Query(ctx, `SELECT id, summary, blockers, priorities, author, compiled_at FROM state_compilations
		WHERE repository_id = $1 AND compiled_at > $2 ORDER BY compiled_at DESC, id DESC LIMIT 1`, project, since)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	st, err := pgx.CollectRows(rows, pgx.RowToStructByName[memory.State])
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if len(st) > 0 {
		p.state = &st[0]
		p.saw(st[0].CompiledAt)
	}
	return nil
}

func readConflicts(ctx context.Context, tx pgx.Tx, project int64, since time.Time, p *pulled) error {
	rows, err := tx.Query(ctx, `SELECT id::text, memory_ids::text[], similarity::float8, reason, status,
		coalesce(resolution, ''), created_at, sync_at FROM conflicts WHERE repository_id = $1 AND sync_at > $2`, project, since)
	if err != nil {
		return fmt.Errorf("conflicts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k memory.Conflict
		var at time.Time
		if err := rows.Scan(&k.ID, &k.MemoryIDs, &k.Similarity, &k.Reason, &k.Status, &k.Resolution, &k.CreatedAt, &at); err != nil {
			return fmt.Errorf("conflicts: %w", err)
		}
		p.conflicts = append(p.conflicts, k)
		p.saw(at)
	}
	return rows.Err()
}

// applyPulled writes a pull into the cache (in the caller's transaction).
func applyPulled(ctx context.Context, tx *sql.Tx, p pulled) (int, error) {
	if p.model != "" {
		if err := setMeta(ctx, tx, metaCoreModel, p.model); err != nil {
			return 0, err
		}
		for _, v := range p.vectors {
			if err := setMeta(ctx, tx, metaCoreDims, strconv.Itoa(len(v))); err != nil {
				return 0, err
			}
			break
		}
	}
	n := 0
	for _, m := range p.memories {
		if err := putMemory(ctx, tx, m, p.syncAt[m.ID], p.model, p.vectors[m.ID]); err != nil {
			return n, err
		}
		n++
	}
	if err := putAnchors(ctx, tx, p); err != nil {
		return n, err
	}
	for _, g := range p.nuggets {
		if err := putPulledNugget(ctx, tx, g); err != nil {
			return n, err
		}
		n++
	}
	if p.state != nil {
		if err := putState(ctx, tx, *p.state); err != nil {
			return n, err
		}
		n++
	}
	for _, k := range p.conflicts {
		if err := putConflict(ctx, tx, k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// putMemory stores a pulled memory, or evicts it when the core tombstoned it
// (superseded or invalidated): it leaves the briefing and recall at once.
func putMemory(ctx context.Context, tx *sql.Tx, m memory.Memory, at time.Time, model string, vec []float32) error {
	if m.Status == memory.StatusSuperseded || m.Status == memory.StatusInvalidated {
		if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, m.ID); err != nil {
			return fmt.Errorf("evict memory %s: %w", m.ID, err)
		}
		return nil
	}
	if vec == nil {
		model = ""
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO memories (id, kind, author, content, status, parent_ids, superseded_by,
		created_at, sync_at, synced, last_used, model, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, superseded_by = excluded.superseded_by,
			sync_at = excluded.sync_at, synced = 1,
			model = CASE WHEN excluded.embedding IS NULL THEN memories.model ELSE excluded.model END,
			embedding = coalesce(excluded.embedding, memories.embedding)`,
		m.ID, string(m.Kind), m.Author, m.Content, string(m.Status), strings.Join(m.ParentIDs, ","), m.SupersededBy,
		micros(m.CreatedAt), micros(at), micros(m.CreatedAt), model, encodeVector(vec))
	if err != nil {
		return fmt.Errorf("store memory %s: %w", m.ID, err)
	}
	return nil
}

func putPulledNugget(ctx context.Context, tx *sql.Tx, g pulledNugget) error {
	del := 0
	if g.Deleted {
		del = 1
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO nuggets (key, value, author, updated_at, deleted) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, author = excluded.author,
			updated_at = excluded.updated_at, deleted = excluded.deleted
		WHERE nuggets.updated_at <= excluded.updated_at`, g.Key, g.Value, g.Author, micros(g.UpdatedAt), del)
	if err != nil {
		return fmt.Errorf("store nugget %s: %w", g.Key, err)
	}
	return nil
}

func putConflict(ctx context.Context, tx *sql.Tx, k memory.Conflict) error {
	ids, _ := json.Marshal(k.MemoryIDs)
	_, err := tx.ExecContext(ctx, `INSERT INTO conflicts (id, memory_ids, similarity, reason, status, resolution, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET memory_ids = excluded.memory_ids,
		status = excluded.status, resolution = excluded.resolution`,
		k.ID, string(ids), k.Similarity, k.Reason, string(k.Status), k.Resolution, micros(k.CreatedAt))
	if err != nil {
		return fmt.Errorf("store conflict %s: %w", k.ID, err)
	}
	return nil
}
