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

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/source"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/conflictview"
	"github.com/spelunkhq/spelunk/tui/memoryview"
)

// Embedder is the embedding model the repository is indexed and searched with.
type Embedder interface {
	Name() string
	Dims() int
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Options configure the backend.
type Options struct {
	// Actor is who resolutions are recorded as; default "spelunk-tui".
	Actor string
	// BriefingLimit is how many memories the briefing ranks; default 20.
	BriefingLimit int
}

// Engine is the Backend over one repository of one database.
type Engine struct {
	db       *pg.DB
	repo     pg.Repository
	emb      Embedder
	searcher *search.Searcher
	mem      *memory.Store
	opts     Options

	indexed     chan struct{} // closed when the first Index call returns (see Watch)
	indexedOnce sync.Once
}

var _ tui.Backend = (*Engine)(nil)

// New returns the backend of repo (registered with db.EnsureRepository) searched
// and indexed with emb.
func New(db *pg.DB, repo pg.Repository, emb Embedder, opts Options) *Engine {
	if opts.Actor == "" {
		opts.Actor = "spelunk-tui"
	}
	if opts.BriefingLimit <= 0 {
		opts.BriefingLimit = 20
	}
	return &Engine{
		db: db, repo: repo, emb: emb, opts: opts,
		searcher: search.New(db, repo.ID, emb),
		mem:      memory.New(db, repo.ID, memory.Options{Embedder: emb}),
		indexed:  make(chan struct{}),
	}
}

// Search runs a hybrid search.
func (e *Engine) Search(ctx context.Context, query string, opts search.Options) (*search.Response, error) {
	return e.searcher.Search(ctx, query, opts)
}

// Symbol returns one symbol with its content.
func (e *Engine) Symbol(ctx context.Context, id int64) (symbols.Symbol, error) {
	return symbols.Get(ctx, e.db, e.repo.ID, id)
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
	return symbols.Get(ctx, e.db, e.repo.ID, list[0].ID)
}

// Find resolves a name to symbols.
func (e *Engine) Find(ctx context.Context, name, path string) ([]symbols.Symbol, error) {
	return symbols.Find(ctx, e.db, e.repo.ID, name, path)
}

// Walk walks callers or callees.
func (e *Engine) Walk(ctx context.Context, id int64, dir graph.Direction, depth int) (graph.Walk, error) {
	return graph.Symbols(ctx, e.db, e.repo.ID, []int64{id}, dir, depth)
}

// Accesses lists the definitions that read or write a field (rel is
// graph.ReadsRel or graph.WritesRel), one hop.
func (e *Engine) Accesses(ctx context.Context, fieldID int64, rel graph.Relation) (graph.Walk, error) {
	return graph.SymbolsWith(ctx, e.db, e.repo.ID, []int64{fieldID}, graph.Callers, graph.Options{Depth: 1, Relation: rel})
}

// Fields lists a struct's or class's fields in source order.
func (e *Engine) Fields(ctx context.Context, ownerID int64) ([]symbols.Symbol, error) {
	return symbols.FieldsOf(ctx, e.db, e.repo.ID, ownerID)
}

// Imports lists what a file imports.
func (e *Engine) Imports(ctx context.Context, path string, depth int) ([]graph.FileLink, error) {
	return graph.Imports(ctx, e.db, e.repo.ID, path, depth)
}

// Importers lists the files importing a file, directory or module.
func (e *Engine) Importers(ctx context.Context, target string, depth int) ([]graph.FileLink, error) {
	return graph.Importers(ctx, e.db, e.repo.ID, target, depth)
}

// Status reports the repository's index freshness.
func (e *Engine) Status(ctx context.Context) (tui.RepoStatus, error) {
	rec, err := e.db.RepositoryByRoot(ctx, e.repo.Root)
	if err != nil {
		return tui.RepoStatus{}, err
	}
	st, err := index.RepoStatus(ctx, e.db, rec)
	if err != nil {
		return tui.RepoStatus{}, err
	}
	model := st.EmbeddingModel
	if model == "" {
		model = e.emb.Name()
	}
	return tui.RepoStatus{
		Name: st.Name, Root: st.Root, Revision: st.LastCommit, WorkingTree: st.WorkingTree, Head: st.Head,
		Indexed: st.LastIndexedAt != nil, Stale: st.Stale, StaleReason: st.StaleReason, Model: model,
		Files: st.Files, Symbols: st.Symbols, Pending: st.PendingEmbedding,
	}, nil
}

// Index brings the index up to date, with the working tree when it has
// uncommitted changes (or no commit at all), so the index matches what is on disk.
func (e *Engine) Index(ctx context.Context, progress func(tui.Progress)) (tui.IndexResult, error) {
	defer e.indexedOnce.Do(func() { close(e.indexed) })
	workingTree := false
	var notes []string
	if repo, err := source.Open(ctx, e.repo.Root); err == nil {
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
	for _, m := range b.Memories {
		out.Memories = append(out.Memories, memoryview.Memory{ID: m.ID, Kind: string(m.Kind), Author: m.Author,
			Status: string(m.Status), Content: m.Content, CreatedAt: m.CreatedAt, Score: m.Score})
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
