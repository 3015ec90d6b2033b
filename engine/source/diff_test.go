package source

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	ctx := context.Background()
	body := strings.Repeat("a line that makes the file long enough for rename detection\n", 20)
	dir := newRepo(t, map[string]string{
		"keep.go":    "package k\n",
		"mod.go":     "package m\n",
		"del.go":     "package d\n",
		"old/ren.go": body,
	}, true)
	base := gitT(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{"mod.go": "package m // changed\n", "add.go": "package a\n"})
	if err := os.Remove(filepath.Join(dir, "del.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "mv", "old/ren.go", "new/ren.go")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "change")
	r := openT(t, dir)

	got, err := r.Diff(ctx, base, "")
	if err != nil {
		t.Fatal(err)
	}
	blob := func(p string) string { return gitT(t, dir, "rev-parse", "HEAD:"+p) }
	want := []Change{
		{Kind: Added, Path: "add.go", BlobSHA: blob("add.go"), Mode: "100644"},
		{Kind: Deleted, Path: "del.go"},
		{Kind: Modified, Path: "mod.go", BlobSHA: blob("mod.go"), Mode: "100644"},
		{Kind: Renamed, Path: "new/ren.go", OldPath: "old/ren.go", BlobSHA: blob("new/ren.go"), Mode: "100644"},
	}
	if len(got) != len(want) {
		t.Fatalf("Diff = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	// Same commit: nothing.
	if got, err := r.Diff(ctx, r.Head, r.Head); err != nil || len(got) != 0 {
		t.Errorf("Diff(HEAD, HEAD) = %v, %v; want nothing", got, err)
	}

	// From nothing: every file added.
	all, err := r.Diff(ctx, "", base)
	if err != nil {
		t.Fatal(err)
	}
	var addedPaths []string
	for _, c := range all {
		if c.Kind != Added || c.BlobSHA == "" {
			t.Errorf("Diff from \"\": %+v, want Added with a blob", c)
		}
		addedPaths = append(addedPaths, c.Path)
	}
	if strings.Join(addedPaths, ",") != "del.go,keep.go,mod.go,old/ren.go" {
		t.Errorf("Diff from \"\" lists %v", addedPaths)
	}
}

func TestDiffUnknownCommit(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{"a.go": "package a\n"}, true)
	r := openT(t, dir)
	tests := []struct {
		name, from, to string
	}{
		{"rewritten history", "0123456789abcdef0123456789abcdef01234567", ""},
		{"unknown name", "no-such-branch", ""},
		{"unknown to", r.Head, "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef"},
		{"a blob, not a commit", gitT(t, dir, "rev-parse", "HEAD:a.go"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Diff(ctx, tt.from, tt.to)
			if !errors.Is(err, ErrUnknownCommit) {
				t.Fatalf("Diff(%q, %q) = %v, want ErrUnknownCommit", tt.from, tt.to, err)
			}
		})
	}
	if _, err := r.Diff(ctx, "--output=/tmp/x", ""); err == nil || errors.Is(err, ErrUnknownCommit) {
		t.Errorf("an option-like revision must be rejected as invalid, got %v", err)
	}
}

func TestRead(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{"a.go": "package a // v1\n", "dir/b.txt": "bee\n"}, true)
	v1 := gitT(t, dir, "rev-parse", "HEAD")
	writeFiles(t, dir, map[string]string{"a.go": "package a // v2\n"})
	gitT(t, dir, "commit", "-q", "-am", "v2")
	writeFiles(t, dir, map[string]string{"a.go": "package a // on disk\n"})
	r := openT(t, dir)

	committed, err := r.Files(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	work, err := r.WorkingTree(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cm, wm := byPath(committed), byPath(work)

	tests := []struct {
		name string
		f    File
		rev  string
		want string
	}{
		{"committed file at HEAD by blob id", cm["a.go"], r.Head, "package a // v2\n"},
		{"path at an older commit", File{Path: "a.go"}, v1, "package a // v1\n"},
		{"path at HEAD via empty rev", File{Path: "dir/b.txt"}, "", "bee\n"},
		{"working-tree file from disk", wm["a.go"], WorkingTreeRev, "package a // on disk\n"},
		{"path at HEAD", File{Path: "a.go"}, r.Head, "package a // v2\n"},
		{"working-tree file at a commit: its content, by id", wm["a.go"], v1, "package a // on disk\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Read(ctx, tt.f, tt.rev)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Read = %q, want %q", got, tt.want)
			}
		})
	}

	// Once the disk moves on, nothing has that id: the path at rev is read.
	writeFiles(t, dir, map[string]string{"a.go": "package a // edited again\n"})
	if got, err := r.Read(ctx, wm["a.go"], r.Head); err != nil || string(got) != "package a // v2\n" {
		t.Errorf("Read of a stale working-tree File at HEAD = %q, %v; want the committed content", got, err)
	}
	// A committed File is read from git when the checkout differs.
	if got, err := r.Read(ctx, cm["a.go"], r.Head); err != nil || string(got) != "package a // v2\n" {
		t.Errorf("Read of a committed File with an edited checkout = %q, %v", got, err)
	}

	errTests := []struct {
		name string
		f    File
		rev  string
		is   error
	}{
		{"missing path at a commit", File{Path: "nope.go"}, r.Head, fs.ErrNotExist},
		{"missing path on disk", File{Path: "nope.go"}, WorkingTreeRev, fs.ErrNotExist},
		{"escaping path", File{Path: "../etc/passwd"}, WorkingTreeRev, nil},
		{"a directory at a commit", File{Path: "dir"}, r.Head, nil},
		{"option-like rev", File{Path: "a.go"}, "--help", nil},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Read(ctx, tt.f, tt.rev)
			if err == nil {
				t.Fatalf("Read succeeded, want an error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Read error %v, want errors.Is %v", err, tt.is)
			}
		})
	}

	// The reader survives a cancelled read and a Close.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Read(cctx, File{Path: "a.go"}, r.Head); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Read: %v", err)
	}
	if got, err := r.Read(ctx, File{Path: "a.go"}, r.Head); err != nil || string(got) != "package a // v2\n" {
		t.Errorf("Read after a cancelled one = %q, %v", got, err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if got, err := r.Read(ctx, File{Path: "a.go"}, r.Head); err != nil || string(got) != "package a // v2\n" {
		t.Errorf("Read after Close = %q, %v", got, err)
	}

	// A standalone reader, with a path the line protocol cannot carry.
	writeFiles(t, dir, map[string]string{"odd\nname.txt": "odd\n"})
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "odd")
	br := r.NewBlobReader()
	defer br.Close()
	if got, err := br.Read(ctx, "HEAD:odd\nname.txt"); err != nil || string(got) != "odd\n" {
		t.Errorf("BlobReader.Read of a path with a newline = %q, %v", got, err)
	}
	if _, err := br.Read(ctx, "HEAD:dir"); err == nil {
		t.Errorf("reading a tree as a blob succeeded")
	}
	if got, err := br.Read(ctx, "HEAD:dir/b.txt"); err != nil || string(got) != "bee\n" {
		t.Errorf("Read after a tree = %q, %v", got, err)
	}
	br.Close()
	if _, err := br.Read(ctx, "HEAD:a.go"); err == nil {
		t.Errorf("Read after Close succeeded")
	}
}
