package index_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestIncrementalImplementsIsClean: an incremental run decides the Go
// implements edges only for the directories it changed and the interfaces
// that depend on them (implements_incr.go); after each of a series of commits
// that move those edges from elsewhere — an interface's method set grown in
// its own directory, the method added to the type from another file of its
// package, an interface embedded through an import changed in another
// directory, a new interface in a new directory and in a new file, that file
// deleted, the directory an import names deleted — the edges and every other row equal a clean index of the same commit, and
// the edges are the ones expected.
func TestIncrementalImplementsIsClean(t *testing.T) {
	repo := gitRepo(t, map[string]string{
		"go.mod": "module example.com/m\n",
		"api/api.go": "package api\n\ntype Base interface{ Close() error }\n\n" +
			"type Closer interface {\n\tClose() error\n\tName() string\n}\n\n" +
			"type Big interface {\n\tBase\n\tName() string\n}\n",
		"ext/ext.go": "package ext\n\nimport \"example.com/m/api\"\n\n" +
			"type Wrapped interface {\n\tapi.Base\n\tFlush()\n}\n",
		"impl/t.go": "package impl\n\ntype T struct{}\n\nfunc (T) Close() error { return nil }\n\nfunc (T) Name() string { return \"\" }\n",
		"impl/u.go": "package impl\n\ntype U struct{}\n\nfunc (U) Close() error { return nil }\n\nfunc (U) Flush() {}\n",
	})
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	checkImplements(t, db, "T->Big T->Closer U->Wrapped")
	steps := []struct {
		what   string
		files  map[string]string
		remove string
		want   string
	}{
		{"Closer needs Open", map[string]string{"api/api.go": "package api\n\ntype Base interface{ Close() error }\n\n" +
			"type Closer interface {\n\tClose() error\n\tName() string\n\tOpen()\n}\n\n" +
			"type Big interface {\n\tBase\n\tName() string\n}\n"}, "", "T->Big U->Wrapped"},
		{"T gains Open in another file", map[string]string{"impl/open.go": "package impl\n\nfunc (T) Open() {}\n"}, "",
			"T->Big T->Closer U->Wrapped"},
		{"Base, embedded by ext.Wrapped through its import, needs Reset", map[string]string{
			"api/api.go": "package api\n\ntype Base interface {\n\tClose() error\n\tReset()\n}\n\n" +
				"type Closer interface {\n\tClose() error\n\tName() string\n\tOpen()\n}\n\n" +
				"type Big interface {\n\tBase\n\tName() string\n}\n"}, "", "T->Closer"},
		{"a new interface in a new directory", map[string]string{
			"extra/more.go": "package extra\n\ntype OpenCloser interface {\n\tOpen()\n\tClose() error\n}\n"}, "",
			"T->Closer T->OpenCloser"},
		{"a new interface in a new file of api", map[string]string{
			"api/closers.go": "package api\n\ntype NameCloser interface {\n\tName() string\n\tClose() error\n}\n"}, "",
			"T->Closer T->NameCloser T->OpenCloser"},
		// The run deletes NameCloser: T's edge to it goes though T's directory
		// did not change.
		{"that file deleted", nil, "api/closers.go", "T->Closer T->OpenCloser"},
		// ext's import of api now points nowhere: every edge is decided again.
		{"api deleted", nil, "api/api.go", "T->OpenCloser"},
	}
	for _, st := range steps {
		if st.files != nil {
			commitFiles(t, repo, st.files)
		} else {
			git(t, repo, "rm", "-q", st.remove)
			git(t, repo, "commit", "-q", "-m", st.what)
		}
		sum, err := ix.Index(ctx, repo, index.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.FilesIndexed+sum.FilesDeleted != 1 {
			t.Fatalf("%s: %+v, want a run over one file", st.what, sum)
		}
		checkImplements(t, db, st.want)
		clean := pgtest.Open(t)
		if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{}); err != nil {
			t.Fatal(err)
		}
		if a, b := snapshot(t, db), snapshot(t, clean); a != b {
			t.Fatalf("%s: the incremental index differs from a clean one:\n%s", st.what, diffLines(a, b))
		}
	}
}

// checkImplements compares the implements edges of db's only repository with want.
func checkImplements(t *testing.T, db *pg.DB, want string) {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT s.name || '->' || t.name FROM edges e
		JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id
		WHERE e.kind = 'implements' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("implements: %s, want %s", g, want)
	}
}

// TestSameTypeNameInOneDirectoryIsClean: two files of one directory declare a
// type T with a method M of different signatures (build-tagged variants, or
// the single-file programs of a testdata directory). Which M counted was the
// last row read, in no set order, so two clean indexes of Go's tree differed
// by a thousand implements edges; now the last by path counts in every run:
// here a.go, written after b.go, must not win when an interface elsewhere
// changes and only the types with its methods are read again.
func TestSameTypeNameInOneDirectoryIsClean(t *testing.T) {
	const iface = "package q\n\ntype Namer interface {\n\tM() string\n\tN()\n}\n"
	repo := gitRepo(t, map[string]string{
		"go.mod":     "module example.com/m\n",
		"q/iface.go": iface,
		"p/b.go":     "package p\n\ntype T struct{}\n\nfunc (T) M() string { return \"\" }\n\nfunc (T) N() {}\n",
	})
	ctx := context.Background()
	db := pgtest.Open(t)
	ix := index.New(db, hashing())
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	checkImplements(t, db, "T->Namer")
	commitFiles(t, repo, map[string]string{"p/a.go": "package p\n\ntype T struct{}\n\nfunc (T) M() int { return 0 }\n\nfunc (T) N() {}\n"})
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	commitFiles(t, repo, map[string]string{"q/iface.go": iface + "\n// Namer names.\n"})
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	checkImplements(t, db, "T->Namer T->Namer")
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("the incremental index differs from a clean one:\n%s", diffLines(a, b))
	}
}
