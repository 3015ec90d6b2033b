package index_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// versionSource is file i's content at version n. Every version has the same
// length and names its function after the version, so the stored function
// name tells which bytes were parsed, and a read torn between two writes is
// still a version of its own.
func versionSource(i, n int) []byte {
	return fmt.Appendf(nil, "package p\n\n// F%02d is rewritten while it is indexed.\nfunc V%08d() {}\n", i, n)
}

func gitBlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// rewriter rewrites files in place, each write one pwrite of a new version (no
// truncation, so a reader never sees an empty file), until stopped.
type rewriter struct {
	dir    string
	files  int
	stop   chan struct{}
	done   sync.WaitGroup
	writes atomic.Int64
	last   []int // the version each file holds once stopped
}

func startRewriter(t *testing.T, dir string, files int) *rewriter {
	t.Helper()
	w := &rewriter{dir: dir, files: files, stop: make(chan struct{}), last: make([]int, files)}
	fhs := make([]*os.File, files)
	for i := range fhs {
		fh, err := os.OpenFile(w.path(i), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fhs[i] = fh
	}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		defer func() {
			for _, fh := range fhs {
				fh.Close()
			}
		}()
		for n := 1; ; n++ {
			for i, fh := range fhs {
				select {
				case <-w.stop:
					return
				default:
				}
				if _, err := fh.WriteAt(versionSource(i, n), 0); err != nil {
					t.Error(err)
					return
				}
				w.last[i] = n
				w.writes.Add(1)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	t.Cleanup(w.halt)
	return w
}

func (w *rewriter) path(i int) string { return filepath.Join(w.dir, fmt.Sprintf("f%02d.go", i)) }

func (w *rewriter) halt() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	w.done.Wait()
}

// TestFilesRewrittenWhileIndexed indexes a plain directory whose files another
// writer keeps rewriting (issue 11.2): every stored row holds the blob id of the
// very bytes its symbols came from (or none, to be redone), never the hash of one
// read beside the content of another; once the writer stops, the next run brings
// every file to its last version instead of finding "nothing changed".
func TestFilesRewrittenWhileIndexed(t *testing.T) {
	const files = 24
	db := pgtest.Open(t)
	ctx := context.Background()
	dir := mustReal(t, t.TempDir())
	for i := range files {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.go", i)), string(versionSource(i, 0)))
	}
	ix := index.New(db, hashing())
	w := startRewriter(t, dir, files)
	for w.writes.Load() < files { // under way before the listing
		time.Sleep(time.Millisecond)
	}
	if _, err := ix.Index(ctx, dir, index.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	w.halt()
	if w.writes.Load() < 3*files {
		t.Fatalf("only %d writes during the run: the test proves nothing", w.writes.Load())
	}
	rows := storedVersions(t, db, files)
	consistent := 0
	for i, r := range rows {
		switch {
		case r.blob == "":
			// Kept changing while parsed: stored with no blob, redone next run.
		case r.blob != gitBlobID(versionSource(i, r.version)):
			t.Errorf("f%02d.go: stored blob %s is not that of V%08d, whose symbols it holds", i, r.blob, r.version)
		default:
			consistent++
		}
	}
	t.Logf("%d writes during the run; %d of %d rows with a blob id, all of their own bytes", w.writes.Load(), consistent, files)

	if _, err := ix.Index(ctx, dir, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for i, r := range storedVersions(t, db, files) {
		if want := w.last[i]; r.version != want || r.blob != gitBlobID(versionSource(i, want)) {
			t.Errorf("f%02d.go after the writer stopped: stored V%08d (blob %q), want V%08d, its content on disk", i, r.version, r.blob, want)
		}
	}
}

type storedVersion struct {
	version int
	blob    string
}

// storedVersions reads, for each file fNN.go, its stored blob id and the version
// its one function is named after.
func storedVersions(t *testing.T, db *pg.DB, files int) []storedVersion {
	t.Helper()
	out := make([]storedVersion, files)
	for i := range out {
		var name string
		err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(f.blob_sha, ''), s.name
			FROM files f JOIN symbols s ON s.file_id = f.id AND s.repository_id = f.repository_id
			WHERE f.path = $1 AND s.kind = 'function'`, fmt.Sprintf("f%02d.go", i)).Scan(&out[i].blob, &name)
		if err != nil {
			t.Fatalf("f%02d.go: %v", i, err)
		}
		if _, err := fmt.Sscanf(name, "V%d", &out[i].version); err != nil {
			t.Fatalf("f%02d.go: function %q: %v", i, name, err)
		}
	}
	return out
}
