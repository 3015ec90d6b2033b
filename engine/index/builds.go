package index

import (
	"context"
	"sync"

	"github.com/spelunkhq/spelunk/engine/pg"
)

// sideBuilds is the work a bulk load leaves for its end that the resolution
// does not read: the indexes it deferred (the postings' term and group indexes,
// the model's HNSW index, a repository's own vector index) and the statistics
// of the tables they index. Each build is one PostgreSQL backend's work on its
// own connection, while the resolution is another's, so on two cores the two
// run side by side: for Go's src/net the HNSW build (0.6 s) and the postings
// build (0.2 s) ran after the load and before the resolution, one backend busy
// and one core idle.
type sideBuilds struct {
	cancel context.CancelFunc
	done   chan error
	// statsTaken is closed once the resolution's statistics are taken
	// (statsDone): the repository's own name index, built concurrently,
	// holds a lock that ANALYZE of symbols waits behind, 24 s at a million
	// chunks.
	statsTaken chan struct{}
	once       sync.Once
}

// startSideBuilds starts them; wait must be called on every path.
func (r *run) startSideBuilds(ctx context.Context, model pg.Model, postings, vectors bool) *sideBuilds {
	ctx, cancel := context.WithCancel(ctx)
	b := &sideBuilds{cancel: cancel, done: make(chan error, 1), statsTaken: make(chan struct{})}
	go func() {
		b.done <- r.buildBeside(ctx, model, postings, vectors, b.statsTaken)
		r.prog.besidePhase("")
	}()
	return b
}

// statsDone lets the builds that wait for the resolution's statistics go on.
func (b *sideBuilds) statsDone() { b.once.Do(func() { close(b.statsTaken) }) }

// wait returns the builds' error, after abandoning them when the run failed
// (abandon): a cancelled build leaves its index missing, and the next run
// builds it (BuildPostingsIndexes, RegisterModel).
func (b *sideBuilds) wait(abandon bool) error {
	if abandon {
		b.cancel()
	}
	defer b.cancel()
	return <-b.done
}

// buildBeside builds what the load deferred (postings, vectors) and, after a
// bulk change, refreshes the statistics of the tables built: after the
// builds, so that the postings' statistics see the rows in term order
// (CLUSTER).
func (r *run) buildBeside(ctx context.Context, model pg.Model, postings, vectors bool, statsTaken <-chan struct{}) error {
	ix := r.ix
	if postings {
		r.prog.besidePhase("building the postings index")
		if err := ix.db.BuildPostingsIndexes(ctx); err != nil {
			return err
		}
	}
	if vectors {
		r.prog.besidePhase("building the vector index")
		if err := ix.db.BuildModelIndex(ctx, model); err != nil {
			return err
		}
	}
	if len(r.opts.Paths) == 0 { // a run over a few paths (a save, index_file) adds too few rows to matter
		if err := r.buildOwnIndexes(ctx, model, statsTaken); err != nil {
			return err
		}
	}
	// Rows left out of the shared index stay out only beside an index of the
	// repository's own: this run's guess, or a failed run's, may have left
	// some without one.
	if r.w.ownIndex || r.interrupted {
		if err := ix.db.ShareLeftOutVectors(ctx, r.w.repoID, model); err != nil {
			return err
		}
	}
	if !r.bulk() {
		return nil
	}
	r.prog.besidePhase("analyzing")
	return r.w.db.AnalyzeBulk(ctx, r.w.repoID, "postings", "symbol_embeddings")
}

// buildOwnIndexes builds the repository's own vector and name indexes when
// other repositories' rows crowd the shared ones (pg.NeedsRepoVectorIndex,
// pg.NeedsRepoNameIndex), the name index once the resolution's statistics
// of symbols are taken.
func (r *run) buildOwnIndexes(ctx context.Context, model pg.Model, statsTaken <-chan struct{}) error {
	db, repo := r.ix.db, r.w.repoID
	need, err := db.NeedsRepoVectorIndex(ctx, repo, model)
	if err != nil {
		return err
	}
	if need {
		r.prog.besidePhase("building the repository's vector index")
		if err := db.BuildRepoVectorIndex(ctx, repo, model); err != nil {
			return err
		}
	}
	if need, err = db.NeedsRepoNameIndex(ctx, repo); err != nil {
		return err
	}
	if need {
		select {
		case <-statsTaken:
		case <-ctx.Done():
			return ctx.Err()
		}
		r.prog.besidePhase("building the repository's name index")
		return db.BuildRepoNameIndex(ctx, repo)
	}
	return nil
}

// bytesPerChunk is about how many bytes of source a chunk holds (445 in
// $GOROOT/src, 550 in sqlalchemy), to guess before a bulk load whether the
// repository will need a vector index of its own. Files per chunk varied
// too much to guess from (9 in $GOROOT/src, 52 in sqlalchemy).
const bytesPerChunk = 512

// placeVectors decides whether the run's vectors go into the rows the
// model's shared HNSW index leaves out (pg.DB.LeaveOutOfShared): those of a
// repository with an index of its own, or of a bulk load that will build one.
// The guess only picks where the vectors go first: the run's end puts them
// back into the shared index when no index of its own came of it
// (buildBeside).
func (r *run) placeVectors(ctx context.Context, model pg.Model) error {
	var err error
	if r.bulk() {
		var size int64
		for _, t := range r.todo {
			if t.Skip == "" {
				size += t.Size
			}
		}
		r.w.ownIndex, err = r.ix.db.LeaveOutOfShared(ctx, r.w.repoID, model, int(size/bytesPerChunk))
	} else {
		r.w.ownIndex, err = r.ix.db.HasRepoVectorIndex(ctx, r.w.repoID, model)
	}
	return err
}
