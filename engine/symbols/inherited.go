package symbols

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// maxBaseDepthSQL bounds the walk up a type's bases: deep enough for real class
// hierarchies (Flask -> App -> Scaffold), short enough for a cycle to end.
const maxBaseDepthSQL = "6"

// inheritedSQL finds member $3 of the types named $2 (their simple or qualified
// name) through their bases: the resolved inherits edges (Python, JS/TS,
// Java, C# bases). The nearest definition comes first; a type's own member
// (depth 0) is left to Find. Go embedding is not walked here yet.
const inheritedSQL = `WITH RECURSIVE t(id, depth) AS (
		SELECT s.id, 0 FROM symbols s
		WHERE s.repository_id = $1 AND s.kind IN ('class','struct','interface','type','enum')
		  AND (s.name = $2 OR s.qualified_name = $2) AND ($5 = '' OR starts_with(s.path, $5))
		UNION
		SELECT e.target_id, t.depth + 1 FROM t
		JOIN edges e ON e.repository_id = $1 AND e.source_id = t.id AND e.kind = 'inherits' AND e.target_id IS NOT NULL
		WHERE t.depth < ` + maxBaseDepthSQL + `
	)
	SELECT ` + Columns + `, min(t.depth) FROM t
	JOIN symbols s ON s.repository_id = $1 AND s.parent_id = t.id AND s.name = $3 AND (s.kind = 'field') = $4
	LEFT JOIN symbols p ON p.repository_id = s.repository_id AND p.id = s.parent_id
	WHERE t.depth > 0
	GROUP BY s.id, s.path, s.name, s.qualified_name, s.aliases, s.kind, s.start_line, s.end_line, p.qualified_name,
	         s.parent_id, s.receiver, s.signature, s.doc, s.language, s.file_id, s.is_test
	ORDER BY min(t.depth), s.is_test, s.path, s.start_line
	LIMIT 20`

// Inherited resolves Type.member to the member a base of Type defines, when
// Type has none of its own: `Flask.add_url_rule` is App's. fields picks
// fields (Type.field) rather than methods. Each symbol's Parent names the base
// that defines it; ErrNotFound when no base has it or name is not Type.member.
func Inherited(ctx context.Context, db *pg.DB, repoID int64, name, path string, fields bool) ([]Symbol, error) {
	typ, member, ok := cutLast(name, ".")
	if !ok || typ == "" || member == "" {
		return nil, fmt.Errorf("%q: %w", name, ErrNotFound)
	}
	rows, err := db.Pool.Query(ctx, inheritedSQL, repoID, typ, member, fields, path)
	if err != nil {
		return nil, fmt.Errorf("inherited member %q: %w", name, err)
	}
	// Only the nearest bases' definitions: the one a type inherits overrides
	// those further up (App.add_url_rule over Scaffold's).
	var out []Symbol
	first := -1
	var s Symbol
	var depth int
	_, err = pgx.ForEachRow(rows, append(s.Dest(), &depth), func() error {
		if first < 0 {
			first = depth
		}
		if depth == first {
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("inherited member %q: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: %w", name, ErrNotFound)
	}
	return out, nil
}

// FindOrInherited is Find (FindFields when fields), then Inherited for a
// Type.member the type does not define itself.
func FindOrInherited(ctx context.Context, db *pg.DB, repoID int64, name, path string, fields bool) ([]Symbol, error) {
	out, err := find(ctx, db, repoID, name, path, fields)
	if !errors.Is(err, ErrNotFound) {
		return out, err
	}
	inh, ierr := Inherited(ctx, db, repoID, name, path, fields)
	if ierr != nil && !errors.Is(ierr, ErrNotFound) {
		return nil, ierr
	}
	if len(inh) == 0 {
		return nil, err
	}
	return inh, nil
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
