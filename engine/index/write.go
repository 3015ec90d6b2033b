package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/spelunkhq/spelunk/engine/parse"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// writer owns every statement that changes a repository's code rows.
type writer struct {
	db      *pg.DB
	repoID  int64
	model   string
	modelID int16 // model's id, the key of its vectors (pg.DB.ModelID)

	started time.Time // this run's indexing_started, set by beginRun
	// reuseSince, when set, limits vector reuse to vectors computed from then on
	// (a full run re-embeds everything once, as from scratch).
	reuseSince time.Time

	mu   sync.Mutex // guards gone, names and defNames: several writers run at once
	gone []int64    // symbols deleted by this run (their callers need resolving again)
	// names counts, per definition name, definitions added minus removed by this
	// run: where it is not zero, which definition a call by that name resolves to
	// may have changed anywhere in the repository.
	names map[string]int
	// defNames are the names of the definitions this run added, removed or
	// changed in a way resolution can see (ids.go): the edges naming them, or
	// typed by them, are decided again.
	defNames map[string]bool

	track bool // keep the repository's totals by delta (totals.go); set before the writes
	// direct: a bulk run whose session user bypasses row-level security
	// copies its rows straight into the tables (copyDirect); set before the writes.
	direct bool
	// rewriteEdges: a first load (no edge in the database when it began) whose
	// session user bypasses row-level security; the full pass then writes the
	// edges once more with their decisions instead of updating them
	// (resolve_rewrite.go), and edgesRewritten says whether it did.
	rewriteEdges, edgesRewritten bool
	// edgesHeld: the load held its reference edges and the full pass wrote
	// each once with its decision (edgespool.go).
	edgesHeld bool
	// edgeIndexesDeferred: the load dropped the edge indexes
	// (pg.DB.DeferEdgeIndexes); a resolution in SQL builds the ones it reads first.
	edgeIndexesDeferred bool
	atSQLPass           func() // tests: called as a resolution in SQL starts
	// spool holds the reference edges of a repository's first load until the
	// full pass writes them with their decisions (edgespool.go,
	// run.holdsEdges); nil otherwise.
	spool *edgeSpool
	// ownIndex: the run's vectors are rows the model's shared HNSW index
	// leaves out (pg.DB.LeaveOutOfShared); set before the writes.
	ownIndex bool
	// resolveParts: how many connections a full pass decides on in SQL (resolve_parts.go).
	resolveParts int
	// resolveIn: "sql" or "memory" makes a full pass decide there whatever
	// the repository's size (tests compare the two); "" chooses by size.
	resolveIn string
	delta     pg.RepoDelta // guarded by mu

	// before holds the paths stored when the run began (nil: not known, and
	// forget asks for every path); touched, guarded by mu, those this run has
	// written or deleted since. A path in neither has no rows to forget.
	before  map[string]stored
	touched map[string]bool
}

// mayHaveRows keeps the paths that can have stored rows and records them all
// as touched: forget's lookup of a new repository's paths, which have none,
// was planned on statistics from before its first rows (one repository's
// symbols taken for one row) and took 20-30 s a batch at a million chunks.
func (w *writer) mayHaveRows(paths []string) []string {
	if w.before == nil {
		return paths
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.touched == nil {
		w.touched = map[string]bool{}
	}
	var out []string
	for _, p := range paths {
		if _, ok := w.before[p]; ok || w.touched[p] {
			out = append(out, p)
		}
		w.touched[p] = true
	}
	return out
}

// countName records a definition added (+1) or removed (-1).
func (w *writer) countName(kind, name string, aliases []string, delta int) {
	switch kind {
	case string(parse.KindModule), string(parse.KindPart), string(parse.KindBlock):
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.names == nil {
		w.names = map[string]int{}
	}
	w.addName(name, delta)
	for _, a := range aliases {
		w.addName(a, delta)
	}
}

// addName counts delta more definitions of name. A name is a substring of
// its file's source, and an assignment to a map's string key stores the key
// it was given even when the key was there (Go updates string keys), so every
// name counted goes in as a copy: as given, the map kept every source of the
// run alive (45 MB at $GOROOT/src).
func (w *writer) addName(name string, delta int) {
	w.names[strings.Clone(name)] += delta
}

// changedNames are the names whose definitions this run added or removed.
func (w *writer) changedNames() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for n, d := range w.names {
		if d != 0 {
			out = append(out, n)
		}
	}
	return out
}

// forget reads the stored symbols of the files at paths, about to be deleted
// with them, by path (their vectors go with dropVectors, but for those kept:
// vectors.go; their postings with the file: deleteFileRows). Their names count as
// removed; which ids are gone for good is the caller's to say (markGone): a
// rewrite gives most of them to the symbols that replace them (ids.go).
func (w *writer) forget(ctx context.Context, q querier, paths []string) (map[string][]oldSymbol, error) {
	if paths = w.mayHaveRows(paths); len(paths) == 0 {
		return map[string][]oldSymbol{}, nil
	}
	rows, err := q.Query(ctx, `SELECT f.path, s.id, s.kind, s.name, s.qualified_name, s.aliases, s.signature,
			coalesce(s.receiver, ''), coalesce(s.result_type, ''), coalesce(s.embeds, '{}'), s.exported, s.start_line,
			coalesce(v.content_hash, '')
		FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		LEFT JOIN symbol_embeddings v ON v.repository_id = s.repository_id AND v.symbol_id = s.id AND v.model_id = $3
		WHERE s.repository_id = $1 AND f.path = ANY ($2)
		ORDER BY s.id`, w.repoID, paths, w.modelID)
	if err != nil {
		return nil, fmt.Errorf("list replaced symbols: %w", err)
	}
	out := map[string][]oldSymbol{}
	var path string
	var o oldSymbol
	_, err = pgx.ForEachRow(rows, []any{&path, &o.id, &o.kind, &o.name, &o.qname, &o.aliases, &o.sig,
		&o.receiver, &o.result, &o.embeds, &o.exported, &o.startLine, &o.vector}, func() error {
		w.countName(o.kind, o.name, o.aliases, -1)
		out[path] = append(out[path], o)
		o = oldSymbol{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list replaced symbols: %w", err)
	}
	return out, nil
}

// markGone records symbols deleted for good (their callers need resolving
// again) and the names whose resolution may have changed.
func (w *writer) markGone(gone []int64, names []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gone = append(w.gone, gone...)
	if w.defNames == nil {
		w.defNames = map[string]bool{}
	}
	for _, n := range names {
		if !w.defNames[n] {
			w.defNames[strings.Clone(n)] = true // see addName
		}
	}
}

// changedDefinitions are the names markGone recorded, sorted.
func (w *writer) changedDefinitions() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.defNames))
	for n := range w.defNames {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// beginRun marks a run as started. It reports whether the previous run was
// interrupted (started but never finished), in which case edges are re-resolved even
// when no file changed. A full run reuses no vector stored before it began.
func (w *writer) beginRun(ctx context.Context, full bool) (interrupted bool, err error) {
	var started time.Time
	err = w.db.Pool.QueryRow(ctx, `
		WITH prev AS (SELECT indexing_started IS NOT NULL AS running FROM repositories WHERE id = $1)
		UPDATE repositories SET indexing_started = now() WHERE id = $1
		RETURNING (SELECT running FROM prev), indexing_started`, w.repoID).Scan(&interrupted, &started)
	if err != nil {
		return false, fmt.Errorf("start indexing run: %w", err)
	}
	w.started = started
	if full {
		w.reuseSince = started
		// The old rows keep serving until each file is rewritten, but none of them
		// may pass for current: if this run is interrupted, the next one (full or
		// not) redoes every file it did not reach.
		if _, err := w.db.Pool.Exec(ctx, `UPDATE files SET blob_sha = NULL WHERE repository_id = $1`, w.repoID); err != nil {
			return interrupted, fmt.Errorf("start a full run: %w", err)
		}
	}
	// A new embedding model: every symbol needs a vector in the new space. The old
	// vectors stay (their own partial index) until the repository switches models at
	// the end of this run.
	if _, err := w.db.Pool.Exec(ctx, `UPDATE symbols s SET embedding_state = 'pending'
		WHERE s.repository_id = $1 AND s.embedding_state = 'embedded'
		  AND (SELECT coalesce(embedding_model, $2) FROM repositories WHERE id = $1) <> $2`, w.repoID, w.model); err != nil {
		return interrupted, fmt.Errorf("queue symbols for the new embedding model: %w", err)
	}
	return interrupted, nil
}

// unfinished reports whether the repository's last run started and never
// finished. Asked under the run lock, no other run can be under way.
func (w *writer) unfinished(ctx context.Context) (bool, error) {
	var running bool
	err := w.db.Pool.QueryRow(ctx, `SELECT indexing_started IS NOT NULL FROM repositories WHERE id = $1`, w.repoID).Scan(&running)
	if err != nil {
		return false, fmt.Errorf("read the last run's state: %w", err)
	}
	return running, nil
}

// finishRun records the commit the index is based on (HEAD, also when uncommitted
// changes were indexed on top of it: working_tree says so), so staleness is known.
// It runs on the run lock's session and only while the repository still carries
// this run's start, so a run that lost its lock cannot mark the index fresh.
//
// A run over given paths (partial) brought only those files up to date: the
// commit the rest is based on stays, and working_tree records that rows of
// uncommitted content may now be present. (A repository never indexed gets a
// whole run instead: see Index.)
func (w *writer) finishRun(ctx context.Context, lock *pgxpool.Conn, head, branch string, workingTree, partial bool, model string) error {
	tag, err := lock.Exec(ctx, `
		UPDATE repositories SET indexing_started = NULL, last_indexed_at = now(),
			last_commit = CASE WHEN $7 THEN last_commit ELSE NULLIF($2, '') END,
			working_tree = $3, embedding_model = $4,
			default_branch = COALESCE(NULLIF($5, ''), default_branch)
		WHERE id = $1 AND indexing_started = $6`, w.repoID, head, workingTree, model, branch, w.started, partial)
	if err != nil {
		return fmt.Errorf("finish indexing run: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("finish indexing run: another run started on the repository meanwhile; index again")
	}
	return nil
}

// storedFiles lists the stored files of paths, or every stored file for nil.
func (w *writer) storedFiles(ctx context.Context, paths []string) (map[string]stored, error) {
	rows, err := w.db.Pool.Query(ctx, `SELECT path, coalesce(blob_sha, ''), status, revision, size_bytes, mtime_ns FROM files
		WHERE repository_id = $1 AND ($2::text[] IS NULL OR path = ANY ($2))`, w.repoID, paths)
	if err != nil {
		return nil, fmt.Errorf("list indexed files: %w", err)
	}
	defer rows.Close()
	out := map[string]stored{}
	for rows.Next() {
		var p string
		var s stored
		if err := rows.Scan(&p, &s.blob, &s.status, &s.revision, &s.size, &s.mtime); err != nil {
			return nil, fmt.Errorf("list indexed files: %w", err)
		}
		out[p] = s
	}
	return out, rows.Err()
}

// deleteFiles removes files gone from the repository with their symbols,
// edges, vectors and postings.
func (w *writer) deleteFiles(ctx context.Context, paths []string) error {
	before, err := w.countFiles(ctx, w.db.Pool, paths)
	if err != nil {
		return err
	}
	old, err := w.forget(ctx, w.db.Pool, paths)
	if err != nil {
		return err
	}
	var ids []int64
	for _, syms := range old {
		_, gone, names := matchIDs(syms, nil)
		w.markGone(gone, names)
		ids = append(ids, gone...)
	}
	if err := w.dropVectors(ctx, w.db.Pool, ids, nil); err != nil {
		return err
	}
	// One transaction: the group locks of postingsChange hold until the rows are rewritten.
	if err := pg.InTx(ctx, w.db.Pool, func(tx pgx.Tx) error {
		had, err := w.deleteFileRows(ctx, tx, paths)
		if err != nil {
			return err
		}
		rows, err := w.postingsChange(ctx, tx, groupsOf(had), oldIDs(old), nil)
		if err != nil {
			return err
		}
		return copyFileRows(ctx, tx, w.db, &fileRows{postings: rows}, w.direct)
	}); err != nil {
		return fmt.Errorf("delete %d files: %w", len(paths), err)
	}
	w.addTotals(before, pg.RepoDelta{})
	return nil
}

// querier is a connection or a transaction.
type querier interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}

// deleteFileRows deletes the files at paths with their symbols and edges,
// and returns each deleted file's postings group (by path), whose rows still
// hold its postings (postingsChange removes them). No foreign key cascades
// (migration 0014: a check per inserted row cost more than half of a bulk
// load's edge inserts); a file's symbols and edges carry its id, the edges
// being those its symbols are the sources of. The ids are looked up first so
// that new files delete nothing: a first load runs without the postings
// indexes (pg.DeferPostingsIndexes), where each delete by file id scanned the
// whole table (47 s of a $GOROOT/src load).
func (w *writer) deleteFileRows(ctx context.Context, q querier, paths []string) (map[string]int64, error) {
	rows, err := q.Query(ctx, `SELECT id, path, coalesce(postings_group, 0) FROM files WHERE repository_id = $1 AND path = ANY ($2)`,
		w.repoID, paths)
	if err != nil {
		return nil, fmt.Errorf("look up files: %w", err)
	}
	var ids []int64
	groups := map[string]int64{}
	var id, group int64
	var path string
	if _, err := pgx.ForEachRow(rows, []any{&id, &path, &group}, func() error {
		ids, groups[path] = append(ids, id), group
		return nil
	}); err != nil || len(ids) == 0 {
		return groups, err
	}
	_, err = q.Exec(ctx, `WITH e AS (DELETE FROM edges WHERE repository_id = $1 AND file_id = ANY ($2)),
		s AS (DELETE FROM symbols WHERE repository_id = $1 AND file_id = ANY ($2))
		DELETE FROM files WHERE repository_id = $1 AND id = ANY ($2)`, w.repoID, ids)
	return groups, err
}

// writeFiles replaces the rows of a batch of files in one transaction, so each file
// is replaced atomically. Vectors of unchanged chunks (same content hash, same
// model) are carried over; it returns the new symbols that still need one.
// The transaction runs again when PostgreSQL ends it to break a deadlock with
// the embedding stage (pg.InTx); what it records outside it stays right when
// recorded twice (forget's and rows.add's name counts are read only as zero
// or not, touched paths and gone ids are sets).
func (w *writer) writeFiles(ctx context.Context, batch []parsed) ([]pendingSymbol, error) {
	var pending []pendingSymbol
	var before, after pg.RepoDelta
	var held []heldEdge
	var blobs map[int64]string
	err := pg.InTx(ctx, w.db.Pool, func(tx pgx.Tx) error {
		pending = pending[:0]
		if err := relaxCommit(ctx, tx); err != nil {
			return err
		}
		var hashes []string
		paths := make([]string, len(batch))
		for i := range batch {
			paths[i] = batch[i].Path
			for _, c := range batch[i].texts() {
				if c.vector == nil {
					hashes = append(hashes, c.hash)
				}
			}
		}
		reuse, err := w.reusableVectors(ctx, tx, hashes)
		if err != nil {
			return err
		}
		if before, err = w.countFiles(ctx, tx, paths); err != nil {
			return err
		}
		// The ids are recorded before the delete commits; if this transaction rolls
		// back they name symbols that still exist, which only makes the resolver
		// look at a few more edges.
		old, err := w.forget(ctx, tx, paths)
		if err != nil {
			return err
		}
		had, err := w.deleteFileRows(ctx, tx, paths)
		if err != nil {
			return fmt.Errorf("delete old rows: %w", err)
		}
		fileIDs, err := allocIDs(ctx, tx, "files", len(batch))
		if err != nil {
			return err
		}
		ids, err := w.symbolIDs(ctx, tx, batch, old)
		if err != nil {
			return err
		}
		kept := w.keptRows(batch, old, ids)
		groups := assignGroups(batch, fileIDs, had)
		var rows fileRows
		for i := range batch {
			rows.add(w, &batch[i], fileIDs[i], groups[i], ids[i], reuse, kept)
		}
		if rows.postings, err = w.postingsChange(ctx, tx, groupsOf(had), oldIDs(old), rows.posted); err != nil {
			return err
		}
		if err := w.dropVectors(ctx, tx, oldIDs(old), kept.vectors); err != nil {
			return err
		}
		pending = append(pending, rows.pending...)
		if w.spool != nil {
			held, blobs = w.spool.takeBatch(&rows)
		}
		if err := copyFileRows(ctx, tx, w.db, &rows, w.direct); err != nil {
			return err
		}
		after, err = w.countFiles(ctx, tx, paths)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write %d files (first %s): %w", len(batch), batch[0].Path, err)
	}
	if w.spool != nil {
		if err := w.spool.add(held, blobs); err != nil {
			return nil, err
		}
	}
	w.addTotals(before, after)
	return pending, nil
}

// copyFileRows bulk-loads the rows of a batch of files: straight into the
// tables when direct (writer.direct), else through the staging tables.
func copyFileRows(ctx context.Context, tx pgx.Tx, db *pg.DB, rows *fileRows, direct bool) error {
	loads := []tableLoad{
		{"files", []string{"repository_id", "id", "path", "dir",
			"blob_sha", "revision", "language", "size_bytes", "content_hash", "status", "skip_reason", "notes",
			"secrets_redacted", "is_test", "mtime_ns", "postings_group"}, rows.files, ""},
		{"symbols", []string{"repository_id", "id", "file_id",
			"path", "name", "qualified_name", "aliases", "kind", "parent_id", "receiver", "signature", "doc",
			"start_line", "end_line", "start_byte", "end_byte", "content", "content_hash", "language",
			"exported", "is_test", "embedding_state", "skeleton", "doc_length", "result_type", "embeds"}, rows.symbols, ""},
		{"edges", edgeColumns, rows.edges, ""},
		// In term order: the batch's rows then land next to each other in the
		// term index instead of at random places across it.
		{"postings", []string{"repository_id", "group_id", "term", "n", "data"}, rows.postings,
			`repository_id, term, group_id`},
		{"symbol_embeddings", vectorColumns, rows.vectors, ""},
	}
	if direct {
		sortPostingRows(rows.postings)
		return copyDirect(ctx, tx, loads)
	}
	for _, l := range loads {
		if err := copyRowsOrdered(ctx, tx, db, l.table, l.cols, l.rows, l.order); err != nil {
			return err
		}
	}
	return nil
}

// symbolIDs gives each file's new symbols (chunks, then fields) the ids of the
// stored ones they replace and fresh ids for the rest (ids.go).
func (w *writer) symbolIDs(ctx context.Context, tx pgx.Tx, batch []parsed, old map[string][]oldSymbol) ([][]int64, error) {
	out := make([][]int64, len(batch))
	fresh := 0
	for i, p := range batch {
		var news []newSymbol
		if p.file != nil {
			news = newSymbols(p.file)
		}
		ids, gone, names := matchIDs(old[p.Path], news)
		w.markGone(gone, names)
		for _, id := range ids {
			if id == 0 {
				fresh++
			}
		}
		out[i] = ids
	}
	allocated, err := allocIDs(ctx, tx, "symbols", fresh)
	if err != nil {
		return nil, err
	}
	for _, ids := range out {
		for j := range ids {
			if ids[j] == 0 {
				ids[j], allocated = allocated[0], allocated[1:]
			}
		}
	}
	return out, nil
}

// reusableVectors fetches this model's vectors for content hashes already embedded
// anywhere in the repository.
func (w *writer) reusableVectors(ctx context.Context, tx pgx.Tx, hashes []string) (map[string]pgvector.HalfVector, error) {
	out := map[string]pgvector.HalfVector{}
	if len(hashes) == 0 {
		return out, nil
	}
	since := pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
	if !w.reuseSince.IsZero() {
		since = pgtype.Timestamptz{Time: w.reuseSince, Valid: true}
	}
	rows, err := tx.Query(ctx, `SELECT DISTINCT ON (content_hash) content_hash, embedding FROM symbol_embeddings
		WHERE repository_id = $1 AND model_id = $2 AND content_hash = ANY($3) AND created_at >= $4`,
		w.repoID, w.modelID, hashes, since)
	if err != nil {
		return nil, fmt.Errorf("look up reusable embeddings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		var v pgvector.HalfVector
		if err := rows.Scan(&h, &v); err != nil {
			return nil, fmt.Errorf("look up reusable embeddings: %w", err)
		}
		out[h] = v
	}
	return out, rows.Err()
}
