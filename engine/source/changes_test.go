package source

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// Changes lists every path git status reports: edits, deletions, both names of
// a staged rename, and each file of an untracked directory, not ignored ones.
func TestChanges(t *testing.T) {
	dir := newRepo(t, map[string]string{
		"a.go": "package a\n", "b.go": "package b\n", "old.go": "package old\n", "keep.go": "package keep\n",
		".gitignore": "*.log\n",
	}, true)
	r := openT(t, dir)
	ctx := context.Background()
	if got, err := r.Changes(ctx); err != nil || len(got) != 0 {
		t.Fatalf("clean: Changes = %v, %v; want none", got, err)
	}
	writeFiles(t, dir, map[string]string{"a.go": "package a // edited\n", "new/deep/c.go": "package c\n", "x.log": "noise\n"})
	if err := os.Remove(filepath.Join(dir, "b.go")); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "mv", "old.go", "renamed.go")
	got, err := r.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.go", "b.go", "new/deep/c.go", "old.go", "renamed.go"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Changes = %q, want %q", got, want)
	}
	if dirty, err := r.Dirty(ctx); err != nil || !dirty {
		t.Fatalf("Dirty = %v, %v; want true", dirty, err)
	}
}

// DiskBlobID hashes a file as WorkingTree does (and as git does).
func TestDiskBlobID(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"}, true)
	if err := os.Symlink("a.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	r := openT(t, dir)
	files, err := r.WorkingTree(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		id, err := DiskBlobID(context.Background(), dir, f.Path, f.BlobSHA)
		if err != nil || id != f.BlobSHA {
			t.Errorf("DiskBlobID(%s) = %s, %v; want %s", f.Path, id, err, f.BlobSHA)
		}
	}
	if want := gitT(t, dir, "hash-object", "a.go"); byPath(files)["a.go"].BlobSHA != want {
		t.Errorf("a.go: %s, git says %s", byPath(files)["a.go"].BlobSHA, want)
	}
	if _, err := DiskBlobID(context.Background(), dir, "../outside", ""); err == nil {
		t.Error("DiskBlobID of a path outside the root: no error")
	}
	if _, err := DiskBlobID(context.Background(), dir, "missing.go", ""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("DiskBlobID of a missing file: %v, want not-exist", err)
	}
}

// The mtime of a read proves the bytes only when the file was last written
// well before the read; a committed file read from disk has it too.
func TestStableModTime(t *testing.T) {
	dir := newRepo(t, map[string]string{"old.go": "package old\n", "new.go": "package new\n"}, true)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(filepath.Join(dir, "old.go"), past, past); err != nil {
		t.Fatal(err)
	}
	r := openT(t, dir)
	ctx := context.Background()
	for _, rev := range []string{WorkingTreeRev, ""} {
		files, err := r.WorkingTree(ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		byP := byPath(files)
		c, err := r.ReadContent(ctx, byP["old.go"], rev)
		if err != nil {
			t.Fatal(err)
		}
		if mt, ok := c.StableModTime(); !ok || !mt.Equal(past) {
			t.Errorf("rev %q: old.go StableModTime = %v, %v; want %v", rev, mt, ok, past)
		}
		c, err = r.ReadContent(ctx, byP["new.go"], rev)
		if err != nil {
			t.Fatal(err)
		}
		if mt, ok := c.StableModTime(); ok {
			t.Errorf("rev %q: new.go, written just now: StableModTime = %v, true; want none", rev, mt)
		}
	}
}
