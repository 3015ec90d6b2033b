package fresh_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/fresh"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fixture is an indexed copy of the fixture repository.
type fixture struct {
	db   *pg.DB
	root string
	id   int64
}

// indexed indexes a fresh copy of the fixture, its files dated an hour back
// first when old is set (so their mtimes are recorded: see
// source.Content.StableModTime).
func indexed(t *testing.T, old bool, opts index.Options) fixture {
	t.Helper()
	if old {
		return indexedAt(t, -time.Hour, opts)
	}
	return indexedAt(t, 0, opts)
}

// indexedAt is indexed with every file's mtime moved by offset first (0: as
// written), so a test does not depend on how long the machine takes between
// writing the files and indexing them.
func indexedAt(t *testing.T, offset time.Duration, opts index.Options) fixture {
	t.Helper()
	root := indextest.Repo(t)
	if offset != 0 {
		at := time.Now().Add(offset)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			return os.Chtimes(p, at, at)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	db := pgtest.Open(t)
	sum, err := index.New(db, embed.NewHashing(64)).Index(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{db: db, root: root, id: sum.RepositoryID}
}

func (f fixture) reindex(t *testing.T, opts index.Options) {
	t.Helper()
	if _, err := index.New(f.db, embed.NewHashing(64)).Index(context.Background(), f.root, opts); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, filepath.FromSlash(p)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) read(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func staleOf(t *testing.T, c *fresh.Checker, paths ...string) []string {
	t.Helper()
	got, err := c.Stale(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range got {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func TestStaleFollowsTheDisk(t *testing.T) {
	t.Parallel()
	f := indexed(t, false, index.Options{})
	c := fresh.New(f.db, f.id, f.root, fresh.Options{TTL: -1})
	paths := []string{"billing/refund.go", "cart/cart.go", "py/shop/models.py", "never/indexed.go"}
	if got := staleOf(t, c, paths...); len(got) != 0 {
		t.Fatalf("just indexed: stale %v, want none", got)
	}
	f.write(t, "billing/refund.go", f.read(t, "billing/refund.go")+"\n// edited\n")
	if err := os.Remove(filepath.Join(f.root, "cart", "cart.go")); err != nil {
		t.Fatal(err)
	}
	if got, want := staleOf(t, c, paths...), []string{"billing/refund.go", "cart/cart.go"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after an edit and a delete: stale %v, want %v", got, want)
	}
	f.write(t, "billing/new.go", "package billing\n")
	if got := staleOf(t, c, "billing/new.go"); len(got) != 1 {
		t.Fatalf("a file on disk that is not indexed: stale %v, want it", got)
	}
}

// Same size, other bytes, other mtime: the hash decides. Same bytes, other mtime
// (touch, a checkout): not stale.
func TestSameSizeIsHashed(t *testing.T) {
	t.Parallel()
	f := indexed(t, true, index.Options{})
	c := fresh.New(f.db, f.id, f.root, fresh.Options{TTL: -1})
	const p = "billing/refund.go"
	orig := f.read(t, p)
	later := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(f.root, p), later, later); err != nil {
		t.Fatal(err)
	}
	if got := staleOf(t, c, p); len(got) != 0 {
		t.Fatalf("touched, same bytes: stale %v, want none", got)
	}
	swapped := []byte(orig)
	i := slices.Index(swapped, 'R') // a letter of the code, same length
	swapped[i] = 'X'
	f.write(t, p, string(swapped))
	if got := staleOf(t, c, p); len(got) != 1 {
		t.Fatalf("same size, one byte changed: stale %v, want %s", got, p)
	}
}

// A file older than the racy window gets its mtime recorded, and a file with the
// stored size and mtime is not read at all: its content is not even looked at,
// as git trusts its index's stat data.
func TestStoredMtimeIsTrusted(t *testing.T) {
	t.Parallel()
	f := indexed(t, true, index.Options{})
	const p = "billing/refund.go"
	var mtime *int64
	if err := f.db.Pool.QueryRow(context.Background(), `SELECT mtime_ns FROM files WHERE repository_id = $1 AND path = $2`,
		f.id, p).Scan(&mtime); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(f.root, p)
	fi, err := os.Stat(abs)
	if err != nil {
		t.Fatal(err)
	}
	if mtime == nil || *mtime != fi.ModTime().UnixNano() {
		t.Fatalf("stored mtime %v, want the file's %d", mtime, fi.ModTime().UnixNano())
	}
	orig := f.read(t, p)
	swapped := []byte(orig)
	swapped[slices.Index(swapped, 'R')] = 'X'
	f.write(t, p, string(swapped))
	if err := os.Chtimes(abs, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	c := fresh.New(f.db, f.id, f.root, fresh.Options{TTL: -1})
	if got := staleOf(t, c, p); len(got) != 0 {
		t.Fatalf("same size and mtime: stale %v; want the stat trusted", got)
	}
}

// A file written just before it was indexed has no mtime recorded (a write in
// the same timestamp tick would not move it), so it is hashed every time.
func TestRacyFileHasNoMtime(t *testing.T) {
	t.Parallel()
	// Written "now" as the indexer sees it, however loaded the machine: a
	// minute ahead is never older than the racy window.
	f := indexedAt(t, time.Minute, index.Options{})
	var n int
	if err := f.db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM files WHERE repository_id = $1 AND mtime_ns IS NOT NULL`,
		f.id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d files written just before the run have an mtime recorded, want none", n)
	}
}

// The outcome of a hash is reused for the TTL while the file's stat and its row
// stay the same: shown here by a change the stat cannot see (same size, mtime
// put back), which the cache then misses until the TTL ends. Any edit that
// moves the mtime is seen at once.
func TestCacheKeepsHashesWhileStatAndRowStay(t *testing.T) {
	t.Parallel()
	f := indexed(t, true, index.Options{})
	base := time.Now()
	now := base
	c := fresh.New(f.db, f.id, f.root, fresh.Options{TTL: time.Minute, Now: func() time.Time { return now }})
	const p = "billing/refund.go"
	abs := filepath.Join(f.root, p)
	touched := base.Add(-30 * time.Minute) // not the stored mtime: the file is hashed
	if err := os.Chtimes(abs, touched, touched); err != nil {
		t.Fatal(err)
	}
	if got := staleOf(t, c, p); len(got) != 0 {
		t.Fatalf("touched: stale %v", got)
	}
	orig := f.read(t, p)
	swapped := []byte(orig)
	swapped[slices.Index(swapped, 'R')] = 'X'
	f.write(t, p, string(swapped))
	if err := os.Chtimes(abs, touched, touched); err != nil {
		t.Fatal(err)
	}
	if got := staleOf(t, c, p); len(got) != 0 {
		t.Fatalf("same stat within the TTL: stale %v, want the kept hash", got)
	}
	now = now.Add(time.Minute)
	if got := staleOf(t, c, p); len(got) != 1 {
		t.Fatalf("after the TTL: stale %v, want %s", got, p)
	}
	f.write(t, p, orig+"\n// edited\n")
	if got := staleOf(t, c, p); len(got) != 1 {
		t.Fatalf("edited: stale %v, want %s", got, p)
	}
	f.reindex(t, index.Options{WorkingTree: true})
	if got := staleOf(t, c, p); len(got) != 0 {
		t.Fatalf("re-indexed: stale %v", got)
	}
}

func TestMarkSymbols(t *testing.T) {
	t.Parallel()
	f := indexed(t, false, index.Options{})
	ctx := context.Background()
	syms, err := symbols.List(ctx, f.db, f.id, symbols.Filter{Path: "billing/"})
	if err != nil || len(syms) < 2 {
		t.Fatalf("symbols of billing/: %d, %v", len(syms), err)
	}
	f.write(t, "billing/refund.go", f.read(t, "billing/refund.go")+"\n// edited\n")
	ptrs := make([]*symbols.Symbol, len(syms))
	for i := range syms {
		ptrs[i] = &syms[i]
	}
	if err := fresh.New(f.db, f.id, f.root, fresh.Options{}).Mark(ctx, ptrs...); err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Stale != (s.Path == "billing/refund.go") {
			t.Errorf("%s %s: stale %v", s.Path, s.Name, s.Stale)
		}
	}
}

// Changed looks at what git reports and at what was indexed from the working
// tree: a file reverted to its committed content after a working-tree run
// leaves git status clean, yet the index holds the edit.
func TestChangedCoversRevertedWorkingTreeRows(t *testing.T) {
	t.Parallel()
	f := indexed(t, false, index.Options{})
	ctx := context.Background()
	c := fresh.New(f.db, f.id, f.root, fresh.Options{TTL: -1})
	const p = "billing/refund.go"
	orig := f.read(t, p)
	f.write(t, p, orig+"\n// edited\n")
	if got, err := c.Changed(ctx, []string{p}); err != nil || !reflect.DeepEqual(got, []string{p}) {
		t.Fatalf("edited, not indexed: changed %v (%v), want [%s]", got, err, p)
	}
	f.reindex(t, index.Options{WorkingTree: true})
	if got, err := c.Changed(ctx, []string{p}); err != nil || len(got) != 0 {
		t.Fatalf("edit indexed: changed %v (%v), want none", got, err)
	}
	f.write(t, p, orig)
	if got, err := c.Changed(ctx, nil); err != nil || !reflect.DeepEqual(got, []string{p}) {
		t.Fatalf("reverted (git status clean): changed %v (%v), want [%s]", got, err, p)
	}
}
