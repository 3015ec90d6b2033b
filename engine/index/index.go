// Package index turns a repository into the rows every other part of spelunk reads:
// files, symbol chunks, graph edges and embeddings.
//
// The pipeline: list the files (git blob SHAs, or content hashes for the working tree),
// compare them with what the database holds, and for the files that changed: read
// (one goroutine; git cat-file --batch) -> classify, redact, parse (one worker per core)
// -> write (one goroutine; a few files per transaction, each file's rows replaced
// atomically, bulk rows through COPY) -> embed (one goroutine, batched, concurrent
// with the rest). Graph edges are resolved in SQL at the end of the run.
//
// Crash safety follows from the order: a file's rows carry its blob SHA and are
// committed whole, so a re-run after a kill -9 sees exactly the files still to do;
// symbols committed without a vector are 'pending' and embedded by the next run.
package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/parse"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/source"
)

// Embedder is the one embedding contract (engine/embed).
type Embedder = embed.Embedder

// Options configure one run.
type Options struct {
	// Full re-indexes and re-embeds every file. Each file's rows are replaced in
	// one transaction, so searches keep finding the old rows until then.
	Full bool
	// NoWait fails with ErrBusy instead of waiting when another run (in any
	// process) is indexing the same repository.
	NoWait       bool
	WorkingTree  bool  // index uncommitted changes too (revision "working-tree")
	MaxFileBytes int64 // skip larger files; 0 = 1 MiB
	// AllowSystemDirs indexes /, /proc, /sys or /dev anyway (source.ErrSystemDir
	// otherwise): spelunk index --force.
	AllowSystemDirs bool
	Workers         int // parse workers; 0 = one per core
	// Revision indexes that commit instead of HEAD (the work tree is not touched);
	// it cannot be combined with WorkingTree.
	Revision string
	// StoreAs keeps the rows under this repository key instead of the repository's
	// root, so an index at a past commit (spelunk eval history) never replaces the
	// user's index of the same repository.
	StoreAs string
	// Paths, when set, indexes just these files (slash-separated, relative to
	// the root) as they are on disk, the rest of the index staying as it is:
	// what a watcher or an agent's index_file needs after a save. A path gone
	// from disk (or now ignored) loses its rows. It implies WorkingTree and
	// leaves the repository's indexed commit alone (see finishRun).
	Paths []string
	// Progress, when set, receives snapshots at most every ProgressEvery.
	Progress      func(Progress)
	ProgressEvery time.Duration

	batchFiles int // files per write transaction; 0 = 64 (tests set it through SetBatchFiles)
	// Tests (KeepEdgeUpdate, ReportEdgeRewrite, ReportHeldEdges): a first
	// load's full pass updates the edges as other runs do; rewroteEdges is
	// told whether a first load of the database wrote them once more with
	// their decisions or held them (resolve_rewrite.go, edgespool.go),
	// heldEdges whether the run held them.
	keepEdgeUpdate bool
	rewroteEdges   *bool
	heldEdges      *bool
	resolveParts   int    // connections a full pass decides on in SQL; 0 = defaultResolveParts (SetResolveParts)
	resolveIn      string // "sql" or "memory": where a full pass decides, whatever the size (ResolveIn)
	atSQLPass      func() // called as a resolution in SQL starts (AtSQLPass)
}

// Progress is a snapshot of a run.
type Progress struct {
	Phase        string // "waiting: ...", "listing", "indexing", "embedding", "resolving", "done"
	FilesTotal   int    // files to (re)index in this run
	FilesDone    int
	FilesSkipped int
	Chunks       int
	EmbedQueued  int
	Embedded     int
	Elapsed      time.Duration

	firstFile time.Duration // Elapsed when the first file was done
}

// Rate is files per second so far.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.FilesDone) / p.Elapsed.Seconds()
}

// ETA thresholds: an estimate is given only once etaMinFiles files (or
// etaMinShare of them) were done over etaMinTime; before that it would be a
// guess from the listing's pause and the first batch (the first estimate of a
// 4-second run once said 1m32s).
const (
	etaMinFiles = 50
	etaMinShare = 0.05
	etaMinTime  = time.Second
)

// ETA estimates the time left for the files of this run, from the rate since
// the first file was done; 0 while that rate is not yet meaningful.
func (p Progress) ETA() time.Duration {
	span := p.Elapsed - p.firstFile
	done := p.FilesDone - 1 // the first file starts the clock
	if p.FilesDone >= p.FilesTotal || span < etaMinTime || done <= 0 ||
		(done < etaMinFiles && float64(done) < etaMinShare*float64(p.FilesTotal)) {
		return 0
	}
	return time.Duration(float64(p.FilesTotal-p.FilesDone) / float64(done) * float64(span))
}

// Summary is the result of a run, in the JSON shape of docs/ARCHITECTURE.md §11.
type Summary struct {
	Repository     string `json:"repository"`
	RepositoryID   int64  `json:"repository_id"`
	Revision       string `json:"revision"`
	FilesIndexed   int    `json:"files_indexed"`
	FilesUnchanged int    `json:"files_unchanged"`
	FilesDeleted   int    `json:"files_deleted"`
	// FilesSkipped counts the files at this revision the index keeps no
	// content for (too large, binary, generated, a name that is not UTF-8):
	// the repository's total, as status shows it, whether this run or an
	// earlier one skipped them; after a run over given paths, those among them.
	FilesSkipped int `json:"files_skipped"`
	// SkippedNow counts the files this run read and skipped.
	SkippedNow       int    `json:"files_skipped_now"`
	Symbols          int    `json:"symbols"` // repository totals; 0 after a run over given paths
	Edges            int    `json:"edges"`
	Embedded         int    `json:"embedded"`
	PendingEmbedding int    `json:"pending_embedding"`
	EmbeddingModel   string `json:"embedding_model"`
	DurationMS       int64  `json:"duration_ms"`
	// MemoriesToReview counts the memories this run sent to review: code they
	// are anchored to changed, was removed or renamed.
	MemoriesToReview int      `json:"memories_to_review,omitempty"`
	Notes            []string `json:"notes,omitempty"`
}

// Indexer writes repositories into a database.
type Indexer struct {
	db  *pg.DB
	emb Embedder
}

// New returns an indexer writing to db and embedding with emb.
func New(db *pg.DB, emb Embedder) *Indexer { return &Indexer{db: db, emb: emb} }

// target is one file the run wants in the database.
type target struct {
	source.File
	revision string // commit SHA or source.WorkingTreeRev
}

// stored is what the database holds for a path.
type stored struct {
	blob     string
	status   string
	revision string
	size     int64
	mtime    *int64 // ns, when the row's bytes were read from disk with a stable mtime
}

// Index brings the database in line with the repository at dir. Runs on one
// repository are serialised across processes (see lockRun).
func (ix *Indexer) Index(ctx context.Context, dir string, opts Options) (Summary, error) {
	start := time.Now()
	repo, err := source.OpenWith(ctx, dir, source.OpenOptions{AllowSystemDirs: opts.AllowSystemDirs})
	if err != nil {
		return Summary{}, err
	}
	defer repo.Close()
	if opts.Revision != "" {
		if opts.WorkingTree {
			return Summary{}, fmt.Errorf("index %s: a revision and the working tree cannot be indexed together", repo.Root)
		}
		if err := repo.Pin(ctx, opts.Revision); err != nil {
			return Summary{}, fmt.Errorf("index %s at %s: %w", repo.Root, opts.Revision, err)
		}
	}
	if len(opts.Paths) > 0 && (opts.Full || opts.Revision != "") {
		return Summary{}, fmt.Errorf("index %s: a run over given paths indexes the files on disk; it cannot be full or at a revision", repo.Root)
	}
	if len(opts.Paths) > 0 {
		opts.WorkingTree = true
	}
	if repo.IsGit && repo.Head == "" && !opts.WorkingTree {
		return Summary{}, fmt.Errorf("index %s: the repository has no commits yet: commit something, or index the working tree with --working-tree", repo.Root)
	}

	key := repo.Root
	if opts.StoreAs != "" {
		key = opts.StoreAs
	}
	sum := Summary{Repository: key, EmbeddingModel: ix.emb.Name()}
	rec, err := ix.db.EnsureRepository(ctx, key)
	if err != nil {
		return sum, err
	}
	sum.RepositoryID = rec.ID
	prog := newProgressTracker(opts, start)
	lock, err := lockRun(ctx, ix.db, rec.ID, key, opts.NoWait, prog)
	if err != nil {
		return sum, err
	}
	defer lock.release()
	prog.restart(time.Now()) // rates count from the end of any wait
	if len(opts.Paths) > 0 && rec.LastIndexedAt == nil {
		// Never indexed: rows of a few files would pass for the whole
		// repository, so the first run indexes all of it.
		opts.Paths = nil
	}
	if err := ix.db.RegisterModel(ctx, pg.Model{Name: ix.emb.Name(), Dims: ix.emb.Dims()}); err != nil {
		return sum, err
	}
	modelID, err := ix.db.ModelID(ctx, ix.emb.Name())
	if err != nil {
		return sum, err
	}
	r := &run{ix: ix, repo: repo, opts: opts, prog: prog, sum: sum, lock: lock, base: rec.LastCommit,
		w: &writer{db: ix.db, repoID: rec.ID, model: ix.emb.Name(), modelID: modelID,
			resolveIn: opts.resolveIn, atSQLPass: opts.atSQLPass,
			// Each share holds a connection of the pool, as the run lock does.
			resolveParts: min(cmp.Or(opts.resolveParts, defaultResolveParts), max(1, int(ix.db.Pool.Config().MaxConns)-1))}}
	if err := r.execute(ctx); err != nil {
		return r.sum, err
	}
	r.sum.DurationMS = time.Since(start).Milliseconds()
	return r.sum, nil
}

// listTargets returns the files the index should hold and the revision label.
// have, when set, is what the index holds: its committed blobs are not read
// again, nor files on disk with the size and mtime it read them with (see
// source.Options Known and Unchanged).
func listTargets(ctx context.Context, repo *source.Repo, opts Options, have map[string]stored) ([]target, string, error) {
	sopts := source.Options{MaxFileBytes: opts.MaxFileBytes}
	wopts := sopts
	if have != nil {
		sopts.Known = func(p, blob string) bool {
			s, ok := have[p]
			return ok && s.blob == blob && s.status != ""
		}
		wopts.Unchanged = func(p string, size int64, mtime time.Time) (string, bool) {
			s, ok := have[p]
			if !ok || s.mtime == nil || *s.mtime != mtime.UnixNano() || s.size != size || s.blob == "" || s.status == "" {
				return "", false
			}
			return s.blob, true
		}
	}
	if !repo.IsGit {
		files, err := repo.WorkingTree(ctx, wopts)
		if err != nil {
			return nil, "", err
		}
		return withRevision(files, source.WorkingTreeRev), source.WorkingTreeRev, nil
	}
	var committed []source.File
	if repo.Head != "" {
		copts := sopts
		if opts.WorkingTree {
			// Only the blob ids at HEAD are wanted: the files indexed are read from disk.
			copts.Known = func(string, string) bool { return true }
		}
		var err error
		if committed, err = repo.Files(ctx, copts); err != nil {
			return nil, "", err
		}
	}
	if !opts.WorkingTree {
		return withRevision(committed, repo.Head), repo.Head, nil
	}
	wt, err := repo.WorkingTree(ctx, wopts)
	if err != nil {
		return nil, "", err
	}
	atHead := make(map[string]string, len(committed))
	for _, f := range committed {
		atHead[f.Path] = f.BlobSHA
	}
	out := make([]target, 0, len(wt))
	for _, f := range wt {
		rev := source.WorkingTreeRev
		if atHead[f.Path] == f.BlobSHA {
			rev = repo.Head // unchanged since the commit: keep labelling it with the commit
		}
		out = append(out, target{File: f, revision: rev})
	}
	return out, source.WorkingTreeRev, nil
}

func withRevision(files []source.File, rev string) []target {
	out := make([]target, len(files))
	for i, f := range files {
		out[i] = target{File: f, revision: rev}
	}
	return out
}

// parsed is one file ready to be written.
type parsed struct {
	target
	language string
	status   string // indexed | partial | skipped
	skip     string
	notes    []string
	secrets  int
	hash     string
	mtime    any // the file's mtime in ns when it proves the content (source.Content.StableModTime), else nil
	file     *parse.File
	imports  []string    // resolved path per file.Imports entry ("" = external)
	chunks   []chunkText // per file.Symbols entry (chunktext.go); nil until computed
}

func (ix *Indexer) pipeline(ctx context.Context, repo *source.Repo, todo []target, resolver *importResolver,
	w *writer, emb *embedStage, prog *progressTracker, opts Options) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	type job struct {
		target
		content source.Content
		err     error
	}
	sopts := source.Options{MaxFileBytes: opts.MaxFileBytes}
	jobs := make(chan job, workers*4)
	results := make(chan parsed, workers*4)
	g, ctx := errgroup.WithContext(ctx)

	g.Go(func() error { // reader: git cat-file is one sequential stream
		defer close(jobs)
		for _, t := range todo {
			j := job{target: t}
			if t.Skip == "" {
				j.content, j.err = repo.ReadContent(ctx, t.File, t.revision)
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	inline := inProcess(ix.emb)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		g.Go(func() error {
			defer wg.Done()
			for j := range jobs {
				p := ix.prepareChunks(ctx, prepareCurrent(ctx, repo, j.target, j.content, j.err, resolver, sopts), inline)
				select {
				case results <- p:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		wg.Wait()
		close(results)
		return nil
	})
	// Writers: batches of files, one transaction each. Two of them keep the
	// database busy on both cores while the parsers wait for neither (the writes,
	// not the parsing, are the bulk of a first index).
	maxFiles := 64
	if opts.batchFiles > 0 {
		maxFiles = opts.batchFiles
	}
	writers := 2
	if opts.batchFiles > 0 || workers == 1 {
		// One writer keeps the order of ids (and so of ties) the same on every run:
		// wanted by tests that place a crash between commits or compare goldens.
		writers = 1
	}
	for range writers {
		g.Go(func() error {
			const maxChunks = 2000
			var batch []parsed
			chunks := 0
			flush := func() error {
				if len(batch) == 0 {
					return nil
				}
				pending, err := w.writeFiles(ctx, batch)
				if err != nil {
					return err
				}
				prog.batchDone(batch)
				if err := emb.enqueue(ctx, pending); err != nil {
					return err
				}
				batch, chunks = batch[:0], 0
				return nil
			}
			for p := range results {
				batch = append(batch, p)
				chunks += len(p.symbols())
				if len(batch) >= maxFiles || chunks >= maxChunks {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			return flush()
		})
	}
	return g.Wait()
}

func (p parsed) symbols() []parse.Symbol {
	if p.file == nil {
		return nil
	}
	return p.file.Symbols
}

// maxRereads bounds how often a file that keeps changing while it is parsed is
// read again before it is stored with no blob id (so the next run redoes it).
const maxRereads = 3

// prepareCurrent prepares the content read for t, making sure the row stores
// what was hashed: the blob id is the one of the bytes parsed (the file may have
// changed since it was listed), and a working-tree file rewritten while it was
// parsed is read and parsed again.
func prepareCurrent(ctx context.Context, repo *source.Repo, t target, c source.Content, readErr error,
	resolver *importResolver, sopts source.Options) parsed {
	for attempt := 0; ; attempt++ {
		if readErr == nil && c.BlobSHA != "" {
			t.BlobSHA, t.Size = c.BlobSHA, c.Size
		}
		p := prepare(t, c.Data, readErr, resolver, sopts)
		if readErr != nil || repo.StillCurrent(t.Path, c) {
			if mt, ok := c.StableModTime(); ok && readErr == nil {
				p.mtime = mt.UnixNano()
			}
			return p
		}
		if attempt == maxRereads || ctx.Err() != nil {
			p.retry("the file changed while it was indexed; the next run indexes it again")
			return p
		}
		c, readErr = repo.ReadContent(ctx, t.File, t.revision)
	}
}

// retry stores p's row as one the next run does again: with no blob id, which
// matches no file, so neither a listing nor a save takes it for current (a
// blob missing at index time, issue 36, 3; a file rewritten while parsed).
func (p *parsed) retry(note string) {
	p.BlobSHA = ""
	p.notes = append(p.notes, note)
}

// prepare classifies, redacts and parses one file. It never fails: problems become
// a skip reason or a note on the file, so one bad file never stops a run.
func prepare(t target, data []byte, readErr error, resolver *importResolver, sopts source.Options) parsed {
	p := parsed{target: t, language: parse.Language(t.Path), status: "indexed"}
	if t.Skip != "" {
		p.status, p.skip = "skipped", t.Skip
		if t.Skip == source.SkipUnreadable {
			p.retry("it could not be read; the next run tries again")
		}
		return p
	}
	if readErr != nil {
		p.status, p.skip = "skipped", source.SkipUnreadable
		p.notes = append(p.notes, readErr.Error())
		if errors.Is(readErr, source.ErrNotRegular) {
			p.skip = source.SkipSpecial
		} else {
			p.retry("it could not be read; the next run tries again")
		}
		return p
	}
	// Classified again on the bytes read: the file may have grown past the cap
	// since it was listed.
	if reason := source.Classify(t.Path, data[:min(len(data), source.SniffLen)], int64(len(data)), sopts); reason != "" {
		p.status, p.skip = "skipped", reason
		return p
	}
	if p.language == "" {
		p.status, p.skip = "skipped", source.SkipBinary
		return p
	}
	p.hash = contentHash(data)
	clean, findings := redactSecrets(data)
	p.secrets = findings
	f, err := parse.Parse(t.Path, clean, parse.Options{})
	if err != nil {
		p.status, p.skip = "skipped", "parse-error"
		p.notes = append(p.notes, err.Error())
		return p
	}
	p.file = f
	if f.Language != "" {
		p.language = f.Language // sniffed from the content: a .h file may be C++
	}
	p.notes = append(p.notes, f.Notes...)
	if f.Partial {
		p.status = "partial"
	}
	if findings > 0 {
		p.notes = append(p.notes, fmt.Sprintf("%d secret(s) redacted", findings))
	}
	p.imports = make([]string, len(f.Imports))
	for i, imp := range f.Imports {
		p.imports[i] = resolver.resolve(f.Language, t.Path, imp.Path)
	}
	return p
}

// embedText is what a symbol's vector is computed from: its name (split into
// words by the embedder), where it lives, its doc comment and its code (a container's
// skeleton), truncated: the start of a definition says what it is.
func embedText(qualified, path, doc, body string) string {
	maxBody := 1500
	if doc != "" {
		maxBody = 800 // the doc says what it does; the code mostly adds noise words
	}
	return definitionText(qualified, path, doc, body[:min(len(body), maxBody)])
}

// definitionText is a definition whole, in embedText's layout: the text of
// a symbol's content hash (symbols.content_hash), which says whether the
// definition changed (memory anchors, the embed stage's check that a vector
// is still of its symbol). The hash of the truncated embedText missed every
// change past its first 800 or 1,500 characters (issue 36, 4); that one keys
// the vectors only (symbol_embeddings.content_hash), which depend on no more.
func definitionText(qualified, path, doc, body string) string {
	var b strings.Builder
	b.Grow(len(qualified) + len(path) + len(doc) + len(body) + 3)
	b.WriteString(qualified)
	b.WriteByte('\n')
	b.WriteString(path)
	b.WriteByte('\n')
	if doc != "" {
		b.WriteString(doc)
		b.WriteByte('\n')
	}
	b.WriteString(body)
	return b.String()
}

// errUnavailable reports whether err means the embedding backend is down (rows are
// then left pending) rather than a bug.
func errUnavailable(err error) bool { return errors.Is(err, embed.ErrUnavailable) }
