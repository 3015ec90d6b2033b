// Package backend implements the TUI's Backend over the engine: the index, the
// hybrid searcher, symbols, graph walks and the memory store of one repository.
// Every method takes the caller's context and is safe for concurrent use (the TUI
// runs several commands at once).
package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/fresh"
	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/source"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/conflictview"
	"github.com/spelunkhq/spelunk/tui/memoryview"
)

// Embedder is the one embedding contract (engine/embed).
type Embedder = embed.Embedder

// Options configure the backend.
type Options struct {
	// Actor is who resolutions are recorded as; default "spelunk-tui".
	Actor string
	// BriefingLimit is how many memories the briefing ranks; default 20.
	BriefingLimit int
	// Cache serves the briefing and the conflicts from the local edge cache
	// (resolutions still go to the core); nil = the core's memory store.
	Cache *memcache.Client
	// Judge decides memory contradictions for the core's store; nil = the
	// built-in judge.
	Judge memory.Judge
}

// memoryStore is what the Memory and Conflicts panes use: memory.Store's
// methods, served by the core or by the local cache.
type memoryStore interface {
	Briefing(ctx context.Context, opts memory.BriefingOptions) (memory.Briefing, error)
	Conflicts(ctx context.Context, status memory.ConflictStatus) ([]memory.Conflict, error)
	Conflict(ctx context.Context, ref string) (memory.ConflictDetail, error)
	Lineage(ctx context.Context, ref string) (memory.Lineage, error)
	Resolve(ctx context.Context, ref string, r memory.Resolution) (memory.Resolved, error)
	Undo(ctx context.Context, ref, actor string) (memory.Conflict, error)
}

// Engine is the Backend over one repository of one database.
type Engine struct {
	db       *pg.DB
	repo     pg.Repository
	emb      Embedder
	searcher *search.Searcher
	mem      memoryStore
	cache    *memcache.Client // nil without a cache
	fresh    *fresh.Checker   // marks results whose files changed since indexed
	opts     Options

	indexed     chan struct{} // closed when the first Index call returns (see Watch)
	indexedOnce sync.Once
}

var (
	_ tui.Backend = (*Engine)(nil)
	_ tui.Syncer  = (*Engine)(nil)
)

// New returns the backend of repo (registered with db.EnsureRepository) searched
// and indexed with emb.
func New(db *pg.DB, repo pg.Repository, emb Embedder, opts Options) *Engine {
	if opts.Actor == "" {
		opts.Actor = "spelunk-tui"
	}
	if opts.BriefingLimit <= 0 {
		opts.BriefingLimit = 20
	}
	e := &Engine{
		db: db, repo: repo, emb: emb, opts: opts,
		searcher: search.New(db, repo.ID, emb),
		mem:      memory.New(db, repo.ID, memory.Options{Embedder: emb, Judge: opts.Judge}),
		fresh:    fresh.New(db, repo.ID, repo.Root, fresh.Options{}),
		indexed:  make(chan struct{}),
	}
	if opts.Cache != nil {
		e.mem, e.cache = opts.Cache, opts.Cache
	}
	return e
}

// mark sets Stale on the symbols whose files changed on disk since indexed.
func (e *Engine) mark(ctx context.Context, syms ...*symbols.Symbol) error {
	if err := e.fresh.Mark(ctx, syms...); err != nil {
		return fmt.Errorf("check freshness: %w", err)
	}
	return nil
}

// markAll is mark over a slice.
func (e *Engine) markAll(ctx context.Context, syms []symbols.Symbol) error {
	ptrs := make([]*symbols.Symbol, len(syms))
	for i := range syms {
		ptrs[i] = &syms[i]
	}
	return e.mark(ctx, ptrs...)
}

// Search runs a hybrid search.
func (e *Engine) Search(ctx context.Context, query string, opts search.Options) (*search.Response, error) {
	if _, err := chooseRepos(query, []*Engine{e}, []int{0}); err != nil {
		return nil, err
	}
	resp, err := e.searcher.Search(ctx, query, opts)
	if err != nil {
		return nil, err
	}
	return resp, e.mark(ctx, resp.Symbols()...)
}

// Symbol returns one symbol with its content.
func (e *Engine) Symbol(ctx context.Context, id int64) (symbols.Symbol, error) {
	s, err := symbols.Get(ctx, e.db, e.repo.ID, id)
	if err != nil {
		return s, err
	}
	return s, e.mark(ctx, &s)
}

// FileHeader returns the header chunk of the file at path (its package clause,
// imports and module doc) with its content; a file without one yields its first
// symbol.
func (e *Engine) FileHeader(ctx context.Context, path string) (symbols.Symbol, error) {
	list, err := symbols.List(ctx, e.db, e.repo.ID, symbols.Filter{Path: path, Kind: "module", Limit: 1})
	if err != nil {
		return symbols.Symbol{}, err
	}
	if len(list) == 0 {
		if list, err = symbols.List(ctx, e.db, e.repo.ID, symbols.Filter{Path: path, Limit: 1}); err != nil {
			return symbols.Symbol{}, err
		}
	}
	if len(list) == 0 {
		return symbols.Symbol{}, fmt.Errorf("file %s: %w", path, symbols.ErrNotFound)
	}
	return e.Symbol(ctx, list[0].ID)
}

// Find resolves a name to symbols.
func (e *Engine) Find(ctx context.Context, name, path string) ([]symbols.Symbol, error) {
	syms, err := symbols.Find(ctx, e.db, e.repo.ID, name, path)
	if err != nil {
		return nil, err
	}
	return syms, e.markAll(ctx, syms)
}

// Walk walks callers or callees.
func (e *Engine) Walk(ctx context.Context, id int64, dir graph.Direction, depth int) (graph.Walk, error) {
	w, err := graph.Symbols(ctx, e.db, e.repo.ID, []int64{id}, dir, depth)
	if err != nil {
		return w, err
	}
	return w, e.mark(ctx, w.Symbols()...)
}

// Accesses lists the definitions that read or write a field (rel is
// graph.ReadsRel or graph.WritesRel), one hop.
func (e *Engine) Accesses(ctx context.Context, fieldID int64, rel graph.Relation) (graph.Walk, error) {
	w, err := graph.SymbolsWith(ctx, e.db, e.repo.ID, []int64{fieldID}, graph.Callers, graph.Options{Depth: 1, Relation: rel})
	if err != nil {
		return w, err
	}
	return w, e.mark(ctx, w.Symbols()...)
}

// Fields lists a struct's or class's fields in source order.
func (e *Engine) Fields(ctx context.Context, ownerID int64) ([]symbols.Symbol, error) {
	fields, err := symbols.FieldsOf(ctx, e.db, e.repo.ID, ownerID)
	if err != nil {
		return nil, err
	}
	return fields, e.markAll(ctx, fields)
}

// Imports lists what a file imports.
func (e *Engine) Imports(ctx context.Context, path string, depth int) ([]graph.FileLink, error) {
	return graph.Imports(ctx, e.db, e.repo.ID, path, depth)
}

// Importers lists the files importing a file, directory or module.
func (e *Engine) Importers(ctx context.Context, target string, depth int) ([]graph.FileLink, error) {
	return graph.Importers(ctx, e.db, e.repo.ID, target, depth, graph.TestsInclude)
}

// Status reports the repository's index freshness.
func (e *Engine) Status(ctx context.Context) (tui.RepoStatus, error) {
	rec, err := e.db.RepositoryByRoot(ctx, e.repo.Root)
	if err != nil {
		return tui.RepoStatus{}, err
	}
	st, err := index.RepoFreshness(ctx, e.db, rec) // refreshed every few seconds: no counts
	if err != nil {
		return tui.RepoStatus{}, err
	}
	model := st.EmbeddingModel
	if model == "" {
		model = e.emb.Name()
	}
	return tui.RepoStatus{
		Name: st.Name, Root: st.Root, Revision: st.LastCommit, WorkingTree: st.WorkingTree, Head: st.Head,
		Indexed: st.LastIndexedAt != nil, Stale: st.Stale, StaleReason: st.StaleReason, StaleFiles: st.StaleFiles, Model: model,
		Files: st.Files, Symbols: st.Symbols, Pending: st.PendingEmbedding, Incomplete: incomplete(rec),
	}, nil
}

// incomplete is rec's warning once a run has started: a repository no run
// ever started for already reads "never indexed".
func incomplete(rec pg.Repository) string {
	if rec.IndexingStarted == nil {
		return ""
	}
	return rec.Incomplete()
}

// SyncStatus is the memory cache's queue and last sync error (nothing without
// a cache). It reads the local file only, so it answers with the core down.
func (e *Engine) SyncStatus(ctx context.Context) (tui.SyncStatus, error) {
	if e.cache == nil {
		return tui.SyncStatus{}, nil
	}
	r, err := e.cache.Cache().Status(ctx)
	if err != nil {
		return tui.SyncStatus{}, fmt.Errorf("memory cache: %w", err)
	}
	return tui.SyncStatus{Cached: true, Queued: r.Queued, LastError: pg.RedactText(r.LastError)}, nil
}

// Index brings the index up to date, with the working tree when it has
// uncommitted changes (or no commit at all), so the index matches what is on disk.
func (e *Engine) Index(ctx context.Context, progress func(tui.Progress)) (tui.IndexResult, error) {
	defer e.indexedOnce.Do(func() { close(e.indexed) })
	workingTree := false
	var notes []string
	repo, err := source.Open(ctx, e.repo.Root)
	if err != nil {
		// Not "no working tree": the indexer opens it too and reports why it can't.
		notes = append(notes, fmt.Sprintf("%v; indexing the last commit", err))
	} else {
		if repo.IsGit && repo.Head == "" {
			workingTree = true
		} else if dirty, err := repo.Dirty(ctx); err != nil {
			// Not "clean": say so, and index the last commit, which git can read.
			notes = append(notes, fmt.Sprintf("%v; indexed the last commit only", err))
		} else if dirty {
			workingTree = true
		}
		repo.Close()
	}
	opts := index.Options{WorkingTree: workingTree, ProgressEvery: 100 * time.Millisecond}
	if progress != nil {
		opts.Progress = func(p index.Progress) {
			progress(tui.Progress{
				Phase: p.Phase, FilesTotal: p.FilesTotal, FilesDone: p.FilesDone, FilesSkipped: p.FilesSkipped,
				Chunks: p.Chunks, EmbedQueued: p.EmbedQueued, Embedded: p.Embedded, Rate: p.Rate(), ETA: p.ETA(),
			})
		}
	}
	sum, err := index.New(e.db, e.emb).Index(ctx, e.repo.Root, opts)
	if err != nil {
		return tui.IndexResult{}, err
	}
	return tui.IndexResult{
		Revision: sum.Revision, FilesIndexed: sum.FilesIndexed, FilesDeleted: sum.FilesDeleted, Symbols: sum.Symbols,
		Embedded: sum.Embedded, Duration: time.Duration(sum.DurationMS) * time.Millisecond, Notes: append(notes, sum.Notes...),
	}, nil
}

// Conflicts returns the open conflicts with their memories and lineage.
func (e *Engine) Conflicts(ctx context.Context) ([]conflictview.Conflict, error) {
	open, err := e.mem.Conflicts(ctx, memory.ConflictOpen)
	if err != nil {
		return nil, err
	}
	out := make([]conflictview.Conflict, 0, len(open))
	for _, c := range open {
		d, err := e.mem.Conflict(ctx, c.ID)
		if errors.Is(err, memory.ErrNotFound) {
			continue // resolved meanwhile
		}
		if err != nil {
			return nil, err
		}
		cv := conflictview.Conflict{ID: d.ID, Similarity: d.Similarity, Reason: d.Reason, CreatedAt: d.CreatedAt}
		for _, m := range d.Memories {
			side := conflictview.Side{ID: m.ID, Kind: string(m.Kind), Author: m.Author, Status: string(m.Status),
				Content: m.Content, CreatedAt: m.CreatedAt, Parents: m.ParentIDs}
			if len(m.ParentIDs) > 0 {
				l, err := e.mem.Lineage(ctx, m.ID)
				if err != nil {
					return nil, err
				}
				for _, a := range l.Ancestors {
					side.Lineage = append(side.Lineage, conflictview.Ancestor{ID: a.ID, Author: a.Author,
						Status: string(a.Status), Content: a.Content, CreatedAt: a.CreatedAt, Depth: a.Depth})
				}
			}
			cv.Sides = append(cv.Sides, side)
		}
		if len(cv.Sides) > 0 {
			out = append(out, cv)
		}
	}
	return out, nil
}

// Resolve records a resolution.
func (e *Engine) Resolve(ctx context.Context, conflictID string, r conflictview.Resolution) error {
	_, err := e.mem.Resolve(ctx, conflictID, memory.Resolution{
		Action: memory.Action(r.Action), Memory: r.Memory, Text: r.Text, Resolver: e.opts.Actor, Note: r.Note,
	})
	return err
}

// Undo reverts the resolution of a conflict.
func (e *Engine) Undo(ctx context.Context, conflictID string) error {
	_, err := e.mem.Undo(ctx, conflictID, e.opts.Actor)
	return err
}

// Briefing returns the briefing, ranked by query when one is given.
func (e *Engine) Briefing(ctx context.Context, query string) (memoryview.Briefing, error) {
	b, err := e.mem.Briefing(ctx, memory.BriefingOptions{Query: query, Limit: e.opts.BriefingLimit})
	if err != nil {
		return memoryview.Briefing{}, err
	}
	out := memoryview.Briefing{OpenConflicts: b.OpenConflicts, Ranking: b.Ranking}
	if out.StaleMemories, err = e.staleCount(ctx); err != nil {
		return memoryview.Briefing{}, err
	}
	for _, m := range b.Memories {
		out.Memories = append(out.Memories, memoryview.Memory{ID: m.ID, Kind: string(m.Kind), Author: m.Author,
			Status: string(m.Status), Content: m.Content, CreatedAt: m.CreatedAt, Score: m.Score, Anchors: anchorLabels(m.Anchors)})
	}
	for _, n := range b.Nuggets {
		out.Nuggets = append(out.Nuggets, memoryview.Nugget{Key: n.Key, Value: n.Value, Author: n.Author, UpdatedAt: n.UpdatedAt})
	}
	if s := b.State; s != nil {
		out.State = &memoryview.State{Summary: s.Summary, Blockers: s.Blockers, Priorities: s.Priorities,
			Author: s.Author, CompiledAt: s.CompiledAt}
	}
	return out, nil
}
