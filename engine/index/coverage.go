package index

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// LangCoverage counts one language's call edges by how their target was chosen
// (edges.confidence, migration 0004).
type LangCoverage struct {
	Language   string `db:"language"`
	Calls      int    `db:"calls"`
	Exact      int    `db:"exact"`      // by scope or type
	Inferred   int    `db:"inferred"`   // by import, module, base class or a unique name
	Ambiguous  int    `db:"ambiguous"`  // several candidates kept
	Unresolved int    `db:"unresolved"` // no target, External included
	// External are the unresolved calls known to leave the repository: through an
	// import binding to a path outside it (fmt.Println, requests.get), on a value
	// typed by such a package (var b bytes.Buffer; b.Len()), or a builtin (len,
	// print, parseInt, console.log). The rest of Unresolved is what the graph
	// does not know.
	External int `db:"external"`
}

// builtins are the names a bare call reaches without any import, per language;
// builtinQualifiers the global objects a JavaScript call goes through.
var (
	builtins = map[string][]string{
		"go": {"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max",
			"min", "new", "panic", "print", "println", "real", "recover"},
		"python": {"abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable",
			"chr", "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval",
			"exec", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help",
			"hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max",
			"memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "range",
			"repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
			"super", "tuple", "type", "vars", "zip", "__import__"},
		"javascript": jsBuiltins,
		"typescript": jsBuiltins,
		"tsx":        jsBuiltins,
	}
	jsBuiltins = []string{"parseInt", "parseFloat", "isNaN", "isFinite", "encodeURIComponent",
		"decodeURIComponent", "encodeURI", "decodeURI", "setTimeout", "setInterval", "clearTimeout",
		"clearInterval", "setImmediate", "queueMicrotask", "structuredClone", "require", "fetch", "String",
		"Number", "Boolean", "Array", "Object", "Symbol", "BigInt", "Promise", "Error", "TypeError", "Date",
		"RegExp", "Map", "Set", "WeakMap", "WeakSet", "Proxy"}
	builtinQualifiers = []string{"console", "Math", "JSON", "Object", "Array", "Promise", "Number", "String",
		"Reflect", "Date", "Symbol", "process", "window", "document", "globalThis", "Buffer"}
)

// GraphCoverage reports, per language, how the repository's call edges resolved.
func GraphCoverage(ctx context.Context, db *pg.DB, repoID int64) ([]LangCoverage, error) {
	var langs, names []string
	for l, ns := range builtins {
		for _, n := range ns {
			langs = append(langs, l)
			names = append(names, n)
		}
	}
	rows, err := db.Pool.Query(ctx, `
		WITH b AS (SELECT * FROM unnest($2::text[], $3::text[]) AS b(language, name)),
		c AS (
			SELECT f.language, e.confidence,
			       e.confidence = 'unresolved' AND (
			         (e.target_qualifier = '' AND EXISTS (SELECT 1 FROM b WHERE b.language = f.language AND b.name = e.target_name))
			         OR (f.language IN ('javascript','typescript','tsx') AND e.target_qualifier = ANY ($4))
			         OR EXISTS (SELECT 1 FROM edges i WHERE i.repository_id = $1 AND i.kind = 'imports'
			                    AND i.file_id = e.file_id AND i.target_path IS NULL
			                    -- the binding: an alias, Go's last path element, or a
			                    -- Python module as imported (import os.path)
			                    AND coalesce(nullif(i.target_qualifier, ''), i.target_name) IN
			                        (e.target_qualifier, split_part(e.target_qualifier, '.', 1),
			                         substring(e.target_type FROM '^(?:\(\))?([^.]+)\.')))
			       ) AS external
			FROM edges e JOIN files f ON f.repository_id = e.repository_id AND f.id = e.file_id
			WHERE e.repository_id = $1 AND e.kind = 'calls')
		SELECT coalesce(language, '') AS language, count(*) AS calls,
		       count(*) FILTER (WHERE confidence = 'exact') AS exact,
		       count(*) FILTER (WHERE confidence = 'inferred') AS inferred,
		       count(*) FILTER (WHERE confidence = 'ambiguous') AS ambiguous,
		       count(*) FILTER (WHERE confidence = 'unresolved') AS unresolved,
		       count(*) FILTER (WHERE external) AS external
		FROM c GROUP BY language ORDER BY language`, repoID, langs, names, builtinQualifiers)
	if err != nil {
		return nil, fmt.Errorf("graph coverage: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[LangCoverage])
	if err != nil {
		return nil, fmt.Errorf("graph coverage: %w", err)
	}
	return out, nil
}
