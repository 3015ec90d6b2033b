// Package fresh tells whether the files behind indexed results still match the
// disk. A result is stale when its file was edited (or deleted) since it was
// indexed: its line ranges and content may no longer be what the file says.
//
// The check is cheap: one query for the stored rows of a batch of paths, then a
// stat of each file. A file with the stored size and mtime is unchanged; one with
// another size has changed; only a file of the same size whose mtime differs (or
// was not recorded, see migrations/0007_file_mtime.sql) is hashed and compared
// with the stored blob id. Answers are kept for a short while, since the results
// of one query, and the queries typed one after another, touch the same few files.
package fresh

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/source"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// DefaultTTL is how long an answer is reused by default: long enough for the
// results of one query and the next keystroke's, short enough that an edit shows
// at once to someone who saves and then searches.
const DefaultTTL = 2 * time.Second

// Options tune a Checker.
type Options struct {
	// TTL is how long the answer for a path is reused while its stored row stays
	// the same; 0 = DefaultTTL, negative = never (every call looks at the disk).
	TTL time.Duration
	// Now is the clock of the cache; nil = time.Now.
	Now func() time.Time
}

// Checker answers for one repository. It is safe for concurrent use.
type Checker struct {
	db     *pg.DB
	repoID int64
	root   string
	ttl    time.Duration
	now    func() time.Time

	mu    sync.Mutex
	cache map[string]verdict
}

// stored is what the files table says about a path; found is false when the
// path has no row. It is comparable: a cached verdict holds for the row it was
// made against, so a re-index is seen at once.
type stored struct {
	found       bool
	blob        string
	size        int64
	mtime       int64
	mtimeKnown  bool
	status      string
	skip        string
	workingTree bool // indexed from the working tree (revision working-tree)
}

type verdict struct {
	row   stored
	stale bool
	at    time.Time
}

// New returns the checker of the repository repoID, whose files are under root.
func New(db *pg.DB, repoID int64, root string, o Options) *Checker {
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Checker{db: db, repoID: repoID, root: root, ttl: o.TTL, now: o.Now, cache: map[string]verdict{}}
}

// Stale reports which of paths (slash-separated, relative to the root) are
// stale: the file on disk differs from its stored row, or is gone. A path with
// no stored row is stale when a file exists there (it is not indexed). It costs
// one query and a stat per path not answered recently; a file that cannot be
// examined (permissions) counts as stale, since it cannot be shown unchanged.
func (c *Checker) Stale(ctx context.Context, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	paths = slices.Compact(slices.Sorted(slices.Values(paths)))
	if len(paths) == 0 {
		return out, nil
	}
	rows, err := c.rows(ctx, paths, false)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if c.judge(ctx, p, rows[p]) {
			out[p] = true
		}
	}
	return out, nil
}

// Mark sets Stale on each symbol whose file is stale (and clears it on the
// others), with one Stale call for all of them.
func (c *Checker) Mark(ctx context.Context, syms ...*symbols.Symbol) error {
	paths := make([]string, 0, len(syms))
	for _, s := range syms {
		paths = append(paths, s.Path)
	}
	stale, err := c.Stale(ctx, paths)
	if err != nil {
		return err
	}
	for _, s := range syms {
		s.Stale = stale[s.Path]
	}
	return nil
}

// Changed returns, sorted, the stale paths among changed (what git status
// reports against HEAD: source.Repo.Changes) and the files indexed from the
// working tree: together, every path where the disk can differ from an index
// built at HEAD, so the rest of the repository need not be looked at. It costs
// one query and a stat per candidate.
func (c *Checker) Changed(ctx context.Context, changed []string) ([]string, error) {
	rows, err := c.rows(ctx, changed, true)
	if err != nil {
		return nil, err
	}
	candidates := slices.Clone(changed)
	for p, r := range rows {
		if r.workingTree {
			candidates = append(candidates, p)
		}
	}
	candidates = slices.Compact(slices.Sorted(slices.Values(candidates)))
	var out []string
	for _, p := range candidates {
		if c.judge(ctx, p, rows[p]) {
			out = append(out, p)
		}
	}
	return out, nil
}

// rows reads the stored rows of paths in one query, with every working-tree
// row too when workingTree is set.
func (c *Checker) rows(ctx context.Context, paths []string, workingTree bool) (map[string]stored, error) {
	rs, err := c.db.Pool.Query(ctx, `SELECT path, coalesce(blob_sha, ''), size_bytes, mtime_ns, status,
			coalesce(skip_reason, ''), revision = 'working-tree'
		FROM files WHERE repository_id = $1 AND (path = ANY ($2) OR ($3 AND revision = 'working-tree'))`,
		c.repoID, paths, workingTree)
	if err != nil {
		return nil, fmt.Errorf("read indexed files for freshness: %w", err)
	}
	out := make(map[string]stored, len(paths))
	var p string
	var r stored
	var mtime *int64
	_, err = pgx.ForEachRow(rs, []any{&p, &r.blob, &r.size, &mtime, &r.status, &r.skip, &r.workingTree}, func() error {
		r.found, r.mtime, r.mtimeKnown = true, 0, mtime != nil
		if mtime != nil {
			r.mtime = *mtime
		}
		out[p] = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read indexed files for freshness: %w", err)
	}
	return out, nil
}

// judge answers for one path, from the cache when a recent verdict was made
// against the same row.
func (c *Checker) judge(ctx context.Context, p string, r stored) bool {
	now := c.now()
	if c.ttl > 0 {
		c.mu.Lock()
		v, ok := c.cache[p]
		c.mu.Unlock()
		if ok && v.row == r && now.Sub(v.at) < c.ttl && !now.Before(v.at) {
			return v.stale
		}
	}
	stale := c.differs(ctx, p, r)
	if c.ttl > 0 {
		c.mu.Lock()
		if len(c.cache) > maxCached {
			clear(c.cache) // answers are short-lived anyway
		}
		c.cache[p] = verdict{row: r, stale: stale, at: now}
		c.mu.Unlock()
	}
	return stale
}

// maxCached bounds the cache; a long-lived server's searches touch many files.
const maxCached = 4096

// differs compares the file at p with its stored row r.
func (c *Checker) differs(ctx context.Context, p string, r stored) bool {
	native := filepath.FromSlash(p)
	if !filepath.IsLocal(native) {
		return true
	}
	fi, err := os.Lstat(filepath.Join(c.root, native))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r.found // deleted since indexed; without a row, rightly absent
	case err != nil:
		return true
	case !r.found:
		return true // on disk, not in the index
	}
	// A symbolic link is compared like a file: its size and id are those of
	// its target's name, as the index stores them.
	switch mode := fi.Mode(); {
	case mode.IsDir():
		return r.skip != source.SkipSubmodule // a nested repository stays one
	case mode&fs.ModeSymlink == 0 && !mode.IsRegular():
		return r.skip != source.SkipSpecial
	}
	if fi.Size() != r.size {
		return true
	}
	if r.mtimeKnown && fi.Mode().IsRegular() && fi.ModTime().UnixNano() == r.mtime {
		return false
	}
	if r.blob == "" {
		// Never identified: a file skipped before it was read (too large) is
		// compared by size; an indexed one that changed while it was read is
		// indexed again by the next run, so it is stale until then.
		return r.status != "skipped"
	}
	id, err := source.DiskBlobID(ctx, c.root, p, r.blob)
	return err != nil || id != r.blob
}
