// Package graph walks the code graph: callers and callees of a symbol, imports and
// importers of a file or module, multi-hop with cycles cut.
package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// Direction of a walk over symbol edges.
type Direction string

// Directions.
const (
	Callers Direction = "callers" // edges into the symbol
	Callees Direction = "callees" // edges out of the symbol
)

// Node is a symbol reached by a walk.
type Node struct {
	symbols.Symbol
	Depth int    `json:"depth"`
	Via   int64  `json:"via,omitempty"` // the symbol it was reached from
	Kind  string `json:"edge"`          // calls, inherits, implements
	Line  int    `json:"line"`          // where the edge is written
}

// Unresolved is an outgoing reference with no definition in the repository (a call
// into the standard library, say), kept by name.
type Unresolved struct {
	From  int64  `json:"from"`
	Name  string `json:"name"`
	Qual  string `json:"qualifier,omitempty"`
	Kind  string `json:"edge"`
	Line  int    `json:"line"`
	Depth int    `json:"depth"`
}

// Walk is the result of a symbol walk.
type Walk struct {
	Nodes      []Node       `json:"nodes"`
	Unresolved []Unresolved `json:"unresolved,omitempty"`
}

// MaxDepth bounds walks: deeper ones are clamped.
const MaxDepth = 5

// Kinds walked by Symbols: calls plus type relations.
var walkKinds = []string{"calls", "inherits", "implements", "references"}

// Symbols walks callers or callees from the symbols ids, breadth first, up to depth
// hops. Each symbol appears once, at its smallest depth, so cycles end the walk.
func Symbols(ctx context.Context, db *pg.DB, repoID int64, ids []int64, dir Direction, depth int) (Walk, error) {
	depth = min(max(depth, 1), MaxDepth)
	var w Walk
	seen := map[int64]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	frontier := ids
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var q string
		if dir == Callers {
			q = `SELECT ` + symbols.Columns + `, e.target_id, e.kind, e.line
				FROM edges e JOIN symbols s ON s.repository_id = e.repository_id AND s.id = e.source_id
				LEFT JOIN symbols p ON p.repository_id = s.repository_id AND p.id = s.parent_id
				WHERE e.repository_id = $1 AND e.target_id = ANY ($2) AND e.kind = ANY ($3)
				ORDER BY s.is_test, s.path, s.start_line, e.line`
		} else {
			q = `SELECT ` + symbols.Columns + `, e.source_id, e.kind, e.line
				FROM edges e JOIN symbols s ON s.repository_id = e.repository_id AND s.id = e.target_id
				LEFT JOIN symbols p ON p.repository_id = s.repository_id AND p.id = s.parent_id
				WHERE e.repository_id = $1 AND e.source_id = ANY ($2) AND e.kind = ANY ($3)
				ORDER BY e.source_id, e.line, s.path, s.start_line, e.kind`
		}
		rows, err := db.Pool.Query(ctx, q, repoID, frontier, walkKinds)
		if err != nil {
			return w, fmt.Errorf("walk %s: %w", dir, err)
		}
		var next []int64
		for rows.Next() {
			var n Node
			s := &n.Symbol
			if err := rows.Scan(&s.ID, &s.Path, &s.Name, &s.QualifiedName, &s.Aliases, &s.Kind, &s.StartLine, &s.EndLine,
				&s.Parent, &s.ParentID, &s.Receiver, &s.Signature, &s.Doc, &s.Language, &s.Revision, &s.IsTest,
				&n.Via, &n.Kind, &n.Line); err != nil {
				rows.Close()
				return w, fmt.Errorf("walk %s: %w", dir, err)
			}
			if seen[s.ID] {
				continue
			}
			seen[s.ID] = true
			n.Depth = d
			w.Nodes = append(w.Nodes, n)
			next = append(next, s.ID)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return w, fmt.Errorf("walk %s: %w", dir, err)
		}
		if dir == Callees {
			un, err := unresolved(ctx, db, repoID, frontier, d)
			if err != nil {
				return w, err
			}
			w.Unresolved = append(w.Unresolved, un...)
		}
		frontier = next
	}
	return w, nil
}

func unresolved(ctx context.Context, db *pg.DB, repoID int64, from []int64, depth int) ([]Unresolved, error) {
	rows, err := db.Pool.Query(ctx, `SELECT source_id, target_name, target_qualifier, kind, line FROM edges
		WHERE repository_id = $1 AND source_id = ANY ($2) AND target_id IS NULL AND kind = 'calls'
		ORDER BY source_id, line`, repoID, from)
	if err != nil {
		return nil, fmt.Errorf("unresolved callees: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Unresolved, error) {
		u := Unresolved{Depth: depth}
		err := r.Scan(&u.From, &u.Name, &u.Qual, &u.Kind, &u.Line)
		return u, err
	})
	if err != nil {
		return nil, fmt.Errorf("unresolved callees: %w", err)
	}
	return out, nil
}

// FileLink is one import relation.
type FileLink struct {
	Path   string `json:"path,omitempty"`   // a repository file (or Go package directory)
	Module string `json:"module,omitempty"` // an external module, as written
	Line   int    `json:"line,omitempty"`
	Depth  int    `json:"depth"`
}

// Imports lists what the file at path imports: repository files (resolved) and
// external modules (as written), following resolved imports up to depth hops.
func Imports(ctx context.Context, db *pg.DB, repoID int64, path string, depth int) ([]FileLink, error) {
	depth = min(max(depth, 1), MaxDepth)
	var out []FileLink
	seen := map[string]bool{path: true}
	frontier := []string{path}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		rows, err := db.Pool.Query(ctx, `SELECT coalesce(e.target_path, ''), e.target_name, e.line
			FROM edges e JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
			WHERE e.repository_id = $1 AND e.kind = 'imports' AND f.path = ANY ($2)
			ORDER BY f.path, e.line`, repoID, frontier)
		if err != nil {
			return nil, fmt.Errorf("imports of %s: %w", path, err)
		}
		var next []string
		var tp, name string
		var line int
		_, err = pgx.ForEachRow(rows, []any{&tp, &name, &line}, func() error {
			key := tp
			if key == "" {
				key = "module:" + name
			}
			if seen[key] {
				return nil
			}
			seen[key] = true
			if tp == "" {
				out = append(out, FileLink{Module: name, Line: line, Depth: d})
				return nil
			}
			out = append(out, FileLink{Path: tp, Line: line, Depth: d})
			next = append(next, tp)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("imports of %s: %w", path, err)
		}
		// A Go package import names a directory: walk on from its files.
		if len(next) > 0 {
			rows, err := db.Pool.Query(ctx, `SELECT path FROM files WHERE repository_id = $1 AND dir = ANY ($2) AND language = 'go'`, repoID, next)
			if err == nil {
				if files, err := pgx.CollectRows(rows, pgx.RowTo[string]); err == nil {
					next = append(next, files...)
				}
			}
		}
		frontier = next
	}
	return out, nil
}

// Importers lists the files that import target: a repository path (file, or a Go
// package directory) or an external module name as written (`react`, `os`).
func Importers(ctx context.Context, db *pg.DB, repoID int64, target string, depth int) ([]FileLink, error) {
	depth = min(max(depth, 1), MaxDepth)
	target = strings.TrimSuffix(target, "/")
	var out []FileLink
	seen := map[string]bool{target: true}
	frontier := []string{target}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		// A file is imported through its own path or, in Go, its directory.
		rows, err := db.Pool.Query(ctx, `SELECT DISTINCT ON (f.path) f.path, e.line
			FROM edges e JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
			WHERE e.repository_id = $1 AND e.kind = 'imports'
			  AND (e.target_path = ANY ($2)
			       OR (e.target_path IS NULL AND e.target_name = ANY ($2))
			       OR e.target_path IN (SELECT dir FROM files WHERE repository_id = $1 AND path = ANY ($2) AND language = 'go'))
			ORDER BY f.path, e.line`, repoID, frontier)
		if err != nil {
			return nil, fmt.Errorf("importers of %s: %w", target, err)
		}
		var next []string
		var p string
		var line int
		_, err = pgx.ForEachRow(rows, []any{&p, &line}, func() error {
			if seen[p] {
				return nil
			}
			seen[p] = true
			out = append(out, FileLink{Path: p, Line: line, Depth: d})
			next = append(next, p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("importers of %s: %w", target, err)
		}
		frontier = next
	}
	return out, nil
}
