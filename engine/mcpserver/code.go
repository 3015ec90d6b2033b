package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// SymbolRef is a symbol's metadata: where it is and what it is, never its body.
type SymbolRef struct {
	ID            int64  `json:"id" jsonschema:"symbol id within this repository (pass to read_symbol)"`
	Path          string `json:"path"`
	Name          string `json:"name"`
	QualifiedName string `json:"qualified_name"`
	Kind          string `json:"kind"`
	StartLine     int    `json:"start_line"`
	EndLine       int    `json:"end_line"`
	Lines         string `json:"lines" jsonschema:"path:start-end"`
	Signature     string `json:"signature,omitempty"`
	Parent        string `json:"parent,omitempty" jsonschema:"qualified name of the enclosing type or class"`
	Revision      string `json:"revision" jsonschema:"commit the symbol was indexed at (12 digits), or working-tree for uncommitted changes"`
	IsTest        bool   `json:"is_test,omitempty"`
	Stale         bool   `json:"stale,omitempty" jsonschema:"the file changed on disk since it was indexed: lines may have moved (index_file it)"`
}

func ref(s symbols.Symbol) SymbolRef {
	sig := s.Signature
	if len(sig) > 300 {
		sig = sig[:300] + "…"
	}
	return SymbolRef{ID: s.ID, Path: s.Path, Name: s.Name, QualifiedName: s.QualifiedName, Kind: s.Kind,
		StartLine: s.StartLine, EndLine: s.EndLine, Lines: fmt.Sprintf("%s:%d-%d", s.Path, s.StartLine, s.EndLine),
		Signature: sig, Parent: s.Parent, Revision: shortRev(s.Revision), IsTest: s.IsTest, Stale: s.Stale}
}

// markStale sets Stale on the symbols whose files changed on disk since they
// were indexed (engine/fresh: one query, a stat per file).
func (s *Server) markStale(ctx context.Context, syms ...*symbols.Symbol) error {
	if err := s.repo(ctx).fresh.Mark(ctx, syms...); err != nil {
		return fmt.Errorf("check freshness: %w", err)
	}
	return nil
}

// pointers points at each symbol of syms, for markStale.
func pointers(syms []symbols.Symbol) []*symbols.Symbol {
	out := make([]*symbols.Symbol, len(syms))
	for i := range syms {
		out[i] = &syms[i]
	}
	return out
}

// search_symbols

// SearchSymbolsIn is the input of search_symbols.
type SearchSymbolsIn struct {
	RepoArg
	Query string `json:"query" jsonschema:"a name or part of one, any case"`
	Kind  string `json:"kind,omitempty" jsonschema:"fields only when asked"`
	Path  string `json:"path,omitempty" jsonschema:"a file or directory"`
	Limit int    `json:"limit,omitempty" jsonschema:"1-100, default 20"`
}

// SymbolsOut is a list of symbols.
type SymbolsOut struct {
	Symbols   []SymbolRef `json:"symbols"`
	Truncated bool        `json:"truncated,omitempty" jsonschema:"more symbols matched than limit"`
}

// searchSymbolsSQL matches names and qualified names by substring (the trigram
// indexes on lower(name) serve LIKE), exact names first, then prefixes, then
// library code before tests and shorter names first.
const searchSymbolsSQL = `SELECT ` + symbols.Columns + ` FROM ` + symbols.From + `
	WHERE s.repository_id = $1 AND s.kind NOT IN ('part', 'block')
	  AND (lower(s.name) LIKE $2 ESCAPE '\' OR lower(s.qualified_name) LIKE $2 ESCAPE '\')
	  AND ($3 = '' OR s.kind = $3)
	  AND (s.kind <> 'field' OR $3 = 'field') -- a struct's fields would crowd out definitions
	  AND ($4 = '' OR s.path = $4 OR starts_with(s.path, $4 || '/'))
	ORDER BY (lower(s.name) = $5 OR lower(s.qualified_name) = $5) DESC, starts_with(lower(s.name), $5) DESC,
	  s.is_test, length(s.name), s.path, s.start_line, s.id
	LIMIT $6`

func (s *Server) searchSymbols(ctx context.Context, _ *mcp.CallToolRequest, in SearchSymbolsIn) (SymbolsOut, error) {
	q, err := text("query", strings.TrimSpace(in.Query), maxNameBytes, true)
	if err != nil {
		return SymbolsOut{}, err
	}
	kind, err := text("kind", in.Kind, 64, false)
	if err != nil {
		return SymbolsOut{}, err
	}
	if kind != "" && !symbols.ValidKind(kind) {
		return SymbolsOut{}, argError("kind must be one of %s (got %q)", strings.Join(symbols.Kinds, ", "), kind)
	}
	var p string
	if in.Path != "" {
		if p, err = s.relPath(ctx, "path", in.Path); err != nil {
			return SymbolsOut{}, err
		}
	}
	limit, err := limitArg("limit", in.Limit, 20, maxLimit)
	if err != nil {
		return SymbolsOut{}, err
	}
	lq := strings.ToLower(q)
	pattern := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(lq) + "%"
	rows, err := s.cfg.DB.Pool.Query(ctx, searchSymbolsSQL, s.repo(ctx).ID, pattern, kind, p, lq, limit+1)
	if err != nil {
		return SymbolsOut{}, fmt.Errorf("search symbols: %w", err)
	}
	syms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (symbols.Symbol, error) { return symbols.Scan(r) })
	if err != nil {
		return SymbolsOut{}, fmt.Errorf("search symbols: %w", err)
	}
	out := SymbolsOut{Symbols: make([]SymbolRef, 0, len(syms))}
	if len(syms) > limit {
		syms, out.Truncated = syms[:limit], true
	}
	if err := s.markStale(ctx, pointers(syms)...); err != nil {
		return SymbolsOut{}, err
	}
	for _, sym := range syms {
		out.Symbols = append(out.Symbols, ref(sym))
	}
	return out, nil
}

// read_symbol

// ReadSymbolIn is the input of read_symbol: id, or name (with an optional path to
// choose among same-named symbols), or path with start_line (and end_line).
type ReadSymbolIn struct {
	RepoArg
	ID        int64  `json:"id,omitempty" jsonschema:"a symbol id"`
	Name      string `json:"name,omitempty" jsonschema:"plain or qualified (Cart.add)"`
	Path      string `json:"path,omitempty" jsonschema:"narrows name; with start_line, reads there"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"1-based"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"default: the symbol's end"`
}

// ReadSymbolOut is a symbol's source.
type ReadSymbolOut struct {
	Symbol    SymbolRef `json:"symbol"`
	Content   string    `json:"content" jsonschema:"source as indexed (secrets redacted)"`
	FromLine  int       `json:"from_line" jsonschema:"line of content's first line"`
	ToLine    int       `json:"to_line" jsonschema:"line of content's last line"`
	Truncated bool      `json:"truncated,omitempty" jsonschema:"content was cut; ask for a line range for the rest"`
	Note      string    `json:"note,omitempty"`
	// OtherMatches are further symbols with the same name (pass one's id).
	OtherMatches []SymbolRef `json:"other_matches,omitempty"`
	// Matches and Candidates: a name with several equally good definitions
	// reads none of them and lists them here.
	Matches    int         `json:"matches,omitempty"`
	Candidates []SymbolRef `json:"candidates,omitempty"`
}

// symbolByName resolves read_symbol's name: the id of the definition it
// designates, or 0 with out's matches and candidates filled when several are
// equally good (the agent then passes an id or a qualified name).
func (s *Server) symbolByName(ctx context.Context, raw, p string, out *ReadSymbolOut) (int64, error) {
	name, err := text("name", strings.TrimSpace(raw), maxNameBytes, true)
	if err != nil {
		return 0, err
	}
	syms, err := symbols.FindOrInherited(ctx, s.cfg.DB, s.repo(ctx).ID, name, p, false)
	if errors.Is(err, symbols.ErrNotFound) {
		return 0, fmt.Errorf("unknown symbol %q%s: try search_symbols or search_code", name, inPath(p))
	}
	if err != nil {
		return 0, err
	}
	c := symbols.Choose(name, syms)
	if c.Chosen == nil {
		out.Matches, out.Candidates, out.Note = len(c.Matches), candidates(c.Matches), ambiguousNote(name, len(c.Matches))
		return 0, s.markStale(ctx, pointers(c.Matches)...)
	}
	id := c.Chosen.ID
	if c.Inherited(name) {
		out.Note = fmt.Sprintf("%s is defined in %s", name, c.Chosen.Parent)
	}
	var others []symbols.Symbol
	for _, o := range c.Matches {
		if o.ID != id && len(others) < 5 {
			others = append(others, o)
		}
	}
	if err := s.markStale(ctx, pointers(others)...); err != nil {
		return 0, err
	}
	for _, o := range others {
		out.OtherMatches = append(out.OtherMatches, ref(o))
	}
	return id, nil
}

func (s *Server) readSymbol(ctx context.Context, _ *mcp.CallToolRequest, in ReadSymbolIn) (ReadSymbolOut, error) {
	var out ReadSymbolOut
	var id int64
	var p string
	var err error
	if in.Path != "" {
		if p, err = s.relPath(ctx, "path", in.Path); err != nil {
			return out, err
		}
	}
	switch {
	case in.ID < 0:
		return out, argError("id must be positive (got %d)", in.ID)
	case in.ID > 0:
		id = in.ID
	case in.Name != "":
		if id, err = s.symbolByName(ctx, in.Name, p, &out); err != nil || id == 0 {
			return out, err
		}
	case p != "":
		if in.StartLine < 1 {
			return out, argError("start_line must be 1 or more with path (got %d)", in.StartLine)
		}
		if in.EndLine != 0 && in.EndLine < in.StartLine {
			return out, argError("bad line range %d-%d: end_line is before start_line", in.StartLine, in.EndLine)
		}
		if in.EndLine != 0 && in.EndLine-in.StartLine+1 > maxReadLines {
			return out, argError("line range %d-%d is %d lines; the limit is %d", in.StartLine, in.EndLine, in.EndLine-in.StartLine+1, maxReadLines)
		}
		sym, err := symbols.At(ctx, s.cfg.DB, s.repo(ctx).ID, p, in.StartLine)
		if errors.Is(err, symbols.ErrNotFound) {
			return out, fmt.Errorf("no indexed symbol covers %s:%d (check the path and line; search_symbols lists a file's symbols)", p, in.StartLine)
		}
		if err != nil {
			return out, err
		}
		id = sym.ID
	default:
		return out, argError("give id, name, or path with start_line")
	}
	sym, err := symbols.Get(ctx, s.cfg.DB, s.repo(ctx).ID, id)
	if errors.Is(err, symbols.ErrNotFound) {
		return out, fmt.Errorf("unknown symbol id %d in this repository", id)
	}
	if err != nil {
		return out, err
	}
	if err := s.markStale(ctx, &sym); err != nil {
		return out, err
	}
	out.Symbol = ref(sym)
	lines := strings.SplitAfter(sym.Content, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	from, to := sym.StartLine, sym.StartLine+len(lines)-1
	if in.ID == 0 && in.Name == "" && in.StartLine > 0 {
		// A line range: the part of the symbol it covers.
		want := in.EndLine
		if want == 0 {
			want = to
		}
		if want > to {
			out.Note = fmt.Sprintf("the range ends past %s (line %d); read from line %d for what follows", sym.QualifiedName, to, to+1)
			want = to
		}
		if in.StartLine > from {
			lines, from = lines[in.StartLine-from:], in.StartLine
		}
		lines = lines[:want-from+1]
		to = want
	}
	var b strings.Builder
	for i, l := range lines {
		if b.Len()+len(l) > maxReadBytes {
			out.Truncated = true
			to = from + i - 1
			out.Note = fmt.Sprintf("%s is longer than %d KiB; showing lines %d-%d: read the rest with path %q and start_line %d",
				sym.QualifiedName, maxReadBytes>>10, from, to, sym.Path, to+1)
			break
		}
		b.WriteString(l)
	}
	out.Content, out.FromLine, out.ToLine = b.String(), from, to
	return out, nil
}

func inPath(p string) string {
	if p == "" {
		return ""
	}
	return " in " + p
}

// find_imports

// ImportsIn is the input of find_imports.
type ImportsIn struct {
	RepoArg
	Path      string `json:"path" jsonschema:"a file or directory; importers: also a module"`
	Direction string `json:"direction,omitempty" jsonschema:"default imports"`
	Depth     int    `json:"depth,omitempty" jsonschema:"1-5, default 1"`
	Limit     int    `json:"limit,omitempty" jsonschema:"1-100, default 50"`
}

// ImportLink is one import relation.
type ImportLink struct {
	Path   string `json:"path,omitempty" jsonschema:"a repository file or directory"`
	Module string `json:"module,omitempty" jsonschema:"an external module, as written"`
	Line   int    `json:"line,omitempty"`
	Depth  int    `json:"depth"`
}

// ImportsOut is the output of find_imports.
type ImportsOut struct {
	Path      string       `json:"path"`
	Direction string       `json:"direction"`
	Links     []ImportLink `json:"links"`
	Truncated bool         `json:"truncated,omitempty"`
}

func (s *Server) findImports(ctx context.Context, _ *mcp.CallToolRequest, in ImportsIn) (ImportsOut, error) {
	var out ImportsOut
	p, err := s.relPath(ctx, "path", in.Path)
	if err != nil {
		return out, err
	}
	if in.Depth < 0 || in.Depth > graph.MaxDepth {
		return out, argError("depth must be between 1 and %d (got %d)", graph.MaxDepth, in.Depth)
	}
	limit, err := limitArg("limit", in.Limit, 50, maxLimit)
	if err != nil {
		return out, err
	}
	var links []graph.FileLink
	switch in.Direction {
	case "", "imports":
		out.Direction = "imports"
		links, err = graph.Imports(ctx, s.cfg.DB, s.repo(ctx).ID, p, max(in.Depth, 1))
	case "importers":
		out.Direction = "importers"
		links, err = graph.Importers(ctx, s.cfg.DB, s.repo(ctx).ID, p, max(in.Depth, 1), graph.TestsInclude)
	default:
		return out, argError("direction must be imports or importers (got %q)", in.Direction)
	}
	if err != nil {
		return out, err
	}
	out.Path, out.Links = p, make([]ImportLink, 0, min(len(links), limit))
	for i, l := range links {
		if i == limit {
			out.Truncated = true
			break
		}
		out.Links = append(out.Links, ImportLink{Path: l.Path, Module: l.Module, Line: l.Line, Depth: l.Depth})
	}
	return out, nil
}
