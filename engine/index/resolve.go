package index

import (
	"context"
	"fmt"

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

// receiverCalls are qualifiers that mean "this object".
const receiverCalls = `('self','this','cls','super')`

const qualifierRule = `(
	(e.target_qualifier = '' AND s.kind <> 'method')
	OR (e.target_qualifier IN ` + receiverCalls + ` AND s.kind = 'method')
	OR (e.target_qualifier NOT IN ('', 'self', 'this', 'cls', 'super')
		AND (s.kind = 'method' OR s.qualified_name = e.target_qualifier || '.' || e.target_name)))`

var resolveSteps = []struct{ name, sql string }{
	{"forget dangling targets", `
		UPDATE edges e SET target_id = NULL
		WHERE e.repository_id = $1 AND e.target_id IS NOT NULL AND e.kind IN ` + refKinds + `
		  AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.repository_id = $1 AND s.id = e.target_id)`},
	{"link imports to files", `
		UPDATE edges e SET target_file_id = f.id
		FROM files f
		WHERE e.repository_id = $1 AND e.kind = 'imports' AND e.target_path IS NOT NULL
		  AND f.repository_id = $1 AND f.path = e.target_path
		  AND e.target_file_id IS DISTINCT FROM f.id`},
	{"same file", `
		UPDATE edges u SET target_id = c.sid FROM (
			SELECT DISTINCT ON (e.id) e.id AS eid, s.id AS sid
			FROM edges e
			JOIN symbols src ON src.repository_id = e.repository_id AND src.id = e.source_id
			JOIN symbols s ON s.repository_id = e.repository_id AND s.file_id = e.file_id
			     AND (s.name = e.target_name OR e.target_name = ANY (s.aliases))
			WHERE e.repository_id = $1 AND e.target_id IS NULL AND e.kind IN ` + refKinds + `
			  AND s.kind NOT IN ` + defKinds + ` AND ` + qualifierRule + `
			  AND NOT EXISTS (SELECT 1 FROM edges i WHERE i.repository_id = $1 AND i.file_id = e.file_id
			                  AND i.kind = 'imports' AND i.target_qualifier <> '' AND i.target_qualifier = e.target_qualifier)
			ORDER BY e.id, (s.receiver IS NOT DISTINCT FROM src.receiver) DESC, s.id
		) c WHERE u.repository_id = $1 AND u.id = c.eid`},
	{"imported modules", `
		UPDATE edges u SET target_id = c.sid FROM (
			SELECT DISTINCT ON (e.id) e.id AS eid, s.id AS sid
			FROM edges e
			JOIN edges i ON i.repository_id = e.repository_id AND i.file_id = e.file_id AND i.kind = 'imports'
			     AND i.target_path IS NOT NULL
			     AND (e.target_qualifier = '' OR i.target_qualifier = e.target_qualifier)
			JOIN files f ON f.repository_id = e.repository_id
			     AND (f.path = i.target_path OR (f.dir = i.target_path AND f.language = 'go'))
			JOIN symbols s ON s.repository_id = e.repository_id AND s.file_id = f.id
			     AND (s.name = e.target_name OR e.target_name = ANY (s.aliases))
			WHERE e.repository_id = $1 AND e.target_id IS NULL AND e.kind IN ` + refKinds + `
			  AND s.kind NOT IN ` + defKinds + `
			  AND (e.target_qualifier = '' AND s.kind <> 'method' OR i.target_qualifier = e.target_qualifier AND s.kind <> 'method')
			ORDER BY e.id, s.exported DESC, s.id
		) c WHERE u.repository_id = $1 AND u.id = c.eid`},
	{"same Go package", `
		UPDATE edges u SET target_id = c.sid FROM (
			SELECT DISTINCT ON (e.id) e.id AS eid, s.id AS sid
			FROM edges e
			JOIN files fs ON fs.repository_id = e.repository_id AND fs.id = e.file_id AND fs.language = 'go'
			JOIN files f ON f.repository_id = e.repository_id AND f.dir = fs.dir AND f.language = 'go' AND f.id <> fs.id
			JOIN symbols s ON s.repository_id = e.repository_id AND s.file_id = f.id AND s.name = e.target_name
			WHERE e.repository_id = $1 AND e.target_id IS NULL AND e.kind IN ` + refKinds + `
			  AND s.kind NOT IN ` + defKinds + ` AND ` + qualifierRule + `
			  AND NOT EXISTS (SELECT 1 FROM edges i WHERE i.repository_id = $1 AND i.file_id = e.file_id
			                  AND i.kind = 'imports' AND i.target_qualifier <> '' AND i.target_qualifier = e.target_qualifier)
			ORDER BY e.id, s.id
		) c WHERE u.repository_id = $1 AND u.id = c.eid`},
	{"unique name", `
		WITH uniq AS (
			SELECT name, min(id) AS sid, min(kind) AS kind FROM symbols
			WHERE repository_id = $1 AND kind NOT IN ` + defKinds + `
			GROUP BY name HAVING count(*) = 1
		)
		UPDATE edges e SET target_id = uniq.sid
		FROM uniq, files fs
		WHERE e.repository_id = $1 AND e.target_id IS NULL AND e.kind IN ` + refKinds + `
		  AND e.target_name = uniq.name
		  AND fs.repository_id = $1 AND fs.id = e.file_id
		  -- Go: a bare call can only reach its own package (steps 1 and 3).
		  AND NOT (fs.language = 'go' AND e.target_qualifier = '')
		  AND NOT (e.target_qualifier = '' AND uniq.kind = 'method')
		  -- fmt.Println is not our Println: a qualifier bound to an external import.
		  AND NOT EXISTS (SELECT 1 FROM edges i WHERE i.repository_id = $1 AND i.file_id = e.file_id
		                  AND i.kind = 'imports' AND i.target_qualifier = e.target_qualifier
		                  AND i.target_qualifier <> '' AND i.target_path IS NULL)`},
}

// resolveEdges links edges to their target symbols and imports to their files.
func (w *writer) resolveEdges(ctx context.Context) error {
	return pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		for _, step := range resolveSteps {
			if _, err := tx.Exec(ctx, step.sql, w.repoID); err != nil {
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
