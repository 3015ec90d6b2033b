package index

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/source"
)

// run is the state of one index run, between its steps.
type run struct {
	ix   *Indexer
	repo *source.Repo
	opts Options
	prog *progressTracker
	lock *runLock
	w    *writer
	sum  Summary
	base string // the commit the index was at before this run ("" if none)

	interrupted bool              // the previous run never finished
	have        map[string]stored // what the database held before this run (of opts.Paths, when given)
	stored      int               // files the database held before this run
	todo        []target          // files to (re)write
	relabel     []target          // unchanged files whose revision label changes (see relabels)
	deleted     []string          // paths gone from the repository
	resolver    *importResolver
	emb         *embedStage
	firstLoad   bool // the database held no postings: the run loaded with its postings indexes deferred
	// edgesDeferred: the database held no edges, and the run loads and
	// resolves them without their lookup indexes (pg.DeferEdgeIndexes).
	edgesDeferred bool
	// symbolsDeferred: the database held no symbols, and the run loads them
	// without the trigram index of names (pg.DeferSymbolIndexes).
	symbolsDeferred bool
	side            *sideBuilds // the index builds beside the resolution (load starts them)
	badNames        int         // files left out: the name is not valid UTF-8 (dropBadNames)
}

// BulkRunFiles is the size of a run (files written or deleted) from which its
// statements run on a pool at background priority (pg.DB.Background): a
// first index, a branch switch. Smaller runs (a save, index_file) keep the
// open pool, whose connections are warm: a new one costs a few milliseconds.
const BulkRunFiles = 200

func (r *run) execute(ctx context.Context) error {
	r.prog.phase("listing")
	if err := r.plan(ctx); err != nil {
		return err
	}
	defer func() { r.w.spool.close() }()
	if len(r.todo)+len(r.deleted) >= BulkRunFiles {
		bg, err := r.ix.db.Background(ctx)
		if err != nil {
			return err
		}
		defer bg.Close()
		r.w.db = bg
	}
	if err := r.load(ctx); err != nil {
		return err
	}
	err := r.resolve(ctx)
	if err == nil {
		err = r.checkAnchors(ctx)
	}
	if err := r.side.wait(err != nil); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	changed := len(r.todo) + len(r.deleted)
	totals, err := r.ix.db.UpdateRepoStats(ctx, r.w.repoID, changed, r.stored, r.w.totalsDelta())
	if err != nil {
		return err
	}
	// A run over a few paths (a save, index_file) leaves the totals out of its
	// summary, as it always has.
	if len(r.opts.Paths) == 0 {
		r.sum.Symbols, r.sum.Edges = totals.Chunks, totals.Edges
		if r.sum.PendingEmbedding, err = r.w.pendingCount(ctx); err != nil {
			return err
		}
	}
	p := r.prog.snapshot()
	r.sum.FilesIndexed = p.FilesDone - p.FilesSkipped
	r.sum.SkippedNow += p.FilesSkipped // plus the bad names (dropBadNames)
	if err := r.countSkipped(ctx); err != nil {
		return err
	}
	r.sum.Embedded = p.Embedded
	if r.emb.unavailable != nil {
		r.sum.Notes = append(r.sum.Notes, fmt.Sprintf("embedder unavailable (%v): %d symbols wait for embedding; the next run fills them", r.emb.unavailable, r.sum.PendingEmbedding))
	}
	// On the lock's own session: if that session died, the lock went with it and
	// another run may be writing, so this run must not mark the index fresh.
	if err := r.w.finishRun(ctx, r.lock.conn, r.repo.Head, r.repo.Branch, r.opts.WorkingTree, len(r.opts.Paths) > 0, r.ix.emb.Name()); err != nil {
		return err
	}
	if r.firstLoad {
		r.prog.phase("repacking the symbol indexes")
		if err := r.ix.db.RepackLoadIndexes(ctx); err != nil {
			return err
		}
		// The load's WAL goes once its pages are written (pg.Checkpoint).
		r.prog.phase("checkpoint")
		if _, err := r.ix.db.Checkpoint(ctx); err != nil {
			return err
		}
	}
	r.prog.phase("done")
	return nil
}

// afterResolve compacts the edges a first load resolved and builds the
// indexes the load deferred.
func (r *run) afterResolve(ctx context.Context, changed bool) error {
	if r.opts.rewroteEdges != nil {
		*r.opts.rewroteEdges = r.w.edgesRewritten || (r.firstLoad && r.w.edgesHeld)
	}
	if r.opts.heldEdges != nil {
		*r.opts.heldEdges = r.w.edgesHeld
	}
	if r.firstLoad && changed && !r.w.edgesRewritten && !r.w.edgesHeld {
		// Resolution rewrote about half of the edges, each a new row version
		// and an entry in every edge index (target_id is indexed, so no update
		// is HOT): a third of the table and its indexes was dead space. A
		// rewrite (resolve_rewrite.go) left none.
		r.prog.phase("compacting the edges")
		if err := r.w.db.Compact(ctx, "edges"); err != nil {
			return err
		}
	}
	if r.edgesDeferred {
		r.prog.phase("building the edge indexes")
		if err := r.w.db.BuildEdgeIndexes(ctx); err != nil {
			return err
		}
	}
	if r.symbolsDeferred {
		// After the resolution, which writes symbols: the build blocks writes.
		r.prog.phase("building the symbol name index")
		if err := r.w.db.BuildSymbolIndexes(ctx); err != nil {
			return err
		}
	}
	return nil
}

// plan lists the repository, compares it with the database and decides which
// files to write and which to delete.
func (r *run) plan(ctx context.Context) error {
	if len(r.opts.Paths) > 0 {
		unfinished, err := r.w.unfinished(ctx)
		if err != nil {
			return err
		}
		if !unfinished {
			return r.planPaths(ctx)
		}
		// The previous run stopped part way (a branch switch killed half
		// done): these paths alone would leave the rest as it left them and
		// mark the index complete, so the whole working tree is brought up to
		// date instead.
		r.opts.Paths = nil
	}
	var err error
	if r.have, err = r.w.storedFiles(ctx, nil); err != nil {
		return err
	}
	r.stored = len(r.have)
	r.w.before = r.have
	// What the index holds is not read again to be listed (a full run rewrites
	// every file: all are read).
	have := r.have
	if r.opts.Full {
		have = nil
	}
	targets, revision, err := listTargets(ctx, r.repo, r.opts, have)
	if err != nil {
		return err
	}
	targets = dropBadNames(r, targets, func(t target) string { return t.Path })
	r.sum.Revision = revision
	if r.interrupted, err = r.w.beginRun(ctx, r.opts.Full); err != nil {
		return err
	}
	keep := make(map[string]bool, len(targets))
	for _, t := range targets {
		keep[t.Path] = true
		// A full run rewrites every file; the old rows serve until each is replaced.
		if s, ok := r.have[t.Path]; ok && s.blob == t.BlobSHA && s.status != "" && !r.opts.Full {
			r.sum.FilesUnchanged++
			if relabels(s.revision, t.revision) {
				r.relabel = append(r.relabel, t)
			}
			continue
		}
		r.todo = append(r.todo, t)
	}
	for p := range r.have {
		if !keep[p] {
			r.deleted = append(r.deleted, p)
		}
	}
	sort.Strings(r.deleted)
	r.sum.FilesDeleted = len(r.deleted)

	paths := make([]string, 0, len(targets))
	goMods := map[string][]byte{}
	for _, t := range targets {
		paths = append(paths, t.Path)
		if manifestFiles[path.Base(t.Path)] && t.Skip == "" {
			if data, err := r.repo.Read(ctx, t.File, t.revision); err == nil {
				goMods[t.Path] = data
			}
		}
	}
	r.resolver = newImportResolver(paths, goMods)
	return nil
}

// deferIndexes drops the indexes a large load is faster without (a first
// index: the HNSW index, the postings', edges' and symbols' lookups), which
// the run builds after the load, and builds those a load that did not
// finish left missing. It reports whether the HNSW and postings indexes were
// deferred; r.edgesDeferred and r.symbolsDeferred say the rest.
func (r *run) deferIndexes(ctx context.Context, model pg.Model) (deferred, postingsDeferred bool, err error) {
	db := r.ix.db
	if len(r.todo) >= 200 && len(r.todo) > len(r.have)/2 {
		// DeferModelIndex decides whether dropping the HNSW index is safe.
		if deferred, err = db.DeferModelIndex(ctx, model); err != nil {
			return false, false, err
		}
		if postingsDeferred, err = db.DeferPostingsIndexes(ctx); err != nil {
			return false, false, err
		}
		if r.edgesDeferred, err = db.DeferEdgeIndexes(ctx); err != nil {
			return false, false, err
		}
		if r.symbolsDeferred, err = db.DeferSymbolIndexes(ctx); err != nil {
			return false, false, err
		}
	}
	// Each build below makes what a deferred load that did not finish left missing.
	if !r.edgesDeferred {
		if err := db.BuildEdgeIndexes(ctx); err != nil {
			return false, false, err
		}
	}
	if !r.symbolsDeferred {
		if err := db.BuildSymbolIndexes(ctx); err != nil {
			return false, false, err
		}
	}
	if !postingsDeferred {
		if err := db.BuildPostingsIndexes(ctx); err != nil {
			return false, false, err
		}
	}
	return deferred, postingsDeferred, nil
}

// load writes and embeds the files of the plan and deletes the files gone.
func (r *run) load(ctx context.Context) error {
	ix := r.ix
	model := pg.Model{Name: ix.emb.Name(), Dims: ix.emb.Dims()}
	deferred, postingsDeferred, err := r.deferIndexes(ctx, model)
	if err != nil {
		return err
	}
	// A small change keeps the totals by delta; a bulk one, a first run or a
	// run after a crash counts them at its end.
	r.w.track = !r.opts.Full && !r.interrupted && r.stored > 0 && !r.bulk()
	if r.bulk() {
		// A small change keeps the staging tables: two statements fewer a batch.
		if r.w.direct, err = r.w.db.SessionBypassesRLS(ctx); err != nil {
			return err
		}
	}
	r.w.rewriteEdges = r.edgesDeferred && r.w.direct && !r.opts.keepEdgeUpdate
	r.w.edgeIndexesDeferred = r.edgesDeferred
	if r.holdsEdges() {
		if r.w.spool, err = newEdgeSpool(); err != nil {
			return err
		}
	}
	r.prog.setTotal(len(r.todo))
	r.prog.phase("indexing")
	if err := r.placeVectors(ctx, model); err != nil {
		return err
	}
	r.emb = newEmbedStage(ix.db, r.w.repoID, r.w.modelID, r.w.ownIndex, ix.emb, r.prog)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return r.emb.run(gctx) })
	g.Go(func() error {
		defer r.emb.close()
		if err := r.emb.enqueuePending(gctx); err != nil {
			return err
		}
		if len(r.deleted) > 0 {
			if err := r.w.deleteFiles(gctx, r.deleted); err != nil {
				return err
			}
		}
		if err := r.w.relabelFiles(gctx, r.relabel); err != nil {
			return err
		}
		return ix.pipeline(gctx, r.repo, r.todo, r.resolver, r.w, r.emb, r.prog, r.opts)
	})
	if err := g.Wait(); err != nil {
		return err
	}
	r.firstLoad = postingsDeferred
	r.side = r.startSideBuilds(ctx, model, postingsDeferred, deferred)
	return nil
}

// resolve refreshes statistics and links the graph's edges after the load.
func (r *run) resolve(ctx context.Context) error {
	opts, todo, deleted, have, w := r.opts, r.todo, r.deleted, r.have, r.w
	changed := len(todo) > 0 || len(deleted) > 0 || r.interrupted || opts.Full
	bulk := r.bulk()
	defer r.side.statsDone() // on every path: the builds beside wait for it
	if changed && bulk {
		// Statistics before resolving too: a repository new to a database that
		// already holds others has no rows in the planner's view, and the edge
		// resolution then ran as nested loops for minutes (13 min at 140k edges).
		// The postings and vectors are analyzed beside it (buildBeside).
		r.prog.phase("analyzing")
		if err := r.w.db.AnalyzeBulk(ctx, r.w.repoID, "files", "symbols", "edges"); err != nil {
			return err
		}
	}
	r.side.statsDone()
	if changed {
		r.prog.phase("resolving")
		added := false
		for _, t := range todo {
			if _, ok := have[t.Path]; !ok {
				added = true
				break
			}
		}
		goMoved := false
		if added || len(deleted) > 0 || r.interrupted || opts.Full {
			var err error
			if goMoved, err = w.reresolveImports(ctx, r.resolver); err != nil {
				return err
			}
		}
		// A small change re-resolves only what it can affect; a large one, a first
		// run or a run after a crash reconsiders every edge.
		var scope []string
		if !r.interrupted && !opts.Full && r.stored > 0 && len(todo)+len(deleted) < max(r.stored/5, 50) {
			scope = make([]string, 0, len(todo)+len(deleted))
			for _, t := range todo {
				scope = append(scope, t.Path)
			}
			scope = append(scope, deleted...)
		}
		// Go implements first: a call through an interface resolves to the
		// methods of the types that implement it.
		if err := r.linkGo(ctx, scope != nil && !goMoved); err != nil {
			return err
		}
		if scope == nil {
			r.releaseVectors()
		}
		// After an interrupted run every edge is decided again: what that run
		// deleted and renamed, which other files' edges it affects, is lost.
		if err := w.resolveEdges(ctx, scope, r.interrupted); err != nil {
			return err
		}
	}
	if err := r.afterResolve(ctx, changed); err != nil {
		return err
	}
	// Fresh statistics after a bulk change: without them the planner treats the new
	// rows as absent and picks nested loops and sequential scans (searches right
	// after a first index took 100 ms instead of 5).
	if bulk {
		// Only the edges changed since the statistics above (bulk implies
		// changed): the resolution set their targets.
		r.prog.phase("analyzing")
		if err := r.w.db.AnalyzeBulk(ctx, r.w.repoID, "edges"); err != nil {
			return err
		}
	}
	return nil
}

// vectorReleaser is an embedder that can let go of the vectors it decoded
// and decode them again when needed (embed.Static, embed.GloVe).
type vectorReleaser interface{ ReleaseVectors() }

// releaseVectors has the embedder let go of the table it decoded (~97 MB of
// the built-in model's once a large repository is embedded) before a full
// pass, whose graph needs as much (maxInMemoryReferences). Nothing after the
// load embeds; a search in the same process decodes what it needs again.
func (r *run) releaseVectors() {
	if v, ok := r.ix.emb.(vectorReleaser); ok {
		v.ReleaseVectors()
	}
}

// holdsEdges reports whether the load holds its reference edges until the
// full pass writes them with their decisions (edgespool.go): where the
// session may copy into the tables (writer.direct) and the repository has no
// edges yet, a first load of the database or of one more repository. The
// latter's edges would otherwise go in and then be updated in place, every
// index of a table holding the other repositories' edges kept up twice.
func (r *run) holdsEdges() bool {
	if !r.w.direct || r.opts.keepEdgeUpdate || r.w.db.Distributed {
		return false
	}
	return r.w.rewriteEdges || (r.stored == 0 && len(r.opts.Paths) == 0)
}

// bulk reports whether the run changes enough of the repository for the
// planner's statistics to need refreshing.
func (r *run) bulk() bool {
	return r.opts.Full || len(r.todo)+len(r.deleted) > max(r.stored/10, 20)
}

// linkGo decides the Go implements edges: for the directories of the Go
// files the run wrote or deleted when scoped (only those change which types
// implement which interfaces), else all of them.
func (r *run) linkGo(ctx context.Context, scoped bool) error {
	dirs := goDirs(r.todo, r.deleted)
	switch {
	case r.interrupted || r.opts.Full || (len(dirs) > 0 && !scoped):
		return r.w.linkGoImplementations(ctx)
	case len(dirs) > 0:
		return r.w.relinkGoImplementations(ctx, dirs)
	}
	return nil
}

// goDirs lists the directories of the Go files a run wrote or deleted.
func goDirs(todo []target, deleted []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if d := dirOf(p); strings.HasSuffix(p, ".go") && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, t := range todo {
		add(t.Path)
	}
	for _, p := range deleted {
		add(p)
	}
	sort.Strings(out)
	return out
}

// dropBadNames leaves out the files whose path is not valid UTF-8 (caf\xe9.py):
// PostgreSQL stores text as UTF-8 and refused the whole batch, so one such
// name failed every run (issue 36, 6). They are named, escaped, in the
// summary's notes; the rest of the repository is indexed.
func dropBadNames[F any](r *run, files []F, path func(F) string) []F {
	kept := files[:0]
	var bad []string
	for _, f := range files {
		if p := path(f); !utf8.ValidString(p) {
			bad = append(bad, strconv.Quote(p))
			continue
		}
		kept = append(kept, f)
	}
	if len(bad) > 0 {
		r.sum.SkippedNow += len(bad)
		r.badNames += len(bad)
		r.sum.Notes = append(r.sum.Notes, fmt.Sprintf("%d file(s) skipped: the name is not valid UTF-8: %s",
			len(bad), strings.Join(bad[:min(len(bad), 5)], ", ")))
	}
	return kept
}

// countSkipped sets the summary's FilesSkipped: after a whole run, every file
// of the repository the index holds no content for, the number status shows
// (plus the names no row can hold); after a run over given paths, those of
// this run.
func (r *run) countSkipped(ctx context.Context) error {
	if len(r.opts.Paths) > 0 {
		r.sum.FilesSkipped = r.sum.SkippedNow
		return nil
	}
	n, err := r.w.skippedCount(ctx)
	r.sum.FilesSkipped = n + r.badNames
	return err
}
