package index

import (
	"context"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A full pass decides every edge of the repository, and at $GOROOT/src the
// SQL steps of resolve.go spent ~20 s of server time doing it (issue 39): a
// few dozen statements, each joining session tables of hundreds of thousands
// of rows. Here the pass reads the repository's files, symbols and edges once,
// decides each edge in memory by the same steps in the same order
// (resolve_mem_typed.go, resolve_mem_names.go, resolve_mem_wide.go), and hands
// the decisions to the same writing as the SQL pass (the rewrite of the edges,
// or the UPDATE). Only repositories of up to maxInMemoryReferences edges: the
// graph's memory grows with the repository (see there).
//
// The SQL steps stay the definition for scoped runs, larger repositories
// (resolve_parts.go) and Citus; the pass here
// must agree with them row for row (TestResolversAgree, and every test that
// compares an incremental run, which resolves in SQL, with a clean index).
// Comments below name the SQL step each function mirrors.
//
// It decides every edge from scratch, as a clean index does, rather than only
// those a change may affect: a full pass runs after a large change or a
// killed run, where the answer must be a clean index's anyway.
//
// NULL: a file's or symbol's language, when unknown, is "" here; every test of
// a language below is written so that "" matches nothing, as NULL does in SQL.

// mFile is a file as the steps read it.
type mFile struct {
	id              int64
	path, dir, lang string
}

// mSym is a symbol as the steps read it.
type mSym struct {
	id, file, parent  int64 // parent 0: none
	kind, name, qname string
	recv              string // as stored; recvNull when NULL
	recvNull          bool
	recvBase          string // the receiver's type name (res_defs.receiver)
	exported, isTest  bool
	decl              bool // a C/C++ declaration: its signature ends in ";"
	line              int32
	lang              string
	result            string
}

// edgeKind is an edge kind the pass decides (a byte where a string took 16).
type edgeKind uint8

const (
	kOther edgeKind = iota
	kCalls
	kInherits
	kImplements
	kReferences
	kReads
	kWrites
)

func kindOf(kind string) edgeKind {
	switch kind {
	case "calls":
		return kCalls
	case "inherits":
		return kInherits
	case "implements":
		return kImplements
	case "references":
		return kReferences
	case "reads":
		return kReads
	case "writes":
		return kWrites
	}
	return kOther
}

// isAccess: a read or a write, which targets fields and only fields.
func (k edgeKind) isAccess() bool { return k == kReads || k == kWrites }

// confidence is an edge's confidence, ordered as its name sorts (the steps
// keep the least of a candidate set's, as min(conf) does in SQL).
type confidence uint8

const (
	cUnresolved confidence = iota
	cAmbiguous
	cExact
	cInferred
)

var confidenceNames = [...]string{cUnresolved: "unresolved", cAmbiguous: "ambiguous", cExact: "exact", cInferred: "inferred"}

// decision is what the pass decided for an edge (res_out).
type decision struct {
	sid   int64 // 0: unresolved
	conf  confidence
	cands *[]int64 // several candidates, in order: ambiguous
}

// rEdge is an edge the pass decides (res_edges), and its decision.
type rEdge struct {
	id         int64
	f          *mFile
	src        *mSym
	name, qual string
	kind       edgeKind
	// stored: its stored decision is not "unresolved" (a full pass over an
	// index that had one), so it is written back even when nothing is found.
	stored      bool
	srcInObject bool
	decided     bool
	dec         decision
}

// mImport is an import edge of a file (res_imports, and the edges
// insertParents reads).
type mImport struct {
	qual     string
	path     string // target_path; hasPath false when NULL
	hasPath  bool
	pathFile int64 // the file at path (res_imports.target_file), 0: none
	linked   int64 // the stored target_file_id, 0: NULL
}

// inheritRef is an inherits edge, as insertParents reads it.
type inheritRef struct {
	id   int64
	name string
	line int32
}

// refEdge is a reference edge a re-exported name is looked up through: one
// this pass decides (res, an index into memGraph.res), or a stored target.
type refEdge struct {
	res    int32 // -1: not decided by this pass
	stored int64 // its target when it has exactly one, else 0
}

// typedRef is an edge's qualifier type as written, for the typed steps.
type typedRef struct {
	res int32
	t   string
}

// mDef is one name of a definition (res_defs: a row per name and alias).
type mDef struct {
	s      *mSym
	f      *mFile
	name   string
	copied bool
}

// fileName keys the reference edges by file and name.
type fileName struct {
	file int64
	name string
}

// memGraph is the repository as the pass reads it, and its decisions.
type memGraph struct {
	files      map[int64]*mFile
	fileByPath map[string]int64
	symRows    []mSym // the symbols, in one allocation (syms points into it)
	syms       map[int64]*mSym
	symsByName map[string][]*mSym
	aliases    map[int64][]string // the few symbols with aliases, and types with embedded types
	embeds     map[int64][]string
	imports    map[int64][]mImport // by file
	inherits   map[int64][]inheritRef
	implOf     map[int64][]int64 // Go interface -> the types implementing it (stored edges)
	refs       map[fileName][]refEdge
	inits      map[int64]*mSym // a Python class -> its __init__ method

	// The definitions, sorted four ways (defs.go's lookups).
	byName, byFile, byDir, byParent []*mDef

	res     []rEdge
	typeRef []typedRef
	typed   []*tRow
	parents map[int64][]parentRow
}

// copiedCodeRE is copiedCode's pattern (resolve_names.go).
var copiedCodeRE = regexp.MustCompile(`\.d\.[cm]?ts$|(^|/)(dist|build)/`)

// family is langFamily: the languages that call each other's code share one.
func family(lang string) string {
	switch lang {
	case "javascript", "typescript", "tsx":
		return "js"
	case "c", "cpp":
		return "c"
	}
	return lang
}

// receiverBase is res_defs' receiver: the stored receiver without a leading
// "*" or type parameters.
func receiverBase(r string) string {
	r = strings.TrimPrefix(r, "*")
	if i := strings.IndexByte(r, '['); i >= 0 {
		r = r[:i]
	}
	return r
}

// splitTypeName is splitType: "pkg.T" -> ("pkg", "T"), "T" -> ("", "T").
func splitTypeName(t string) (pkg, name string) {
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[:i], t[i+1:]
	}
	return "", t
}

// maxInMemoryReferences bounds the repositories a full pass decides in
// memory; larger ones decide in SQL (resolve_parts.go). The graph costs
// ~200 bytes a reference edge, ~100 MB at $GOROOT/src's ~480k. It fits
// under the process's memory limit (internal/memlimit) because a bulk load
// lets go of the embedder's decoded table first (run.load): with the
// table's ~90 MB still live, the collector worked at the limit most of the
// pass and RSS went from ~310 to ~425 MB (issue 39 asks < 400); without it,
// peak RSS stayed at the load's ~315 MB and the whole index took 0.80x the
// SQL pass's time (docs/BENCHMARKS.md). At this bound the graph is ~120 MB.
const maxInMemoryReferences = 600_000

// countReferences counts the edges a full pass decides.
func (w *writer) countReferences(ctx context.Context) (int, error) {
	var n int
	if err := w.db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges WHERE repository_id = $1 AND kind IN `+refKinds,
		w.repoID).Scan(&n); err != nil {
		return 0, fmt.Errorf("resolve edges: count the references: %w", err)
	}
	return n + w.spool.count(), nil
}

// resolveInMemory is resolveEdges' full pass decided in Go (see above), of a
// repository with refs reference edges.
func (w *writer) resolveInMemory(ctx context.Context, reset bool, refs int) error {
	if err := w.prepareFullPass(ctx, reset); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, w.db.Pool, func(tx pgx.Tx) error {
		b, err := w.openResolution(ctx, tx)
		if err != nil {
			return err
		}
		if err := b.send(ctx, tx, nil); err != nil {
			return err
		}
		// The load's garbage returned to the system first: the graph then
		// takes its place instead of adding to it (RSS, issue 39).
		debug.FreeOSMemory()
		g, err := loadGraph(ctx, tx, w.repoID, refs, w.spool)
		if err != nil {
			return err
		}
		g.decide()
		if w.spool != nil {
			if err := w.spool.writeHeld(ctx, tx, w.repoID, g); err != nil {
				return err
			}
			// What the table holds besides is imports and containment
			// edges, which the pass does not decide: nothing to rewrite.
			w.rewriteEdges = false
		}
		if err := g.hand(ctx, tx); err != nil {
			return err
		}
		g = nil // the decisions are in the session tables now
		b = &stepBatch{}
		b.queue("analyse the decisions", `ANALYZE res_out, res_dangling`)
		last := w.queueApply(b, true)
		if err := b.send(ctx, tx, last); err != nil {
			return err
		}
		// Each held edge was written once, with its decision.
		w.edgesHeld = w.spool != nil
		return nil
	})
}

// decide runs the steps in resolve.go's order.
func (g *memGraph) decide() {
	g.decideTyped()
	g.decideByName()
	g.adjust()
}

// record keeps d as r's decision unless it has one (ON CONFLICT DO NOTHING).
func record(r *rEdge, d decision) {
	if !r.decided {
		r.decided, r.dec = true, d
	}
}

// hand copies the decisions into the session tables the writing reads:
// res_out the edges given a target, res_dangling the others whose stored
// decision is not already "unresolved". Streamed, a row at a time.
func (g *memGraph) hand(ctx context.Context, tx pgx.Tx) error {
	rows := func(want func(r *rEdge) bool, row func(r *rEdge) []any) pgx.CopyFromSource {
		i := 0
		return pgx.CopyFromFunc(func() ([]any, error) {
			for ; i < len(g.res); i++ {
				if r := &g.res[i]; want(r) {
					i++
					return row(r), nil
				}
			}
			return nil, nil
		})
	}
	// Held edges (negative ids) are written with their decisions (edgeSpool.writeHeld).
	found := func(r *rEdge) bool { return r.id > 0 && r.decided && r.dec.sid != 0 }
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"res_out"}, []string{"edge_id", "sid", "confidence", "candidates"},
		rows(found, func(r *rEdge) []any {
			var cands any
			if r.dec.cands != nil {
				cands = *r.dec.cands
			}
			return []any{r.id, r.dec.sid, confidenceNames[r.dec.conf], cands}
		}))
	if err != nil {
		return fmt.Errorf("resolve edges: write the decisions: %w", err)
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"res_dangling"}, []string{"id"},
		rows(func(r *rEdge) bool { return r.id > 0 && r.stored && !found(r) }, func(r *rEdge) []any { return []any{r.id} }))
	if err != nil {
		return fmt.Errorf("resolve edges: write the edges left unresolved: %w", err)
	}
	return nil
}
