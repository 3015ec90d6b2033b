package index

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Edge resolution, in SQL over the whole repository, in order of confidence. Each
// step only touches edges still unresolved, so a name defined both in the same file
// and elsewhere resolves to the same file's definition:
//
//  1. the same file (bare calls to functions, self/this calls to methods);
//  2. a module the file imports (Go package alias, `import x as y`, named imports);
//  3. the same Go package (same directory);
//  4. a name defined exactly once in the repository.
//
// An edge that none resolves keeps its name (target_id NULL): calls into the
// standard library and other external code.
//
// Kind rules: a bare call never targets a method (no language here allows it); a
// call through self/this/cls targets a method; a call through another qualifier
// targets a method or a function assigned to that property (`res.send = function`).

const refKinds = `('calls','inherits','implements','references')`

const defKinds = `('module','part','block')`

// qualifierRule decides whether definition d may be the target of edge e.
const qualifierRule = `(
	(e.qual = '' AND d.kind <> 'method')
	OR (e.qual IN ('self','this','cls','super') AND d.kind = 'method')
	OR (e.qual NOT IN ('', 'self', 'this', 'cls', 'super')
		AND (d.kind = 'method' OR d.qualified_name = e.qual || '.' || e.target_name)))`

// The work happens on small session tables built for the run and analysed, so the
// planner joins on equality keys with hashes instead of guessing from stale
// statistics of freshly loaded tables (a nested loop over 100k edges took minutes).
var resolveSteps = []struct{ name, sql string }{
	{"names the written files define", `
		CREATE TEMP TABLE res_scope_names ON COMMIT DROP AS
		SELECT DISTINCT n.name
		FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		CROSS JOIN LATERAL unnest(array_prepend(s.name, s.aliases)) AS n(name)
		WHERE s.repository_id = $1 AND f.path IN (SELECT path FROM res_scope)`},
	{"forget dangling and affected targets", `
		WITH d AS (
			UPDATE edges e SET target_id = NULL
			WHERE e.repository_id = $1 AND e.target_id IS NOT NULL AND e.kind IN ` + refKinds + `
			  AND (NOT EXISTS (SELECT 1 FROM res_scope) OR e.target_id IN (SELECT id FROM res_gone)
			       -- a name defined more or fewer times than before may now resolve
			       -- elsewhere, or no longer be unique: decide those edges again
			       OR e.target_name IN (SELECT name FROM res_changed_names))
			  AND (e.target_name IN (SELECT name FROM res_changed_names)
			       OR NOT EXISTS (SELECT 1 FROM symbols s WHERE s.repository_id = $1 AND s.id = e.target_id))
			RETURNING e.id)
		INSERT INTO res_dangling SELECT id FROM d`},
	// Temp tables are never auto-analysed: without statistics the planner guesses
	// their size, so the ones the next statements read are analysed once filled.
	{"analyse scope", `ANALYZE res_dangling, res_scope_names`},
	{"link imports to files", `
		UPDATE edges e SET target_file_id = f.id
		FROM files f
		WHERE e.repository_id = $1 AND e.kind = 'imports' AND e.target_path IS NOT NULL
		  AND f.repository_id = $1 AND f.path = e.target_path
		  AND e.target_file_id IS DISTINCT FROM f.id`},
	{"collect unresolved edges", `
		CREATE TEMP TABLE res_edges ON COMMIT DROP AS
		SELECT e.id, e.file_id, f.dir, f.language, e.target_name, e.target_qualifier AS qual,
		       coalesce(src.receiver, '') AS src_receiver
		FROM edges e
		JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
		JOIN symbols src ON src.repository_id = e.repository_id AND src.id = e.source_id
		WHERE e.repository_id = $1 AND e.target_id IS NULL AND e.kind IN ` + refKinds + `
		  -- An incremental run only looks at the edges its changes can affect: those
		  -- of the files it wrote, those whose target it deleted, and those naming
		  -- something the written files define. (res_scope is empty for a full pass.)
		  AND (NOT EXISTS (SELECT 1 FROM res_scope)
		       OR e.file_id IN (SELECT sf.id FROM files sf WHERE sf.repository_id = $1
		                        AND sf.path IN (SELECT path FROM res_scope))
		       OR e.id IN (SELECT id FROM res_dangling)
		       OR e.target_name IN (SELECT name FROM res_scope_names))`},
	{"collect definitions", `
		CREATE TEMP TABLE res_defs ON COMMIT DROP AS
		SELECT s.id, s.file_id, f.path, f.dir, f.language, s.kind, coalesce(s.receiver, '') AS receiver,
		       s.qualified_name, s.exported, n.name
		FROM symbols s
		JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		CROSS JOIN LATERAL unnest(array_prepend(s.name, s.aliases)) AS n(name)
		WHERE s.repository_id = $1 AND s.kind NOT IN ` + defKinds + `
		  -- Every definition of every name the edges use, and no others.
		  AND (NOT EXISTS (SELECT 1 FROM res_scope) OR n.name IN (SELECT target_name FROM res_edges))`},
	{"collect import bindings", `
		CREATE TEMP TABLE res_imports ON COMMIT DROP AS
		SELECT DISTINCT e.file_id, e.target_qualifier AS qual, e.target_path, tf.id AS target_file
		FROM edges e
		LEFT JOIN files tf ON tf.repository_id = e.repository_id AND tf.path = e.target_path
		WHERE e.repository_id = $1 AND e.kind = 'imports'
		  AND e.file_id IN (SELECT file_id FROM res_edges)`},
	{"index import bindings", `CREATE INDEX ON res_imports (file_id, qual)`},
	{"analyse", `ANALYZE res_defs, res_edges, res_imports`},
	{"results table", `CREATE TEMP TABLE res_out (edge_id bigint PRIMARY KEY, sid bigint NOT NULL) ON COMMIT DROP`},
	// 1. Same file. A qualifier bound to an import (billing.Refund) is not a local call.
	{"same file", `
		INSERT INTO res_out
		SELECT DISTINCT ON (e.id) e.id, d.id
		FROM res_edges e JOIN res_defs d ON d.file_id = e.file_id AND d.name = e.target_name
		WHERE ` + qualifierRule + `
		  AND NOT EXISTS (SELECT 1 FROM res_imports i WHERE i.file_id = e.file_id AND i.qual <> '' AND i.qual = e.qual)
		ORDER BY e.id, (d.receiver = e.src_receiver) DESC, d.id
		ON CONFLICT DO NOTHING`},
	// 2. A module the file imports: through its binding (pkg.Func, ns.f) or, for a
	// bare name, any definition in an imported file (from x import f; import {f});
	// first imported files, then imported Go packages (directories).
	{"imported files", `
		INSERT INTO res_out
		SELECT DISTINCT ON (e.id) e.id, d.id
		FROM res_edges e
		JOIN res_imports i ON i.file_id = e.file_id AND i.target_file IS NOT NULL
		     AND (e.qual = '' OR i.qual = e.qual)
		JOIN res_defs d ON d.file_id = i.target_file AND d.name = e.target_name AND d.kind <> 'method'
		WHERE NOT EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = e.id)
		ORDER BY e.id, d.exported DESC, d.id
		ON CONFLICT DO NOTHING`},
	{"imported Go packages", `
		INSERT INTO res_out
		SELECT DISTINCT ON (e.id) e.id, d.id
		FROM res_edges e
		JOIN res_imports i ON i.file_id = e.file_id AND i.target_path IS NOT NULL AND i.qual = e.qual
		JOIN res_defs d ON d.dir = i.target_path AND d.language = 'go' AND d.name = e.target_name AND d.kind <> 'method'
		WHERE e.language = 'go' AND NOT EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = e.id)
		ORDER BY e.id, d.exported DESC, d.id
		ON CONFLICT DO NOTHING`},
	// 3. The same Go package (directory).
	{"same Go package", `
		INSERT INTO res_out
		SELECT DISTINCT ON (e.id) e.id, d.id
		FROM res_edges e JOIN res_defs d ON d.dir = e.dir AND d.language = 'go' AND d.name = e.target_name
		WHERE e.language = 'go' AND ` + qualifierRule + `
		  AND NOT EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = e.id)
		  AND NOT EXISTS (SELECT 1 FROM res_imports i WHERE i.file_id = e.file_id AND i.qual <> '' AND i.qual = e.qual)
		ORDER BY e.id, d.id
		ON CONFLICT DO NOTHING`},
	// 4. A name defined once in the repository. Not for a bare Go call (it can only
	// reach its own package), not for a bare call to a method, and not through a
	// qualifier bound to an external import (fmt.Println is not our Println).
	{"unique name", `
		INSERT INTO res_out
		SELECT e.id, u.id
		FROM res_edges e
		JOIN (SELECT name, min(id) AS id, min(kind) AS kind FROM res_defs GROUP BY name HAVING count(DISTINCT id) = 1) u
		     ON u.name = e.target_name
		WHERE NOT (e.language = 'go' AND e.qual = '')
		  AND NOT (e.qual = '' AND u.kind = 'method')
		  AND NOT EXISTS (SELECT 1 FROM res_out o WHERE o.edge_id = e.id)
		  AND NOT EXISTS (SELECT 1 FROM res_imports i WHERE i.file_id = e.file_id AND i.qual <> ''
		                  AND i.qual = e.qual AND i.target_path IS NULL)
		ON CONFLICT DO NOTHING`},
	{"apply", `
		UPDATE edges e SET target_id = o.sid
		FROM res_out o WHERE e.repository_id = $1 AND e.id = o.edge_id`},
}

// resolveEdges links edges to their target symbols and imports to their files.
// scope lists the paths an incremental run wrote; nil means every edge of the
// repository is reconsidered. w.gone holds the ids of the symbols the run deleted,
// whose callers must be resolved anew.
func (w *writer) resolveEdges(ctx context.Context, scope []string) error {
	return pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE res_dangling (id bigint PRIMARY KEY) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("resolve edges: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE res_scope ON COMMIT DROP AS SELECT unnest($1::text[]) AS path`, scope); err != nil {
			return fmt.Errorf("resolve edges: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE res_gone ON COMMIT DROP AS SELECT unnest($1::bigint[]) AS id`, w.gone); err != nil {
			return fmt.Errorf("resolve edges: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE res_changed_names ON COMMIT DROP AS SELECT unnest($1::text[]) AS name`,
			w.changedNames()); err != nil {
			return fmt.Errorf("resolve edges: %w", err)
		}
		if _, err := tx.Exec(ctx, `ANALYZE res_scope, res_gone, res_changed_names`); err != nil {
			return fmt.Errorf("resolve edges: %w", err)
		}
		for _, step := range resolveSteps {
			var err error
			if strings.Contains(step.sql, "$1") {
				_, err = tx.Exec(ctx, step.sql, w.repoID)
			} else {
				_, err = tx.Exec(ctx, step.sql)
			}
			if err != nil {
				return fmt.Errorf("resolve edges (%s): %w", step.name, err)
			}
		}
		return nil
	})
}

type repoCounts struct{ symbols, edges, pending int }

func (w *writer) counts(ctx context.Context) (repoCounts, error) {
	var c repoCounts
	err := w.db.Pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM symbols WHERE repository_id = $1),
		(SELECT count(*) FROM edges WHERE repository_id = $1),
		(SELECT count(*) FROM symbols WHERE repository_id = $1 AND embedding_state = 'pending')`, w.repoID).
		Scan(&c.symbols, &c.edges, &c.pending)
	if err != nil {
		return c, fmt.Errorf("count rows: %w", err)
	}
	return c, nil
}

// reresolveImports recomputes where every import points. A file's own imports are
// resolved when it is parsed, but adding or deleting another file changes the
// answer for files that did not change (./money now missing, or newly present).
func (w *writer) reresolveImports(ctx context.Context, r *importResolver) error {
	rows, err := w.db.Pool.Query(ctx, `SELECT e.id, e.path, coalesce(f.language, ''), e.target_name, coalesce(e.target_path, '')
		FROM edges e JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
		WHERE e.repository_id = $1 AND e.kind = 'imports'`, w.repoID)
	if err != nil {
		return fmt.Errorf("re-resolve imports: %w", err)
	}
	var ids []int64
	var targets []*string
	var id int64
	var path, lang, name, old string
	_, err = pgx.ForEachRow(rows, []any{&id, &path, &lang, &name, &old}, func() error {
		if now := r.resolve(lang, path, name); now != old {
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
		return fmt.Errorf("re-resolve imports: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	_, err = w.db.Pool.Exec(ctx, `UPDATE edges e SET target_path = u.path, target_file_id = NULL
		FROM unnest($2::bigint[], $3::text[]) AS u(id, path)
		WHERE e.repository_id = $1 AND e.id = u.id`, w.repoID, ids, targets)
	if err != nil {
		return fmt.Errorf("re-resolve imports: %w", err)
	}
	return nil
}
