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
	Depth      int        `json:"depth"`
	Via        int64      `json:"via,omitempty"` // the symbol it was reached from
	Kind       string     `json:"edge"`          // calls, inherits, implements
	Line       int        `json:"line"`          // where the edge is written
	Confidence Confidence `json:"confidence"`
	Candidates int        `json:"candidates,omitempty"` // an ambiguous edge's candidate count
}

// Unresolved is an outgoing reference with no definition in the repository (a call
// into the standard library, say), kept by name.
type Unresolved struct {
	From       int64      `json:"from"`
	Name       string     `json:"name"`
	Qual       string     `json:"qualifier,omitempty"`
	Kind       string     `json:"edge"`
	Line       int        `json:"line"`
	Depth      int        `json:"depth"`
	Confidence Confidence `json:"confidence"` // always unresolved
}

// Walk is the result of a symbol walk.
type Walk struct {
	Nodes      []Node       `json:"nodes"`
	Unresolved []Unresolved `json:"unresolved,omitempty"`
}

// Symbols points at the symbol of every node, so that a caller can annotate
// them in place (engine/fresh marks the stale ones).
func (w *Walk) Symbols() []*symbols.Symbol {
	out := make([]*symbols.Symbol, len(w.Nodes))
	for i := range w.Nodes {
		out[i] = &w.Nodes[i].Symbol
	}
	return out
}

// MaxDepth bounds walks: deeper ones are clamped.
const MaxDepth = 5

// Kinds walked by Symbols: calls plus type relations.
var walkKinds = []string{"calls", "inherits", "implements", "references"}

// Relation is what the first hop of a walk follows.
type Relation string

// Relations.
const (
	CallsRel  Relation = "calls"  // calls and type relations (inherits, implements, references)
	ReadsRel  Relation = "reads"  // reads of fields: callers of a field are its readers
	WritesRel Relation = "writes" // writes of fields: callers of a field are its writers
)

// ParseRelation reads a relation name; the empty string is calls.
func ParseRelation(s string) (Relation, error) {
	switch r := Relation(s); r {
	case "":
		return CallsRel, nil
	case CallsRel, ReadsRel, WritesRel:
		return r, nil
	}
	return "", fmt.Errorf("relation must be one of calls, reads, writes (got %q)", s)
}

// kinds are the edge kinds hop d (from 1) of a walk over r follows: a field's
// readers or writers first, then the callers of those (what a change to the
// field can reach), or the fields a function reads or writes.
func (r Relation) kinds(d int) []string {
	if d == 1 && (r == ReadsRel || r == WritesRel) {
		return []string{string(r)}
	}
	return walkKinds
}

// Options tune a symbol walk.
type Options struct {
	Depth         int        // hops, clamped to 1..MaxDepth
	MinConfidence Confidence // only edges this confident or better; "" = every edge
	Relation      Relation   // what the first hop follows; "" = calls
	Tests         Tests      // which nodes in tests are listed; "" = all, tests after the rest
}

// Tests says which nodes in test code a walk lists (issue 37: tests drown
// answers). Include lists them all (callers' hops list tests after the rest);
// Exclude leaves test code out and walks no further through it; Only lists
// the nodes in tests, walking through the others to reach them.
type Tests string

// The values of Tests.
const (
	TestsInclude Tests = "include"
	TestsExclude Tests = "exclude"
	TestsOnly    Tests = "only"
)

// TestsValues are the accepted values of Tests, for flags and enums.
var TestsValues = []string{string(TestsInclude), string(TestsExclude), string(TestsOnly)}

// ParseTests reads a Tests value; the empty string is include.
func ParseTests(s string) (Tests, error) {
	switch t := Tests(s); t {
	case "":
		return TestsInclude, nil
	case TestsInclude, TestsExclude, TestsOnly:
		return t, nil
	}
	return "", fmt.Errorf("tests must be one of %s (got %q)", strings.Join(TestsValues, ", "), s)
}

// lists says whether a walk with t lists node n; walks says whether it goes
// on from n.
func (t Tests) lists(isTest bool) bool {
	switch t {
	case TestsExclude:
		return !isTest
	case TestsOnly:
		return isTest
	}
	return true
}

func (t Tests) walks(isTest bool) bool { return t != TestsExclude || !isTest }

// Symbols walks callers or callees from the symbols ids, breadth first, up to depth
// hops, over edges of every confidence.
func Symbols(ctx context.Context, db *pg.DB, repoID int64, ids []int64, dir Direction, depth int) (Walk, error) {
	return SymbolsWith(ctx, db, repoID, ids, dir, Options{Depth: depth})
}

// linkConfidence is an edge's confidence as a walk reports it. An edge with a
// target marked unresolved was resolved before confidences were recorded (the
// column's default): chosen by name, so inferred, as migration 0004 says of them.
const linkConfidence = `(CASE e.confidence WHEN 'unresolved' THEN 'inferred' ELSE e.confidence END)`

// callersSQL finds the edges into the frontier: those whose target is in it and
// the ambiguous ones that list a frontier symbol among their other candidates.
// Rows come in display order (path, line, name); Via is the frontier symbol.
const callersSQL = `WITH m AS (
		SELECT e.source_id, e.target_id AS via, e.kind, e.line, ` + linkConfidence + ` AS confidence, e.candidates
		FROM edges e
		WHERE e.repository_id = $1 AND e.target_id = ANY ($2) AND e.kind = ANY ($3) AND ` + linkConfidence + ` = ANY ($4)
		UNION ALL
		SELECT e.source_id, c.id, e.kind, e.line, e.confidence, e.candidates
		FROM edges e CROSS JOIN LATERAL unnest(e.candidates) AS c(id)
		WHERE e.repository_id = $1 AND e.candidates IS NOT NULL AND e.candidates && $2
		  AND c.id = ANY ($2) AND c.id IS DISTINCT FROM e.target_id
		  AND e.kind = ANY ($3) AND e.confidence = ANY ($4)
	)
	SELECT ` + symbols.Columns + `, m.via, m.kind, m.line, m.confidence, coalesce(cardinality(m.candidates), 0)
	FROM m JOIN symbols s ON s.repository_id = $1 AND s.id = m.source_id
	LEFT JOIN symbols p ON p.repository_id = s.repository_id AND p.id = s.parent_id
	ORDER BY s.is_test, s.path, s.start_line, m.line, s.qualified_name, m.via`

// calleesSQL finds the edges out of the frontier, one row per target: every
// candidate of an ambiguous edge, else its target.
const calleesSQL = `SELECT ` + symbols.Columns + `, e.source_id, e.kind, e.line, ` + linkConfidence + `, coalesce(cardinality(e.candidates), 0)
	FROM edges e CROSS JOIN LATERAL unnest(coalesce(e.candidates, ARRAY[e.target_id])) AS c(id)
	JOIN symbols s ON s.repository_id = e.repository_id AND s.id = c.id
	LEFT JOIN symbols p ON p.repository_id = s.repository_id AND p.id = s.parent_id
	WHERE e.repository_id = $1 AND e.source_id = ANY ($2) AND e.kind = ANY ($3) AND ` + linkConfidence + ` = ANY ($4)
	ORDER BY e.source_id, e.line, s.path, s.start_line, s.qualified_name, e.kind`

// SymbolsWith walks callers or callees from the symbols ids, breadth first, up to
// o.Depth hops. Each symbol appears once, at its smallest depth, so cycles end the
// walk; reached by several edges, it carries the most confident one.
func SymbolsWith(ctx context.Context, db *pg.DB, repoID int64, ids []int64, dir Direction, o Options) (Walk, error) {
	depth := min(max(o.Depth, 1), MaxDepth)
	confs := admitted(o.MinConfidence)
	var w Walk
	seen := map[int64]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	frontier := ids
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		q := calleesSQL
		if dir == Callers {
			q = callersSQL
		}
		nodes, err := hop(ctx, db, q, repoID, frontier, o.Relation.kinds(d), confs, seen)
		if err != nil {
			return w, fmt.Errorf("walk %s: %w", dir, err)
		}
		var next []int64
		for _, n := range nodes {
			n.Depth = d
			if o.Tests.lists(n.IsTest) {
				w.Nodes = append(w.Nodes, n)
			}
			if o.Tests.walks(n.IsTest) {
				next = append(next, n.ID)
			}
		}
		if dir == Callees && NotResolved.AtLeast(o.MinConfidence) && (d > 1 || o.Relation == "" || o.Relation == CallsRel) {
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

// hop runs one step of a walk: the symbols not seen yet, in the query's order,
// each with its most confident edge (the first such in that order).
func hop(ctx context.Context, db *pg.DB, q string, repoID int64, frontier []int64, kinds, confs []string, seen map[int64]bool) ([]Node, error) {
	rows, err := db.Pool.Query(ctx, q, repoID, frontier, kinds, confs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Node
	at := map[int64]int{} // symbol id -> index in out
	for rows.Next() {
		var n Node
		s := &n.Symbol
		if err := rows.Scan(append(s.Dest(), &n.Via, &n.Kind, &n.Line, &n.Confidence, &n.Candidates)...); err != nil {
			return nil, err
		}
		if seen[s.ID] {
			continue
		}
		if i, ok := at[s.ID]; ok {
			if n.Confidence.rank() < out[i].Confidence.rank() {
				out[i] = n // a better edge; the symbol keeps its place
			}
			continue
		}
		at[s.ID] = len(out)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, n := range out {
		seen[n.ID] = true
	}
	return out, nil
}

func unresolved(ctx context.Context, db *pg.DB, repoID int64, from []int64, depth int) ([]Unresolved, error) {
	rows, err := db.Pool.Query(ctx, `SELECT source_id, target_name, target_qualifier, kind, line FROM edges
		WHERE repository_id = $1 AND source_id = ANY ($2) AND target_id IS NULL AND kind = 'calls'
		ORDER BY source_id, line`, repoID, from)
	if err != nil {
		return nil, fmt.Errorf("unresolved callees: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Unresolved, error) {
		u := Unresolved{Depth: depth, Confidence: NotResolved}
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
	IsTest bool   `json:"is_test,omitempty"` // an importer in test code
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
			if err != nil {
				return nil, fmt.Errorf("imports of %s: files of the imported Go packages: %w", path, err)
			}
			files, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return nil, fmt.Errorf("imports of %s: files of the imported Go packages: %w", path, err)
			}
			next = append(next, files...)
		}
		frontier = next
	}
	return out, nil
}

// Importers lists the files that import target (a repository file, a Go package
// directory, or an external module as written), following importers up to depth
// hops. tests says which importers in test code are listed ("" or include: all,
// those in tests after the rest at each depth; exclude: none, and no walk on
// through them; only: those alone, the walk going on through every importer).
func Importers(ctx context.Context, db *pg.DB, repoID int64, target string, depth int, tests Tests) ([]FileLink, error) {
	depth = min(max(depth, 1), MaxDepth)
	target = strings.TrimSuffix(target, "/")
	var out []FileLink
	seen := map[string]bool{target: true}
	frontier := []string{target}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		// A file is imported through its own path or, in Go, its directory.
		rows, err := db.Pool.Query(ctx, `SELECT DISTINCT ON (f.path) f.path, e.line, f.is_test
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
		var level, inTests []FileLink
		var l FileLink
		_, err = pgx.ForEachRow(rows, []any{&l.Path, &l.Line, &l.IsTest}, func() error {
			if seen[l.Path] {
				return nil
			}
			seen[l.Path] = true
			l.Depth = d
			if tests.walks(l.IsTest) {
				next = append(next, l.Path)
			}
			switch {
			case !tests.lists(l.IsTest):
			case l.IsTest:
				inTests = append(inTests, l)
			default:
				level = append(level, l)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("importers of %s: %w", target, err)
		}
		out = append(append(out, level...), inTests...)
		frontier = next
	}
	return out, nil
}
