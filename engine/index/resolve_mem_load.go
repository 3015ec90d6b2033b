package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// loadGraph reads what the in-memory pass decides from: the repository's
// files, symbols and edges (every kind but contains), in tx. Of the edges
// only the references are kept as rows; imports, bases and Go
// implementations go into the small lookups the steps read them through.
func loadGraph(ctx context.Context, tx pgx.Tx, repoID int64, refs int, held *edgeSpool) (*memGraph, error) {
	g := &memGraph{
		files: map[int64]*mFile{}, fileByPath: map[string]int64{}, syms: map[int64]*mSym{},
		symsByName: map[string][]*mSym{}, aliases: map[int64][]string{}, embeds: map[int64][]string{},
		imports:  map[int64][]mImport{},
		inherits: map[int64][]inheritRef{}, implOf: map[int64][]int64{}, refs: map[fileName][]refEdge{},
		inits: map[int64]*mSym{}, parents: map[int64][]parentRow{},
	}
	// Sized first: grown by appending, the two largest slices held up to
	// twice their rows (~30 MB at $GOROOT/src).
	var symbols int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE repository_id = $1`, repoID).Scan(&symbols); err != nil {
		return nil, fmt.Errorf("resolve edges: count the symbols: %w", err)
	}
	g.symRows, g.res = make([]mSym, 0, symbols), make([]rEdge, 0, refs)
	if err := g.loadFiles(ctx, tx, repoID); err != nil {
		return nil, err
	}
	if err := g.loadSymbols(ctx, tx, repoID); err != nil {
		return nil, err
	}
	if err := g.loadEdges(ctx, tx, repoID); err != nil {
		return nil, err
	}
	if held != nil {
		err := held.each(func(i int, h *heldEdge) error {
			g.addEdge(&edgeRow{id: heldID(i), file: h.file, source: h.source, kind: h.kind, name: h.name,
				qual: h.qual, ttype: h.tt, unresolved: true, line: h.line})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	g.indexSymbols()
	g.indexDefs()
	return g, nil
}

func (g *memGraph) loadFiles(ctx context.Context, tx pgx.Tx, repoID int64) error {
	rows, err := tx.Query(ctx, `SELECT id, path, dir, coalesce(language, '') FROM files WHERE repository_id = $1`, repoID)
	if err != nil {
		return fmt.Errorf("resolve edges: read the files: %w", err)
	}
	var f mFile
	_, err = pgx.ForEachRow(rows, []any{&f.id, &f.path, &f.dir, &f.lang}, func() error {
		c := f
		g.files[c.id] = &c
		g.fileByPath[c.path] = c.id
		return nil
	})
	if err != nil {
		return fmt.Errorf("resolve edges: read the files: %w", err)
	}
	return nil
}

func (g *memGraph) loadSymbols(ctx context.Context, tx pgx.Tx, repoID int64) error {
	rows, err := tx.Query(ctx, `SELECT id, file_id, coalesce(parent_id, 0), kind, name, qualified_name, aliases,
		receiver, exported, is_test, start_line, coalesce(language, ''), coalesce(result_type, ''),
		coalesce(embeds, '{}'), signature LIKE '%;'
		FROM symbols WHERE repository_id = $1`, repoID)
	if err != nil {
		return fmt.Errorf("resolve edges: read the symbols: %w", err)
	}
	words := interner{}
	var s mSym
	var recv *string
	var aliases, embeds []string
	_, err = pgx.ForEachRow(rows, []any{&s.id, &s.file, &s.parent, &s.kind, &s.name, &s.qname, &aliases,
		&recv, &s.exported, &s.isTest, &s.line, &s.lang, &s.result, &embeds, &s.decl}, func() error {
		c := s
		if len(aliases) > 0 {
			g.aliases[c.id] = aliases
		}
		if len(embeds) > 0 {
			g.embeds[c.id] = embeds
		}
		aliases, embeds = nil, nil
		c.kind, c.lang, c.name, c.result = words.of(c.kind), words.of(c.lang), words.of(c.name), words.of(c.result)
		c.recvNull = recv == nil
		if recv != nil {
			c.recv = words.of(*recv)
			c.recvBase = words.of(receiverBase(*recv))
		}
		g.symRows = append(g.symRows, c)
		return nil
	})
	if err != nil {
		return fmt.Errorf("resolve edges: read the symbols: %w", err)
	}
	for i := range g.symRows {
		g.syms[g.symRows[i].id] = &g.symRows[i]
	}
	return nil
}

// edgeRow is an edge as read.
type edgeRow struct {
	id, file, source     int64
	kind, name, qual     string
	ttype                string
	targetPath           *string
	targetFile, targetID int64
	hasCands, unresolved bool // candidates stored; its confidence is "unresolved"
	line                 int32
}

// loadEdges reads the edges from their raw values: at $GOROOT/src's ~600k
// rows, a string allocated per column and row was most of the run's garbage,
// and the collector, near the process's memory limit (internal/memlimit),
// spent seconds on it. Repeated strings are looked up without allocating.
func (g *memGraph) loadEdges(ctx context.Context, tx pgx.Tx, repoID int64) error {
	rows, err := tx.Query(ctx, `SELECT id, file_id, source_id, kind, target_name, target_qualifier, target_type,
		target_path, coalesce(target_file_id, 0), coalesce(target_id, 0), candidates IS NOT NULL,
		confidence = 'unresolved', line
		FROM edges WHERE repository_id = $1 AND kind <> 'contains' ORDER BY id`, repoID)
	if err != nil {
		return fmt.Errorf("resolve edges: read the edges: %w", err)
	}
	defer rows.Close()
	words := interner{}
	var binaryCols [13]bool
	for i, fd := range rows.FieldDescriptions() {
		if i < len(binaryCols) {
			binaryCols[i] = fd.Format == pgx.BinaryFormatCode
		}
	}
	num := func(i int, b []byte) int64 { return rawInt(b, binaryCols[i]) }
	flag := func(i int, b []byte) bool { return rawBool(b, binaryCols[i]) }
	var e edgeRow
	for rows.Next() {
		v := rows.RawValues()
		if len(v) != 13 {
			return fmt.Errorf("resolve edges: read the edges: %d columns", len(v))
		}
		e = edgeRow{id: num(0, v[0]), file: num(1, v[1]), source: num(2, v[2]), kind: words.bytes(v[3]),
			name: words.bytes(v[4]), qual: words.bytes(v[5]), ttype: words.bytes(v[6]),
			targetFile: num(8, v[8]), targetID: num(9, v[9]), hasCands: flag(10, v[10]),
			unresolved: flag(11, v[11]), line: int32(num(12, v[12]))}
		if v[7] != nil {
			p := string(v[7])
			e.targetPath = &p
		}
		g.addEdge(&e)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("resolve edges: read the edges: %w", err)
	}
	return nil
}

// rawInt decodes an integer column: in PostgreSQL's binary format 2, 4 or 8
// bytes, big-endian; in text, its digits.
func rawInt(b []byte, binaryFormat bool) int64 {
	if !binaryFormat {
		neg := len(b) > 0 && b[0] == '-'
		if neg {
			b = b[1:]
		}
		var n int64
		for _, c := range b {
			n = n*10 + int64(c-'0')
		}
		if neg {
			return -n
		}
		return n
	}
	switch len(b) {
	case 8:
		return int64(binary.BigEndian.Uint64(b))
	case 4:
		return int64(int32(binary.BigEndian.Uint32(b)))
	case 2:
		return int64(int16(binary.BigEndian.Uint16(b)))
	}
	return 0
}

// rawBool decodes a boolean column ("t" in text).
func rawBool(b []byte, binaryFormat bool) bool {
	if !binaryFormat {
		return len(b) == 1 && b[0] == 't'
	}
	return len(b) == 1 && b[0] == 1
}

// addEdge files an edge where the steps look for it: an import of its file,
// a Go implementation, and, for the references this pass decides ("collect
// unresolved edges": all but the Go implements edges, which
// linkGoImplementations decides), a row of res with what the steps need of its
// file and source.
func (g *memGraph) addEdge(e *edgeRow) {
	f := g.files[e.file]
	switch e.kind {
	case "imports":
		im := mImport{qual: e.qual, hasPath: e.targetPath != nil, linked: e.targetFile}
		if im.hasPath {
			im.path = *e.targetPath
			im.pathFile = g.fileByPath[im.path]
		}
		g.imports[e.file] = append(g.imports[e.file], im)
		return
	case "inherits":
		g.inherits[e.source] = append(g.inherits[e.source], inheritRef{e.id, e.name, e.line})
	case "implements":
		if f != nil && strings.HasSuffix(f.path, ".go") {
			if e.targetID != 0 {
				g.implOf[e.targetID] = append(g.implOf[e.targetID], e.source)
			}
			return
		}
	case "calls", "references", "reads", "writes":
	default:
		return
	}
	src := g.syms[e.source]
	res := int32(-1)
	if f != nil && src != nil {
		res = int32(len(g.res))
		r := rEdge{id: e.id, f: f, src: src, kind: kindOf(e.kind), name: e.name, qual: e.qual,
			stored: e.targetID != 0 || e.hasCands || !e.unresolved}
		if par := g.syms[src.parent]; par != nil {
			r.srcInObject = (par.kind == "var" || par.kind == "const") && src.kind == "function"
		}
		g.res = append(g.res, r)
		if (e.kind == "calls" || e.kind == "reads" || e.kind == "writes") && e.ttype != "" {
			g.typeRef = append(g.typeRef, typedRef{res, e.ttype})
		}
	}
	// The references a Python package's __init__.py makes (re-exported names).
	if e.kind == "references" && e.qual == "" && f != nil && f.lang == "python" {
		x := refEdge{res: res}
		if !e.hasCands {
			x.stored = e.targetID
		}
		k := fileName{e.file, e.name}
		g.refs[k] = append(g.refs[k], x)
	}
}

// interner shares one copy of each repeated string (kinds, names).
type interner map[string]string

// bytes is of for a column's raw bytes, allocating only a new string.
func (in interner) bytes(b []byte) string {
	if v, ok := in[string(b)]; ok {
		return v
	}
	s := string(b)
	in[s] = s
	return s
}

func (in interner) of(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

// indexSymbols builds the symbols' lookups by name and the Python
// constructors.
func (g *memGraph) indexSymbols() {
	for i := range g.symRows {
		s := &g.symRows[i]
		g.symsByName[s.name] = append(g.symsByName[s.name], s)
		if s.kind == "method" && s.name == "__init__" && s.parent != 0 {
			// The last: the implementation after @overload stubs ("constructors").
			if cur := g.inits[s.parent]; cur == nil || s.line > cur.line || (s.line == cur.line && s.id < cur.id) {
				g.inits[s.parent] = s
			}
		}
	}
}
