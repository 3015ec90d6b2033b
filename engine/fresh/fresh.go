// Package fresh tells whether the files behind indexed results still match the
// disk. A result is stale when its file was edited (or deleted) since it was
// indexed: its line ranges and content may no longer be what the file says.
//
// The check is cheap: one query for the stored rows of a batch of paths, then a
// stat of each file. A file with the stored size and mtime is unchanged; one with
// another size has changed; only a file of the same size whose mtime differs (or
// was not recorded, see migrations/0007_file_mtime.sql) is hashed and compared
// with the stored blob id. The outcome of a hash is kept for a short while, for as
// long as the file's stat and its row stay as they were: the results of one
// query, and the queries typed one after another, touch the same few files.
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

// DefaultTTL is how long the outcome of a hash is reused by default: long
// enough for the results of one query and the next keystroke's. An edit shows
// at once regardless, since it changes the file's stat.
const DefaultTTL = 2 * time.Second

// Options tune a Checker.
type Options struct {
	// TTL is how long the outcome of hashing a file is reused while its stat and
	// its stored row stay the same; 0 = DefaultTTL, negative = never.
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

// verdict is a comparison by hash, kept for the row and the stat it was made
// against.
type verdict struct {
	row   stored
	disk  disk
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
// one query and a stat per path, and a hash of the files whose size is as
// stored but whose mtime is not (unless hashed recently with the same stat); a
// file that cannot be examined (permissions) counts as stale, since it cannot
// be shown unchanged.
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

// judge answers for one path. The file is always looked at (a stat); what is
// kept is the comparison behind a hash, reused while the row and the stat both
// stay the same.
func (c *Checker) judge(ctx context.Context, p string, r stored) bool {
	native := filepath.FromSlash(p)
	if !filepath.IsLocal(native) {
		return true
	}
	fi, err := os.Lstat(filepath.Join(c.root, native))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r.found // deleted since indexed; without a row, rightly absent
	case err != nil:
		return true // cannot be shown unchanged
	case !r.found:
		return true // on disk, not in the index
	}
	d := disk{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	if stale, decided := compareStat(r, d); decided {
		return stale
	}
	now := c.now()
	if c.ttl > 0 {
		c.mu.Lock()
		v, ok := c.cache[p]
		c.mu.Unlock()
		if ok && v.row == r && v.disk == d && now.Sub(v.at) < c.ttl && !now.Before(v.at) {
			return v.stale
		}
	}
	id, err := source.DiskBlobID(ctx, c.root, p, r.blob)
	stale := err != nil || id != r.blob
	// A file written within the racy window may be written again without its
	// stat changing: its answer is not kept.
	if c.ttl > 0 && fi.ModTime().Before(now.Add(-source.RacyWindow)) {
		c.mu.Lock()
		if len(c.cache) >= maxCached {
			clear(c.cache) // answers are short-lived anyway
		}
		c.cache[p] = verdict{row: r, disk: d, stale: stale, at: now}
		c.mu.Unlock()
	}
	return stale
}

// disk is the stat of a file, as far as the comparison goes.
type disk struct {
	size  int64
	mtime int64
	mode  fs.FileMode
}

// compareStat decides from the stat alone when it can: another type or size
// is a change, the stored size and mtime prove none. Otherwise the content
// has to be hashed; a row that never identified its content (a file skipped
// before it was read, as too large, or one that changed while it was read,
// which the next run indexes again) has nothing to hash against: the first
// is compared by size, the second is stale until then.
func compareStat(r stored, d disk) (stale, decided bool) {
	// A symbolic link is compared like a file: its size and id are those of
	// its target's name, as the index stores them.
	switch {
	case d.mode.IsDir():
		return r.skip != source.SkipSubmodule, true // a nested repository stays one
	case d.mode&fs.ModeSymlink == 0 && !d.mode.IsRegular():
		return r.skip != source.SkipSpecial, true
	case d.size != r.size:
		return true, true
	case r.mtimeKnown && d.mode.IsRegular() && d.mtime == r.mtime:
		return false, true
	case r.blob == "":
		return r.status != "skipped", true
	}
	return false, false
}

// maxCached bounds the cache; a long-lived server's searches touch many files.
const maxCached = 4096
