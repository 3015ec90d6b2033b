package index

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Edge resolution, in SQL over the whole repository, in order of confidence. Each
// step only touches edges no earlier step decided, so a call resolves by type before
// any name is looked at, and a name defined both in the same file and elsewhere
// resolves to the same file's definition:
//
//  0. by type (resolve_typed.go): a call whose qualifier has a known type resolves
//     to that type's method, then to one its embedded types or bases provide; a
//     known type without the method stays unresolved (no guess of another type's);
//  1. the same file (bare calls to functions, self/this calls to methods);
//  2. a module the file imports (Go package alias, `import x as y`, named imports);
//  3. the same Go package (same directory);
//  4. a name defined exactly once in the repository;
//  5. a method call through an untyped qualifier: every method of that name in the
//     language, kept as an ambiguous edge.
//
// Each step keeps its best-ranked candidates: one is the target, several make the
// edge ambiguous (candidates lists them; target_id is the first). Ties are ordered
// by (path, start_line, kind, qualified_name), never by id: ids depend on which
// writer committed first. An edge that none resolves keeps its name (target_id
// NULL): calls into the standard library and other external code.
//
// Kind rules: a bare call never targets a method (no language here allows it); a
// call through self/this/cls targets a method; a call through another qualifier
// targets a method or a function assigned to that property (`res.send = function`).
// Reads and writes target fields and only fields; they go through the same steps
// as method calls, with the field in the method's place.

const refKinds = `('calls','inherits','implements','references','reads','writes')`

// kindMatch decides whether definition d is of the kind edge e can target: a
// field for a read or a write, anything but a field otherwise.
const kindMatch = `((e.kind IN ('reads','writes')) = (d.kind = 'field'))`

// linkedByIndexer excludes the Go implements edges: linkGoImplementations decides
// them, by method sets, before resolution. An edge's path is its file's
// (migration 0022): looked up by key, and only for implements edges.
const linkedByIndexer = `NOT (e.kind = 'implements' AND EXISTS (SELECT 1 FROM files gf
	WHERE gf.repository_id = $1 AND gf.id = e.file_id AND gf.path LIKE '%.go'))`

// linkedByIndexerF is linkedByIndexer where e's file is joined as f.
const linkedByIndexerF = `NOT (e.kind = 'implements' AND f.path LIKE '%.go')`

const defKinds = `('module','part','block')`

// qualifierRule decides whether definition d may be the target of edge e.
const qualifierRule = `(` + kindMatch + ` AND (
	(e.qual = '' AND d.kind <> 'method')
	OR (e.qual IN ('self','this','cls','super') AND d.kind IN ('method', 'field'))
	OR (e.qual NOT IN ('', 'self', 'this', 'cls', 'super')
		AND (d.kind IN ('method', 'field') OR d.qualified_name = e.qual || '.' || e.target_name))))`

// candOrder is the deterministic order of candidates (see above).
const candOrder = `path COLLATE "C", start_line, kind COLLATE "C", qname COLLATE "C"`

// settle records the decision of one step. cands yields (edge_id, sid, rnk, conf,
// path, start_line, kind, qname) rows: per edge, the candidates of the lowest rnk
// remain; one is taken with its conf, several make the edge ambiguous.
func settle(cands string) string {
	return `
		INSERT INTO res_out (edge_id, sid, confidence, candidates)
		SELECT edge_id, a[1], CASE WHEN cardinality(a) = 1 THEN conf ELSE 'ambiguous' END,
		       CASE WHEN cardinality(a) > 1 THEN a END
		-- One ordered aggregate per edge (PostgreSQL 15 sorts each of two alike
		-- aggregates on its own: the target and the list were two sorts).
		FROM (SELECT edge_id, array_agg(sid ORDER BY ` + candOrder + `) AS a, min(conf) AS conf
		      FROM (SELECT c.*, rank() OVER (PARTITION BY c.edge_id ORDER BY c.rnk) AS r
		            FROM (SELECT DISTINCT ON (c0.edge_id, c0.sid) c0.* FROM (` + cands + `) c0
		                  ORDER BY c0.edge_id, c0.sid, c0.rnk) c) c
		      WHERE c.r = 1
		      GROUP BY edge_id) g
		ON CONFLICT DO NOTHING`
}

// notDecided excludes the edges an earlier step decided.
const notDecided = `NOT EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = e.id)`

// typeBase is the type name an edge's target_type names ("()pkg.F" -> F,
// "pkg.T#f" -> T), so that rewriting the file defining it reconsiders the
// edge: a stored column (migration 0013), "" for an untyped edge.
const typeBase = `e.target_type_base`

// typeBaseX is typeBase of edge x, found through its index (the partial
// index's condition is written out so the planner can use it).
const typeBaseX = `x.target_type_base`

// affectedResolved and affectedUnresolved gather the ids of the edges an
// incremental run may have to decide again, one indexed lookup per reason
// (migration 0006; per name, through LATERAL: a hash join over the names
// recomputed the type expression on every typed edge), so the steps below
// filter a handful of rows instead of
// scanning every edge; a full pass (res_scope empty) takes them all. The
// steps then test the same reasons again, exactly. UNION ALL: the ids are only
// ever tested with IN, and removing duplicates sorted or hashed a set the
// planner sized at every edge of the repository (the full pass's branch).
const affectedResolved = `
	SELECT x.id FROM edges x WHERE x.repository_id = $1 AND x.target_id IN (SELECT id FROM res_gone) AND ` + scopedRun + `
	UNION ALL SELECT x.id FROM edges x WHERE x.repository_id = $1 AND x.target_name IN (SELECT name FROM res_changed_names)
	      AND ` + scopedRun + `
	UNION ALL SELECT x.id FROM res_scope_names n CROSS JOIN LATERAL (SELECT x.id FROM edges x
	      WHERE x.repository_id = $1 AND x.target_name = n.name AND x.target_id IS NOT NULL) x WHERE ` + scopedRun + `
	UNION ALL SELECT x.id FROM edges x WHERE x.repository_id = $1 AND x.candidates IS NOT NULL
	      AND x.candidates && (SELECT coalesce(array_agg(id), '{}') FROM res_gone) AND ` + scopedRun + `
	UNION ALL SELECT x.id FROM res_scope_names n CROSS JOIN LATERAL (SELECT x.id FROM edges x
	      WHERE x.repository_id = $1 AND ` + typeBaseX + ` <> '' AND ` + typeBaseX + ` = n.name) x WHERE ` + scopedRun + `
	UNION ALL SELECT x.id FROM edges x WHERE x.repository_id = $1 AND NOT ` + scopedRun + partMark

const affectedUnresolved = `
	SELECT x.id FROM edges x WHERE x.repository_id = $1
	      AND x.file_id IN (SELECT sf.id FROM files sf WHERE sf.repository_id = $1 AND sf.path IN (SELECT path FROM res_scope))
	UNION ALL SELECT id FROM res_dangling WHERE ` + scopedRun + `
	UNION ALL SELECT x.id FROM res_scope_names n CROSS JOIN LATERAL (SELECT x.id FROM edges x
	      WHERE x.repository_id = $1 AND x.target_name = n.name AND x.target_id IS NULL) x WHERE ` + scopedRun + `
	UNION ALL SELECT x.id FROM res_scope_names n CROSS JOIN LATERAL (SELECT x.id FROM edges x
	      WHERE x.repository_id = $1 AND ` + typeBaseX + ` <> '' AND ` + typeBaseX + ` = n.name) x WHERE ` + scopedRun + `
	UNION ALL SELECT x.id FROM edges x WHERE x.repository_id = $1 AND NOT ` + scopedRun + partMark

// scopedRun holds in a scoped run; in a full pass the last branch of each
// list above takes every edge and the others are left out.
const scopedRun = `EXISTS (SELECT 1 FROM res_scope)`

// The work happens on small session tables built for the run and analysed, so the
// planner joins on equality keys with hashes instead of guessing from stale
// statistics of freshly loaded tables (a nested loop over 100k edges took minutes).
//
// The ids are gathered into analysed tables first (res_aff_r, res_aff_u): the
// planner cannot see that the full pass's branch (every edge, when res_scope
// is empty) yields nothing in a scoped run, estimated the union at every
// edge, and scanned them all (a one-line save at $GOROOT scale spent 2-5 s in
// each of the two statements below; with the tables, 10 and 20 ms). The
// typeBaseX branch reads a stored column: under row-level security an index
// on the expression could not be used (regexp_replace is not leakproof) and
// every typed edge was read, ~470 ms per statement there.
var collectSteps = []struct{ name, sql string }{
	{"affected resolved edges", `INSERT INTO res_aff_r ` + affectedResolved},
	{"analyse affected resolved edges", `ANALYZE res_aff_r`},
	// The resolved edges whose decision the change may move are decided again
	// but not written here: apply writes only the decisions that differ. (They
	// were set unresolved first and written back, two row versions and an entry
	// in every edge index for each; most come back to the same target.) The
	// steps read such an edge as unresolved: collect takes it, and the
	// re-exported names step does not trust its stored target.
	{"affected targets", `
		INSERT INTO res_dangling
		SELECT e.id FROM edges e, (SELECT coalesce(array_agg(id), '{}') AS ids FROM res_gone) gone
		WHERE e.repository_id = $1 AND e.id = ANY (ARRAY(SELECT DISTINCT id FROM res_aff_r))
		  AND e.target_id IS NOT NULL AND e.kind IN ` + refKinds + ` AND ` + linkedByIndexer + `
		  AND (e.target_name IN (SELECT name FROM res_changed_names)
		       -- a definition of that name was added, removed, changed or moved
		       OR e.target_name IN (SELECT name FROM res_scope_names)
		       OR e.candidates && gone.ids
		       -- the qualifier's type (its methods, embeds, bases) was rewritten
		       OR ` + typeBase + ` IN (SELECT name FROM res_scope_names)
		       OR NOT EXISTS (SELECT 1 FROM symbols s WHERE s.repository_id = $1 AND s.id = e.target_id))
		ON CONFLICT DO NOTHING`},
	// Temp tables are never auto-analysed: without statistics the planner guesses
	// their size, so the ones the next statements read are analysed once filled.
	{"analyse scope", `ANALYZE res_dangling, res_scope_names`},
	{"affected unresolved edges", `INSERT INTO res_aff_u ` + affectedUnresolved},
	{"analyse affected unresolved edges", `ANALYZE res_aff_u`},
	{"collect unresolved edges", `
		INSERT INTO res_edges
		SELECT e.id, e.file_id, f.dir, f.language, e.kind, e.target_name, e.target_qualifier AS qual,
		       e.target_type AS ttype, coalesce(src.receiver, '') AS src_receiver, src.is_test AS src_test,
		       src.parent_id AS src_parent, coalesce(par.kind IN ('var', 'const') AND src.kind = 'function', false) AS src_in_object
		FROM edges e
		JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
		JOIN symbols src ON src.repository_id = e.repository_id AND src.id = e.source_id
		LEFT JOIN symbols par ON par.repository_id = e.repository_id AND par.id = src.parent_id
		-- By key (keyLookup): a semi join against the ids scanned every
		-- unresolved edge of the repository.
		WHERE e.repository_id = $1 AND e.id = ANY (ARRAY(SELECT DISTINCT id FROM res_aff_u))
		  AND (e.target_id IS NULL OR e.id IN (SELECT id FROM res_dangling))
		  AND e.kind IN ` + refKinds + ` AND ` + linkedByIndexerF + `
		  AND (NOT EXISTS (SELECT 1 FROM res_scope)
		       OR e.file_id IN (SELECT sf.id FROM files sf WHERE sf.repository_id = $1
		                        AND sf.path IN (SELECT path FROM res_scope))
		       OR e.id IN (SELECT id FROM res_dangling)
		       OR e.target_name IN (SELECT name FROM res_scope_names)
		       OR ` + typeBase + ` IN (SELECT name FROM res_scope_names))`},
	// Statistics before the lookups below: without them res_edges counts as 200
	// files and the import bindings were read by a scan of every edge.
	{"analyse unresolved edges", `ANALYZE res_edges`},
	{"collect definitions", `
		INSERT INTO res_defs
		SELECT s.id, s.file_id, f.path, f.dir, f.language, s.kind,
		       regexp_replace(coalesce(s.receiver, ''), '^\*|\[.*$', '', 'g') AS receiver,
		       s.qualified_name, s.exported, n.name, s.start_line, s.parent_id, s.is_test
		FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		CROSS JOIN LATERAL unnest(array_prepend(s.name, s.aliases)) AS n(name)
		WHERE s.repository_id = $1 AND s.kind NOT IN ` + defKinds + `
		  AND NOT EXISTS (SELECT 1 FROM res_scope)
		-- A scoped run: every definition of every name the edges use, and no
		-- others, looked up by name and by alias through their indexes (a
		-- filter after the unnest read every symbol: ~380 ms at $GOROOT/src
		-- scale; a GIN lookup of every name, 137 s for a 192-file change of
		-- sqlalchemy: migration 0019). The same rows as the full pass's: one per occurrence of a
		-- wanted name among the symbol's name and aliases.
		UNION ALL
		SELECT s.id, s.file_id, f.path, f.dir, f.language, s.kind,
		       regexp_replace(coalesce(s.receiver, ''), '^\*|\[.*$', '', 'g') AS receiver,
		       s.qualified_name, s.exported, s.name, s.start_line, s.parent_id, s.is_test
		FROM (SELECT x.id, x.file_id, x.kind, x.receiver, x.qualified_name, x.exported, x.name, x.start_line,
		             x.parent_id, x.is_test
		      FROM symbols x WHERE x.repository_id = $1 AND x.name IN (SELECT target_name FROM res_edges)
		      UNION ALL
		      SELECT x.id, x.file_id, x.kind, x.receiver, x.qualified_name, x.exported, a.name, x.start_line,
		             x.parent_id, x.is_test
		      FROM symbols x CROSS JOIN LATERAL unnest(x.aliases) AS a(name)
		      -- the few symbols with aliases (migration 0019), matched by hash
		      WHERE x.repository_id = $1 AND x.aliases <> '{}' AND a.name IN (SELECT target_name FROM res_edges)) s
		JOIN files f ON f.repository_id = $1 AND f.id = s.file_id
		WHERE s.kind NOT IN ` + defKinds + ` AND EXISTS (SELECT 1 FROM res_scope)`},
	{"collect import bindings", `
		INSERT INTO res_imports
		SELECT DISTINCT e.file_id, e.target_qualifier AS qual, e.target_path, tf.id AS target_file
		FROM edges e
		LEFT JOIN files tf ON tf.repository_id = e.repository_id AND tf.path = e.target_path
		WHERE e.repository_id = $1 AND e.kind = 'imports'
		  AND e.file_id IN (SELECT file_id FROM res_edges)`},
	{"analyse", `ANALYZE res_defs, res_imports`},
}

// linkImports points import edges at the files they name. A full pass looks at
// every import edge; a scoped run at those of the files it wrote and those
// naming a path it wrote (a rewritten file has a new id), since the imports
// whose target path changed were linked by reresolveImports. The full
// statement read every import edge of $GOROOT/src on each one-file change.
func linkImports(scoped bool) string {
	const link = `
		UPDATE edges e SET target_file_id = f.id, confidence = 'exact'
		FROM files f
		WHERE e.repository_id = $1 AND e.kind = 'imports' AND e.target_path IS NOT NULL
		  AND f.repository_id = $1 AND f.path = e.target_path
		  AND e.target_file_id IS DISTINCT FROM f.id`
	if !scoped {
		return link
	}
	// By key (keyLookup): against the ids themselves the planner paired
	// every import edge with every id, 60 s for a 192-file change.
	return link + `
		  AND e.id = ANY (ARRAY(
			SELECT x.id FROM edges x WHERE x.repository_id = $1 AND x.target_path IS NOT NULL
			       AND x.target_path IN (SELECT path FROM res_scope)
			UNION
			SELECT x.id FROM edges x WHERE x.repository_id = $1 AND x.kind = 'imports'
			       AND x.file_id IN (SELECT sf.id FROM files sf WHERE sf.repository_id = $1
			                         AND sf.path IN (SELECT path FROM res_scope))))`
}

// keyLookup is how a scoped run's steps look up the edges of a set of ids:
// by key, one probe each (= ANY of an array, which the planner cannot size:
// against the ids themselves it estimated thousands of rows and read every
// edge of the repository). A full pass's sets hold every edge, and take the
// same rows with a semi join (byKey).
var keyLookup = regexp.MustCompile(`= ANY \(ARRAY\(SELECT DISTINCT id FROM (\w+)\)\)`)

// byKey returns sql as a scoped run (scoped) or a full pass runs it.
func byKey(sql string, scoped bool) string {
	if scoped {
		return sql
	}
	return keyLookup.ReplaceAllString(sql, "IN (SELECT id FROM $1)")
}

// adjustSteps correct decisions the steps made, before they are written.
var adjustSteps = []struct{ name, sql string }{
	// Python: calling a class runs its __init__ (the class itself when it has
	// none); of several, the last: the implementation after its @overload
	// stubs (one was picked at random before).
	{"constructors", `
		UPDATE res_out o SET sid = i.id
		FROM res_edges e, symbols c
		CROSS JOIN LATERAL (SELECT i.id FROM symbols i
		      WHERE i.repository_id = $1 AND i.parent_id = c.id AND i.name = '__init__' AND i.kind = 'method'
		      ORDER BY i.start_line DESC, i.id LIMIT 1) i
		WHERE o.edge_id = e.id AND e.kind = 'calls' AND e.qual = '' AND o.candidates IS NULL
		  AND c.repository_id = $1 AND c.id = o.sid AND c.kind = 'class' AND c.language = 'python'`},
}

// applyDecisions writes the decisions back. Only those that differ from the
// stored ones are written: an affected edge (res_dangling) that no step
// decided is unresolved now; an undecided edge that was unresolved (a typed
// call left without a target among them) stays so without a write. The edges
// are looked up by key (keyLookup: a hash join read every edge of the
// repository for 4k decisions).
const applyDecisions = `
		WITH d AS MATERIALIZED (` + decisions + `)
		UPDATE edges e SET target_id = d.sid, confidence = d.confidence, candidates = d.candidates
		FROM d WHERE e.repository_id = $1 AND e.id = ANY (ARRAY(SELECT DISTINCT id FROM d)) AND e.id = d.id
		  AND (e.target_id, e.confidence, e.candidates) IS DISTINCT FROM (d.sid, d.confidence, d.candidates)`

// decisions are the decisions to write: the edge id, target, confidence and
// candidates of every edge a step decided or that is dangling now.
const decisions = `
			SELECT o.edge_id AS id, o.sid, o.confidence, o.candidates FROM res_out o WHERE o.sid IS NOT NULL
			UNION ALL
			SELECT g.id, NULL::bigint, 'unresolved', NULL::bigint[] FROM res_dangling g
			WHERE NOT EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = g.id AND o.sid IS NOT NULL)`

// resetEdges forgets every decision about the repository's edges, so the
// steps decide each one as a clean index does: after an interrupted run, whose
// deletions and rewrites (what only it knew: w.gone, the changed names) may
// have left other files' edges pointing at candidates that are gone or
// missing candidates that came (issue 36, 2).
const resetEdges = `
		UPDATE edges e SET target_id = NULL, confidence = 'unresolved', candidates = NULL
		WHERE e.repository_id = $1 AND e.kind IN ` + refKinds + ` AND ` + linkedByIndexer + `
		  AND (e.target_id IS NOT NULL OR e.candidates IS NOT NULL OR e.confidence <> 'unresolved')`

// resolveEdges links edges to their target symbols and imports to their files.
// scope lists the paths an incremental run wrote; nil means every edge of the
// repository is reconsidered: the undecided ones and those the run's changes
// can affect, or with reset every one. w.gone holds the ids of the symbols the
// run deleted, whose callers must be resolved anew.
func (w *writer) resolveEdges(ctx context.Context, scope []string, reset bool) error {
	if scope == nil && !w.db.Distributed {
		refs, err := w.countReferences(ctx)
		if err != nil {
			return err
		}
		if w.resolveIn == "memory" || (w.resolveIn == "" && refs <= maxInMemoryReferences) {
			return w.resolveInMemory(ctx, reset, refs)
		}
	}
	// The SQL steps read every edge from the table.
	if err := w.flushHeld(ctx); err != nil {
		return err
	}
	// They look edges up by file, source and target.
	if w.edgeIndexesDeferred {
		if err := w.db.BuildEdgeResolutionIndexes(ctx); err != nil {
			return err
		}
	}
	if w.atSQLPass != nil {
		w.atSQLPass()
	}
	if scope == nil && !w.db.Distributed {
		return w.resolveInParts(ctx, reset)
	}
	return pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		// Every statement goes in one pipelined batch: the server runs (and
		// plans) each after the one before, so a step still sees the tables the
		// earlier ones filled and analysed, and a small change's resolution
		// costs one round trip instead of about forty.
		b, err := w.openResolution(ctx, tx)
		if err != nil {
			return err
		}
		if w.db.Distributed {
			for _, c := range shadowCopies {
				b.step(c.name, c.sql, w.repoID)
			}
		}
		w.queueScope(b, scope)
		if reset && scope == nil {
			b.queue("forget every decision", resetEdges, w.repoID)
		}
		b.queue("link imports to files", linkImports(scope != nil), w.repoID)
		for _, step := range decideSteps() {
			b.step(step.name, byKey(step.sql, scope != nil), w.repoID)
		}
		last := w.queueApply(b, scope == nil)
		return b.send(ctx, tx, last)
	})
}

// openResolution readies tx for a resolution that writes the repository's
// edges: nothing rewritten yet, the session tables there, and a batch that
// starts with the work transaction's statements (queueWorkTx).
func (w *writer) openResolution(ctx context.Context, tx pgx.Tx) (*stepBatch, error) {
	w.edgesRewritten = false
	if err := createResTables(ctx, tx); err != nil {
		return nil, err
	}
	b := &stepBatch{}
	w.queueWorkTx(b)
	return b, nil
}

// queueWorkTx opens a transaction that writes the repository's edges: its
// commit relaxed (commit.go), its work lock held (lock.go).
func (w *writer) queueWorkTx(b *stepBatch) {
	b.queue("relax the commit", relaxCommitSQL)
	b.queue("hold the work lock", holdWorkSQL, workSpace, lockKey(w.repoID))
}

// queueScope queues the run's scope into the session tables: the paths it
// wrote (nil: every edge is considered), the symbols it deleted, the names
// whose definitions it changed.
func (w *writer) queueScope(b *stepBatch, scope []string) {
	// The steps sort and hash hundreds of thousands of rows at $GOROOT/src
	// scale: with the default 4 MB each spilled to disk in up to 128 batches.
	b.queue("work memory", `SET LOCAL work_mem = '64MB'`)
	b.queue("scope", `INSERT INTO res_scope SELECT unnest($1::text[]) AS path`, scope)
	b.queue("deleted symbols", `INSERT INTO res_gone SELECT unnest($1::bigint[]) AS id`, w.gone)
	b.queue("changed names", `INSERT INTO res_changed_names SELECT unnest($1::text[]) AS name`, w.changedNames())
	// The names of the definitions the run added, removed or changed (ids.go):
	// the edges naming them, or typed by them, may resolve differently.
	b.queue("changed definitions", `INSERT INTO res_scope_names SELECT unnest($1::text[]) AS name`, w.changedDefinitions())
	b.queue("analyse the scope", `ANALYZE res_scope, res_gone, res_changed_names, res_scope_names`)
}

// decideSteps are the steps that decide the edges, in order, before the
// decisions are written.
func decideSteps() []struct{ name, sql string } {
	var all []struct{ name, sql string }
	for _, steps := range [][]struct{ name, sql string }{collectSteps, typedSteps, nameSteps, adjustSteps} {
		all = append(all, steps...)
	}
	return all
}

// step queues a step, with the repository as $1 when it reads it.
func (b *stepBatch) step(name, sql string, repoID int64) {
	if strings.Contains(sql, "$1") {
		b.queue(name, sql, repoID)
	} else {
		b.queue(name, sql)
	}
}

// queueApply queues the writing of the decisions: the apply step, in a full
// pass after the rewrite of the edges where it may (resolve_rewrite.go), and
// under Citus the write back. It returns where the last statement's answer
// goes (whether the edges were rewritten), or nil when it has none.
func (w *writer) queueApply(b *stepBatch, full bool) *bool {
	rewrite := w.rewriteEdges && full && !w.db.Distributed
	if rewrite {
		queueRewrite(b, w.repoID)
	}
	sql := byKey(applyDecisions, !full)
	if rewrite {
		sql += skipIfRewritten
	}
	b.queue("apply", sql, w.repoID)
	if w.db.Distributed {
		b.queue("write the decisions back", shadowWriteBack, w.repoID)
	}
	if !rewrite {
		return nil
	}
	b.queue("whether the edges were rewritten", rewrittenSQL)
	return &w.edgesRewritten
}

// stepBatch is a pipelined batch of the resolution's statements, each named
// for its errors.
type stepBatch struct {
	names []string
	batch pgx.Batch
}

// queue adds a statement.
func (b *stepBatch) queue(name, sql string, args ...any) {
	b.names = append(b.names, name)
	b.batch.Queue(sql, args...)
}

// send sends the batch in tx and reads each statement's result, into last the
// last one's boolean when last is not nil.
func (b *stepBatch) send(ctx context.Context, tx pgx.Tx, last *bool) error {
	names := b.names
	br := tx.SendBatch(ctx, &b.batch)
	for i, name := range names {
		var err error
		if last != nil && i == len(names)-1 {
			err = br.QueryRow().Scan(last)
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			br.Close()
			return fmt.Errorf("resolve edges (%s): %w", name, err)
		}
	}
	if err := br.Close(); err != nil {
		return fmt.Errorf("resolve edges: %w", err)
	}
	return nil
}

// reresolveImports recomputes where every import points. A file's own imports are
// resolved when it is parsed, but adding or deleting another file changes the
// answer for files that did not change (./money now missing, or newly present).
// It reports whether a Go import now points elsewhere.
func (w *writer) reresolveImports(ctx context.Context, r *importResolver) (goMoved bool, err error) {
	rows, err := w.db.Pool.Query(ctx, `SELECT e.id, f.path, coalesce(f.language, ''), e.target_name, coalesce(e.target_path, '')
		FROM edges e JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
		WHERE e.repository_id = $1 AND e.kind = 'imports'`, w.repoID)
	if err != nil {
		return false, fmt.Errorf("re-resolve imports: %w", err)
	}
	var ids []int64
	var targets []*string
	var id int64
	var path, lang, name, old string
	_, err = pgx.ForEachRow(rows, []any{&id, &path, &lang, &name, &old}, func() error {
		if now := r.resolve(lang, path, name); now != old {
			goMoved = goMoved || lang == "go"
			ids = append(ids, id)
			if now == "" {
				targets = append(targets, nil)
			} else {
				targets = append(targets, &now)
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("re-resolve imports: %w", err)
	}
	if len(ids) == 0 {
		return false, nil
	}
	// Linked to the file they now name here: a scoped run's resolution links
	// only the imports of and to the files it wrote (linkImports).
	_, err = w.db.Pool.Exec(ctx, `UPDATE edges e SET target_path = u.path, target_file_id = f.id,
			confidence = CASE WHEN f.id IS NULL THEN 'unresolved' ELSE 'exact' END
		FROM unnest($2::bigint[], $3::text[]) AS u(id, path)
		LEFT JOIN files f ON f.repository_id = $1 AND f.path = u.path
		WHERE e.repository_id = $1 AND e.id = u.id`, w.repoID, ids, targets)
	if err != nil {
		return false, fmt.Errorf("re-resolve imports: %w", err)
	}
	return goMoved, nil
}
