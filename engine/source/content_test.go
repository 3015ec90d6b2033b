package source

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// gitBlobID is git's sha1 blob id, computed independently of the package.
func gitBlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// TestReadContentWhileRewritten: a file rewritten in a loop (truncate, then
// write, so reads see torn versions) is read many times; every Content's id
// must be the id of its own bytes, which a listing hash paired with a later
// read is not.
func TestReadContentWhileRewritten(t *testing.T) {
	dir := realTempDir(t)
	abs := filepath.Join(dir, "hot.go")
	versions := make([][]byte, 4)
	for i := range versions {
		versions[i] = []byte(strings.Repeat(fmt.Sprintf("// version %d\n", i), 2000*(i+1)))
	}
	if err := os.WriteFile(abs, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}
	r := openT(t, dir)
	ctx := context.Background()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.WriteFile(abs, versions[i%len(versions)], 0o644)
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	mismatched, torn := 0, 0
	for range 300 {
		c, err := r.ReadContent(ctx, File{Path: "hot.go"}, WorkingTreeRev)
		if err != nil {
			t.Fatal(err)
		}
		if want := gitBlobID(c.Data); c.BlobSHA != want {
			t.Fatalf("BlobSHA %s, but the bytes returned hash to %s", c.BlobSHA, want)
		}
		if c.Size != int64(len(c.Data)) {
			t.Fatalf("Size %d, len(Data) %d", c.Size, len(c.Data))
		}
		if !isVersion(c.Data, versions) {
			torn++
		}
		if r.StillCurrent("hot.go", c) && !isVersion(c.Data, versions) {
			mismatched++ // torn within one mtime tick: possible, must be rare
		}
	}
	t.Logf("%d torn reads of 300, %d of them passed StillCurrent", torn, mismatched)
	if mismatched > 15 {
		t.Errorf("StillCurrent passed %d torn reads of 300", mismatched)
	}
}

// isVersion reports whether data is one of versions, or empty: os.WriteFile
// truncates first, so the file is really empty for a moment.
func isVersion(data []byte, versions [][]byte) bool {
	if len(data) == 0 {
		return true
	}
	for _, v := range versions {
		if bytes.Equal(data, v) {
			return true
		}
	}
	return false
}

// TestStillCurrent: an untouched file is current; one rewritten, one
// replaced by another file of the same size and mtime, and one removed are not.
func TestStillCurrent(t *testing.T) {
	dir := realTempDir(t)
	writeFiles(t, dir, map[string]string{"a.go": "package a\n", "b.go": "package b\n", "c.go": "package c\n"})
	r := openT(t, dir)
	ctx := context.Background()
	read := func(p string) Content {
		t.Helper()
		c, err := r.ReadContent(ctx, File{Path: p}, WorkingTreeRev)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b, c := read("a.go"), read("b.go"), read("c.go")
	if c.ModTime.IsZero() {
		t.Fatal("ModTime not set for a file on disk")
	}
	if !r.StillCurrent("a.go", a) {
		t.Error("untouched a.go is not current")
	}
	writeFiles(t, dir, map[string]string{"a.go": "package a // edited\n"})
	if r.StillCurrent("a.go", a) {
		t.Error("rewritten a.go is still current")
	}
	// An editor's atomic save: same size, same mtime, another file.
	tmp := filepath.Join(dir, "b.tmp")
	if err := os.WriteFile(tmp, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, time.Time{}, b.ModTime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "b.go")); err != nil {
		t.Fatal(err)
	}
	if r.StillCurrent("b.go", b) {
		t.Error("b.go replaced by rename is still current")
	}
	if err := os.Remove(filepath.Join(dir, "c.go")); err != nil {
		t.Fatal(err)
	}
	if r.StillCurrent("c.go", c) {
		t.Error("removed c.go is still current")
	}
}

// TestReadContentFromGit: content read at a commit carries the object id,
// also when it is found by path, and is always current.
func TestReadContentFromGit(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"}, true)
	r := openT(t, dir)
	ctx := context.Background()
	want := gitT(t, dir, "rev-parse", "HEAD:a.go")
	// Edited on disk: the commit's bytes come from git, by path.
	writeFiles(t, dir, map[string]string{"a.go": "package a // edited\n"})
	c, err := r.ReadContent(ctx, File{Path: "a.go"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Data) != "package a\n" || c.BlobSHA != want {
		t.Fatalf("ReadContent at HEAD = %q %s, want the committed bytes and %s", c.Data, c.BlobSHA, want)
	}
	if !r.StillCurrent("a.go", c) {
		t.Error("a git object is not current")
	}
}
