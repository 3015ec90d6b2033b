package index_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestRewriteKeepsSymbolIDs: a file rewritten with an edited body and a
// reordered pair of same-named methods keeps the ids of its symbols, so the
// edges of other files into it are left alone, and the graph still equals a
// clean index of the new commit (candidate order follows the new lines).
func TestRewriteKeepsSymbolIDs(t *testing.T) {
	repo := withConfidenceFixture(t)
	// An untyped call in another file: its candidates, ordered by line, are in a.go.
	commitFiles(t, repo, map[string]string{"go/a/use.go": "package a\n\nfunc Use(m map[string]interface{}) {\n\tm[\"y\"].(interface{ Close() error }).Close()\n}\n"})
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	idOf := func(qname string) int64 {
		t.Helper()
		var id int64
		if err := db.Pool.QueryRow(ctx, `SELECT id FROM symbols WHERE qualified_name = $1 AND path = 'go/a/a.go'`, qname).Scan(&id); err != nil {
			t.Fatalf("%s: %v", qname, err)
		}
		return id
	}
	before := map[string]int64{"B.Close": idOf("B.Close"), "a.NewB": idOf("a.NewB"), "A.Close": idOf("A.Close")}
	// B before A now, and NewB's body edited.
	src := confidenceFixture["go/a/a.go"]
	ab := "type A struct{}\n\nfunc (A) Close() error { return nil }\n\ntype B struct{}\n\nfunc (B) Close() error { return nil }\n"
	ba := "type B struct{}\n\nfunc (B) Close() error { return nil }\n\ntype A struct{}\n\nfunc (A) Close() error { return nil }\n"
	edited := strings.Replace(strings.Replace(src, ab, ba, 1), "func NewB() *B { return &B{} }", "func NewB() *B { b := &B{}; return b }", 1)
	if edited == src || !strings.Contains(edited, ba) {
		t.Fatal("the fixture moved: update this test")
	}
	writeFile(t, filepath.Join(repo, "go/a/a.go"), edited)
	git(t, repo, "commit", "-q", "-am", "reorder")
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for q, id := range before {
		if got := idOf(q); got != id {
			t.Errorf("%s: id %d after the rewrite, was %d", q, got, id)
		}
	}
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("incremental index differs from a clean one:\n%s", diffLines(a, b))
	}
}
