// Package symbols reads the indexed symbols: listing, lookup by name or location, and
// the source of one symbol. It never writes.
package symbols

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// ErrNotFound is returned when no symbol matches.
var ErrNotFound = errors.New("symbol not found")

// Symbol is one indexed chunk.
type Symbol struct {
	ID            int64    `json:"id"`
	Path          string   `json:"path"`
	Name          string   `json:"name"`
	QualifiedName string   `json:"qualified_name"`
	Aliases       []string `json:"aliases,omitempty"`
	Kind          string   `json:"kind"`
	StartLine     int      `json:"start_line"`
	EndLine       int      `json:"end_line"`
	Parent        string   `json:"parent"` // the parent's qualified name, "" at top level
	ParentID      *int64   `json:"-"`
	Receiver      string   `json:"receiver,omitempty"`
	Signature     string   `json:"signature,omitempty"`
	Doc           string   `json:"-"`
	Language      string   `json:"language,omitempty"`
	Revision      string   `json:"revision"`
	IsTest        bool     `json:"is_test,omitempty"`
	Content       string   `json:"-"`
	// Stale marks a symbol whose file on disk differs from what was indexed:
	// its lines may have moved. The engine's queries leave it false; an
	// engine/fresh Checker sets it.
	Stale bool `json:"stale,omitempty"`
}

// WorkingTree reports whether the symbol comes from uncommitted changes.
func (s Symbol) WorkingTree() bool { return s.Revision == "working-tree" }

// Columns is the select list for Scan, over symbols aliased s and parents
// aliased p, where $1 is the repository. A symbol's revision is its file's
// (migration 0022), read by key per row: a join with files let the planner
// hash every file of the repository for a lookup of a few symbols (Find:
// ~10 ms more at $GOROOT/src). The repository is the parameter, not s's
// column, so that Citus routes the subquery with the statement (§3).
const Columns = columnsHead + `(SELECT sf.revision FROM files sf WHERE sf.repository_id = $1 AND sf.id = s.file_id)` + columnsTail

// ColumnsFileJoined is Columns for a query that joins the symbol's file as f
// anyway: the revision is read from it.
const ColumnsFileJoined = columnsHead + `f.revision` + columnsTail

const (
	columnsHead = `s.id, s.path, s.name, s.qualified_name, s.aliases, s.kind, s.start_line, s.end_line,
	coalesce(p.qualified_name, ''), s.parent_id, coalesce(s.receiver, ''), s.signature, s.doc,
	coalesce(s.language, ''), `
	columnsTail = `, s.is_test`
)

// From is the matching FROM clause.
const From = `symbols s LEFT JOIN symbols p ON p.repository_id = s.repository_id AND p.id = s.parent_id`

// Scan reads one row selected with Columns (content not included).
func Scan(row pgx.Row) (Symbol, error) {
	var s Symbol
	err := row.Scan(s.Dest()...)
	return s, err
}

// Dest lists where a row selected with Columns goes, in order: for a query
// that selects Columns and more, append the rest's destinations to it.
func (s *Symbol) Dest() []any {
	return []any{&s.ID, &s.Path, &s.Name, &s.QualifiedName, &s.Aliases, &s.Kind, &s.StartLine, &s.EndLine,
		&s.Parent, &s.ParentID, &s.Receiver, &s.Signature, &s.Doc, &s.Language, &s.Revision, &s.IsTest}
}

// Filter narrows List.
type Filter struct {
	Path  string // exact path, or a prefix ending in "/"
	Kind  string
	Name  string // exact name or qualified name, case-insensitive
	Limit int    // 0 = no limit
}

// List returns the repository's symbols in path and line order.
func List(ctx context.Context, db *pg.DB, repoID int64, f Filter) ([]Symbol, error) {
	q := `SELECT ` + Columns + ` FROM ` + From + ` WHERE s.repository_id = $1`
	args := []any{repoID}
	if f.Path != "" {
		args = append(args, f.Path)
		if strings.HasSuffix(f.Path, "/") {
			q += fmt.Sprintf(` AND starts_with(s.path, $%d)`, len(args))
		} else {
			q += fmt.Sprintf(` AND s.path = $%d`, len(args))
		}
	}
	if f.Kind != "" {
		args = append(args, f.Kind)
		q += fmt.Sprintf(` AND s.kind = $%d`, len(args))
	} else {
		q += ` AND s.kind <> 'field'` // fields are graph nodes: listed when asked for
	}
	if f.Name != "" {
		args = append(args, strings.ToLower(f.Name))
		q += fmt.Sprintf(` AND (lower(s.name) = $%[1]d OR lower(s.qualified_name) = $%[1]d)`, len(args))
	}
	q += ` ORDER BY s.path, s.start_line, s.id`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := db.Pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list symbols: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Symbol, error) { return Scan(r) })
	if err != nil {
		return nil, fmt.Errorf("list symbols: %w", err)
	}
	return out, nil
}

// Get returns one symbol with its content.
func Get(ctx context.Context, db *pg.DB, repoID, id int64) (Symbol, error) {
	row := db.Pool.QueryRow(ctx, `SELECT `+Columns+`, s.content FROM `+From+` WHERE s.repository_id = $1 AND s.id = $2`, repoID, id)
	var s Symbol
	err := row.Scan(append(s.Dest(), &s.Content)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("symbol %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("get symbol %d: %w", id, err)
	}
	return s, nil
}

// findSQL finds symbols of repository $1 by name $2 under path $3. Each branch of
// the OR has an index, so the planner ORs three index scans: the alias test is
// written as containment (@>), which the GIN index on aliases serves (after
// "aliases <> '{}'", its condition: migration 0019); "= ANY" means the same but
// no index serves it, and one such branch made the whole OR a sequential scan.
const findSQL = `SELECT ` + Columns + ` FROM ` + From + `
	WHERE s.repository_id = $1 AND s.kind NOT IN ('module','part','block') AND (s.kind = 'field') = $4
	  AND (lower(s.name) = lower($2) OR lower(s.qualified_name) = lower($2) OR (s.aliases <> '{}' AND s.aliases @> ARRAY[$2::text]))
	  AND ($3 = '' OR s.path = $3 OR starts_with(s.path, $3))
	ORDER BY (s.qualified_name = $2) DESC, (s.name = $2) DESC, s.is_test, s.path, s.start_line
	LIMIT 50`

// Find resolves what a person types to symbols: a plain or qualified name
// ("Refund", "Cart.add", "billing.Refund"), optionally narrowed to a path. Exact
// matches come first, then case-insensitive ones. File headers, parts and text blocks
// are not definitions and are left out.
func Find(ctx context.Context, db *pg.DB, repoID int64, name, path string) ([]Symbol, error) {
	return find(ctx, db, repoID, name, path, false)
}

// FindFields is Find for struct and class fields ("balance", "Account.balance"),
// which Find leaves out: they are graph nodes, not definitions to read.
func FindFields(ctx context.Context, db *pg.DB, repoID int64, name, path string) ([]Symbol, error) {
	return find(ctx, db, repoID, name, path, true)
}

func find(ctx context.Context, db *pg.DB, repoID int64, name, path string, fields bool) ([]Symbol, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("empty symbol name")
	}
	out, err := findNamed(ctx, db, repoID, name, path, fields)
	if err == nil && len(out) == 0 {
		out, err = findMember(ctx, db, repoID, name, path, fields)
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: %w", name, ErrNotFound)
	}
	return out, nil
}

func findNamed(ctx context.Context, db *pg.DB, repoID int64, name, path string, fields bool) ([]Symbol, error) {
	rows, err := db.Pool.Query(ctx, findSQL, repoID, name, path, fields)
	if err != nil {
		return nil, fmt.Errorf("find symbol %q: %w", name, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Symbol, error) { return Scan(r) })
	if err != nil {
		return nil, fmt.Errorf("find symbol %q: %w", name, err)
	}
	return out, nil
}

// findMember resolves a package-qualified member ("index.Builder.Add"): a
// method's qualified name is "Builder.Add" and its type's "index.Builder",
// so the name is looked up without its first part and the matches whose
// parent is the qualified type are kept (issue 40).
func findMember(ctx context.Context, db *pg.DB, repoID int64, name, path string, fields bool) ([]Symbol, error) {
	pkg, member, ok := strings.Cut(name, ".")
	if !ok || pkg == "" || !strings.Contains(member, ".") {
		return nil, nil
	}
	owner, _, _ := cutLast(name, ".")
	cands, err := findNamed(ctx, db, repoID, member, path, fields)
	if err != nil {
		return nil, err
	}
	var out []Symbol
	for _, s := range cands {
		if strings.EqualFold(s.Parent, owner) {
			out = append(out, s)
		}
	}
	return out, nil
}

// FieldsOf returns the fields of struct or class owner, in source order.
func FieldsOf(ctx context.Context, db *pg.DB, repoID, owner int64) ([]Symbol, error) {
	rows, err := db.Pool.Query(ctx, `SELECT `+Columns+` FROM `+From+`
		WHERE s.repository_id = $1 AND s.parent_id = $2 AND s.kind = 'field'
		ORDER BY s.start_line, s.start_byte, s.name`, repoID, owner)
	if err != nil {
		return nil, fmt.Errorf("fields: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Symbol, error) { return Scan(r) })
	if err != nil {
		return nil, fmt.Errorf("fields: %w", err)
	}
	return out, nil
}

// At returns the innermost definition covering path:line (a method rather than its
// class; a definition rather than the file header).
func At(ctx context.Context, db *pg.DB, repoID int64, path string, line int) (Symbol, error) {
	row := db.Pool.QueryRow(ctx, `SELECT `+Columns+` FROM `+From+`
		WHERE s.repository_id = $1 AND s.path = $2 AND s.start_line <= $3 AND s.end_line >= $3 AND s.kind NOT IN ('part', 'field')
		ORDER BY (s.kind = 'module'), (s.end_line - s.start_line), s.id LIMIT 1`, repoID, path, line)
	s, err := Scan(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, fmt.Errorf("%s:%d: %w", path, line, ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("symbol at %s:%d: %w", path, line, err)
	}
	return s, nil
}
