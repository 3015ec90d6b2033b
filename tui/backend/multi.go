package backend

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/conflictview"
	"github.com/spelunkhq/spelunk/tui/memoryview"
)

// Multi is the Backend over several repositories of one database (spelunk
// --repo A --repo B, or --all). Search runs in every repository the filter lets
// through and interleaves the rankings by rank, as spelunk search does
// (search.Interleave says why scores are not compared across repositories).
// Everything that starts from a symbol (opening it, its callers, its fields)
// goes to the repository the symbol was found in; what starts from a path (a
// file's header, its imports) goes to the repository of the symbol opened last.
// Status (but for the incomplete-index warning, every repository's), indexing
// and memory are the first repository's.
type Multi struct {
	engines []*Engine

	mu      sync.Mutex
	filter  int           // -1: every repository; else the index of the one searched
	owner   map[int64]int // symbol id → the engine it was found in
	current int           // the engine of the symbol routed last
}

var (
	_ tui.Backend    = (*Multi)(nil)
	_ tui.Syncer     = (*Multi)(nil)
	_ tui.RepoFilter = (*Multi)(nil)
)

// NewMulti returns the backend over engines (at least one; the first is the
// primary: its status, index and memory are the UI's).
func NewMulti(engines ...*Engine) *Multi {
	return &Multi{engines: engines, filter: -1, owner: map[int64]int{}}
}

// Primary is the first repository's backend (the watcher follows it).
func (m *Multi) Primary() *Engine { return m.engines[0] }

// Repositories names the repositories, in order.
func (m *Multi) Repositories() []string {
	out := make([]string, len(m.engines))
	for i, e := range m.engines {
		out[i] = e.repo.Name
	}
	return out
}

// Filter names the repository searched, "" when every one is.
func (m *Multi) Filter() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.filter < 0 {
		return ""
	}
	return m.engines[m.filter].repo.Name
}

// CycleFilter moves the filter on: every repository, then each in turn, then
// every one again. It returns the new filter as Filter does.
func (m *Multi) CycleFilter() string {
	m.mu.Lock()
	m.filter++
	if m.filter >= len(m.engines) {
		m.filter = -1
	}
	m.mu.Unlock()
	return m.Filter()
}

// RepoOf names the repository a symbol returned by this backend belongs to.
func (m *Multi) RepoOf(id int64) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i, ok := m.owner[id]; ok {
		return m.engines[i].repo.Name
	}
	return ""
}

// searched are the indexes of the engines the filter lets through.
func (m *Multi) searched() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.filter >= 0 {
		return []int{m.filter}
	}
	out := make([]int, len(m.engines))
	for i := range out {
		out[i] = i
	}
	return out
}

// remember records which engine the symbols came from.
func (m *Multi) remember(i int, syms ...*symbols.Symbol) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range syms {
		m.owner[s.ID] = i
	}
}

// route is the engine of a symbol (the current one when unknown), made current.
func (m *Multi) route(id int64) (int, *Engine) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i, ok := m.owner[id]; ok {
		m.current = i
	}
	return m.current, m.engines[m.current]
}

// cur is the engine of the symbol routed last.
func (m *Multi) cur() (int, *Engine) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.current, m.engines[m.current]
}

// Search searches every repository the filter lets through, at once, and
// interleaves their rankings.
func (m *Multi) Search(ctx context.Context, query string, opts search.Options) (*search.Response, error) {
	idx, err := chooseRepos(query, m.engines, m.searched())
	if err != nil {
		return nil, err
	}
	resps := make([]*search.Response, len(idx))
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	for n, i := range idx {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[n], errs[n] = m.engines[i].Search(ctx, query, opts)
		}()
	}
	wg.Wait()
	for n, err := range errs {
		if err != nil {
			if len(idx) == 1 {
				return nil, err
			}
			return nil, fmt.Errorf("search %s: %w", m.engines[idx[n]].repo.Name, err)
		}
	}
	for n, r := range resps {
		m.remember(idx[n], r.Symbols()...)
	}
	if len(resps) == 1 {
		return resps[0], nil
	}
	return mergeResponses(resps, opts), nil
}

// chooseRepos keeps the engines of idx that the query's repo: filters let
// through (all of them when it has none; a malformed filter is left to the
// search to report).
func chooseRepos(query string, engines []*Engine, idx []int) ([]int, error) {
	_, f, err := search.ParseFilters(query)
	if err != nil || !f.HasRepos() {
		return idx, nil
	}
	return search.SelectRepos(f, idx, func(i int) string { return engines[i].repo.Name },
		func(i int) string { return engines[i].repo.Root })
}

// mergeResponses interleaves several repositories' answers into one, renumbering
// the ranks; timings are the slowest repository's, pruned lists are dropped
// (they are per repository and would read as one ranking's).
func mergeResponses(resps []*search.Response, opts search.Options) *search.Response {
	out := *resps[0]
	out.Results, out.Files, out.Pruned = nil, nil, nil
	limit := opts.Limit
	if limit <= 0 {
		limit = 20
	}
	lists := make([][]search.Result, len(resps))
	files := make([][]search.FileResult, len(resps))
	for i, r := range resps {
		lists[i], files[i] = r.Results, r.Files
		out.Took = max(out.Took, r.Took)
		for c, why := range r.Unavailable {
			if out.Unavailable == nil {
				out.Unavailable = map[search.Channel]string{}
			}
			out.Unavailable[c] = why
		}
	}
	for n, p := range search.Interleave(lists, func(r search.Result) float64 { return r.Score }, limit) {
		r := lists[p.List][p.Index]
		r.Rank = n + 1
		out.Results = append(out.Results, r)
	}
	for n, p := range search.Interleave(files, func(f search.FileResult) float64 { return f.Score }, limit) {
		f := files[p.List][p.Index]
		f.Rank = n + 1
		out.Files = append(out.Files, f)
	}
	return &out
}

// Symbol returns one symbol from the repository it was found in.
func (m *Multi) Symbol(ctx context.Context, id int64) (symbols.Symbol, error) {
	_, e := m.route(id)
	return e.Symbol(ctx, id)
}

// FileHeader is the header of a file of the current repository.
func (m *Multi) FileHeader(ctx context.Context, path string) (symbols.Symbol, error) {
	i, e := m.cur()
	s, err := e.FileHeader(ctx, path)
	if err == nil {
		m.remember(i, &s)
	}
	return s, err
}

// Find resolves a name in the current repository.
func (m *Multi) Find(ctx context.Context, name, path string) ([]symbols.Symbol, error) {
	i, e := m.cur()
	syms, err := e.Find(ctx, name, path)
	for k := range syms {
		m.remember(i, &syms[k])
	}
	return syms, err
}

// Walk walks callers or callees in the symbol's repository.
func (m *Multi) Walk(ctx context.Context, id int64, dir graph.Direction, depth int) (graph.Walk, error) {
	i, e := m.route(id)
	w, err := e.Walk(ctx, id, dir, depth)
	m.remember(i, w.Symbols()...)
	return w, err
}

// Accesses lists a field's readers or writers in its repository.
func (m *Multi) Accesses(ctx context.Context, fieldID int64, rel graph.Relation) (graph.Walk, error) {
	i, e := m.route(fieldID)
	w, err := e.Accesses(ctx, fieldID, rel)
	m.remember(i, w.Symbols()...)
	return w, err
}

// Fields lists a type's fields in its repository.
func (m *Multi) Fields(ctx context.Context, ownerID int64) ([]symbols.Symbol, error) {
	i, e := m.route(ownerID)
	fields, err := e.Fields(ctx, ownerID)
	for k := range fields {
		m.remember(i, &fields[k])
	}
	return fields, err
}

// Imports lists what a file of the current repository imports.
func (m *Multi) Imports(ctx context.Context, path string, depth int) ([]graph.FileLink, error) {
	_, e := m.cur()
	return e.Imports(ctx, path, depth)
}

// Importers lists the importers of a file of the current repository.
func (m *Multi) Importers(ctx context.Context, target string, depth int) ([]graph.FileLink, error) {
	_, e := m.cur()
	return e.Importers(ctx, target, depth)
}

// Status is the primary repository's, but for Incomplete, which names every
// open repository whose index is incomplete (each answers searches, so each
// warns, as spelunk search over several does): "NAME: WHY", several joined
// by "; " after their names, which a short status bar keeps.
func (m *Multi) Status(ctx context.Context) (tui.RepoStatus, error) {
	st, err := m.Primary().Status(ctx)
	if err != nil || len(m.engines) == 1 {
		return st, err
	}
	var names, whys []string
	for i, e := range m.engines {
		why := st.Incomplete
		if i > 0 {
			rec, err := e.db.RepositoryByRoot(ctx, e.repo.Root)
			if err != nil {
				return st, fmt.Errorf("status of %s: %w", e.repo.Name, err)
			}
			why = incomplete(rec)
		}
		if why != "" {
			names, whys = append(names, e.repo.Name), append(whys, e.repo.Name+": "+why)
		}
	}
	switch len(names) {
	case 0:
		st.Incomplete = ""
	case 1:
		st.Incomplete = whys[0]
	default:
		st.Incomplete = "index incomplete in " + strings.Join(names, ", ") + ": " + strings.Join(whys, "; ")
	}
	return st, nil
}

// SyncStatus is the primary repository's memory cache.
func (m *Multi) SyncStatus(ctx context.Context) (tui.SyncStatus, error) {
	return m.Primary().SyncStatus(ctx)
}

// Index brings the primary repository's index up to date (the others are
// indexed with spelunk index; the UI follows one working tree).
func (m *Multi) Index(ctx context.Context, progress func(tui.Progress)) (tui.IndexResult, error) {
	return m.Primary().Index(ctx, progress)
}

// Conflicts are the primary repository's.
func (m *Multi) Conflicts(ctx context.Context) ([]conflictview.Conflict, error) {
	return m.Primary().Conflicts(ctx)
}

// Resolve records a resolution in the primary repository's memory.
func (m *Multi) Resolve(ctx context.Context, conflictID string, r conflictview.Resolution) error {
	return m.Primary().Resolve(ctx, conflictID, r)
}

// Undo reverts a resolution in the primary repository's memory.
func (m *Multi) Undo(ctx context.Context, conflictID string) error {
	return m.Primary().Undo(ctx, conflictID)
}

// Briefing is the primary repository's.
func (m *Multi) Briefing(ctx context.Context, query string) (memoryview.Briefing, error) {
	return m.Primary().Briefing(ctx, query)
}
