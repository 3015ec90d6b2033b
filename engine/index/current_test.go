package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/source"
)

// A file that changes between listing and reading, or while it is parsed, is
// stored with the blob id of the bytes parsed, never with the listing's hash
// of other content (issue 11.2: the next run then said "nothing changed").
func TestStoredBlobIsOfTheParsedBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(file, []byte("package a\n\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("func One() {}\n")
	repo, err := source.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	files, err := repo.WorkingTree(ctx, source.Options{})
	if err != nil || len(files) != 1 {
		t.Fatalf("listing: %v %v", files, err)
	}
	listed := target{File: files[0], revision: source.WorkingTreeRev}
	resolver := newImportResolver([]string{"a.go"}, nil)
	blobOf := func() string {
		t.Helper()
		c, err := repo.ReadContent(ctx, listed.File, listed.revision)
		if err != nil {
			t.Fatal(err)
		}
		return c.BlobSHA
	}

	// Changed between listing and reading.
	write("func Two() {}\n")
	c, err := repo.ReadContent(ctx, listed.File, listed.revision)
	if err != nil {
		t.Fatal(err)
	}
	p := prepareCurrent(ctx, repo, listed, c, nil, resolver, source.Options{})
	if p.BlobSHA == listed.BlobSHA || p.BlobSHA != blobOf() || !hasSymbol(p, "Two") {
		t.Fatalf("changed after listing: stored blob %s (listed %s), symbols %v", p.BlobSHA, listed.BlobSHA, names(p))
	}

	// Changed after reading, while parsing: read again, and the row is of the new bytes.
	write("func Three() { println(\"longer now\") }\n")
	p = prepareCurrent(ctx, repo, listed, c, nil, resolver, source.Options{})
	if p.BlobSHA != blobOf() || !hasSymbol(p, "Three") {
		t.Fatalf("changed while parsed: stored blob %s, want %s; symbols %v", p.BlobSHA, blobOf(), names(p))
	}

	// Grown past the cap since listing: skipped as too large, not stored whole.
	write("func Four() {}\n" + strings.Repeat("// padding\n", 200))
	c, err = repo.ReadContent(ctx, listed.File, listed.revision)
	if err != nil {
		t.Fatal(err)
	}
	p = prepareCurrent(ctx, repo, listed, c, nil, resolver, source.Options{MaxFileBytes: 1000})
	if p.skip != source.SkipTooLarge {
		t.Fatalf("a file grown past the cap: skip %q, want %q", p.skip, source.SkipTooLarge)
	}
}

func hasSymbol(p parsed, name string) bool {
	for _, s := range p.symbols() {
		if s.Name == name {
			return true
		}
	}
	return false
}

func names(p parsed) []string {
	var out []string
	for _, s := range p.symbols() {
		out = append(out, s.Name)
	}
	return out
}
