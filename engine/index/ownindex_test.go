package index_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
)

// generatedRepo commits files Go files of funcs functions each, every function
// named after its file and place (name_F<file>x<func>) and documented by
// about doc bytes.
func generatedRepo(t *testing.T, name string, files, funcs, doc int) string {
	t.Helper()
	tree := map[string]string{}
	for f := range files {
		src := fmt.Sprintf("package p%d\n", f/100)
		for g := range funcs {
			fn := fmt.Sprintf("%sF%dx%d", name, f, g)
			lines := strings.Repeat("// "+fn+" is documented at length, as some code is.\n", doc/(len(fn)+40))
			src += fmt.Sprintf("\n// %[1]s returns its place.\n%[2]sfunc %[1]s() int { return %[3]d*1000 + %[4]d }\n",
				fn, lines, f, g)
		}
		tree[fmt.Sprintf("p%d/f%d.go", f/100, f)] = src
	}
	return gitRepo(t, tree)
}

// TestVectorsLeftOutOfTheSharedIndex: a bulk load that expects a repository
// large beside others keeps its vectors out of the model's shared HNSW index
// (pg.DB.LeaveOutOfShared); they stay out only beside an index of the
// repository's own, where the dense channel reads them.
func TestVectorsLeftOutOfTheSharedIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes some 45k chunks")
	}
	db := pgtest.Open(t)
	ctx := context.Background()
	emb := hashing()
	model := pg.Model{Name: emb.Name(), Dims: emb.Dims()}
	ix := index.New(db, emb)
	index1 := func(repo string) int64 {
		t.Helper()
		sum, err := ix.Index(ctx, repo, index.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sum.RepositoryID
	}
	leftOut := func(repo int64) (n int) {
		t.Helper()
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbol_embeddings WHERE repository_id = $1 AND own_index`,
			repo).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The dense channel alone answers from the repository's vectors: none if
	// its query left out the rows kept out of the shared index.
	answers := func(repo int64, query string) {
		t.Helper()
		resp, err := search.New(db, repo, emb).Search(ctx, query, search.Options{Channels: []search.Channel{search.Dense}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) == 0 {
			t.Fatalf("the dense channel finds nothing for %q in repository %d", query, repo)
		}
	}

	other := index1(generatedRepo(t, "other", 700, 10, 0)) // 7k chunks: a fifth of what comes
	// A row in the shared index holds NULL, no bytes: a stored false made
	// every row 8 bytes longer (migration 0024).
	var flagged int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbol_embeddings WHERE repository_id = $1 AND own_index IS NOT NULL`,
		other).Scan(&flagged); err != nil || flagged != 0 {
		t.Fatalf("%d rows in the shared index hold an own_index value (err %v), want NULL in all", flagged, err)
	}
	// 11 MB of source guess ~21k chunks, over the bound of an index of its
	// own; there are ~5k: the rows go back into the shared index at the end.
	guess := index1(generatedRepo(t, "guess", 2600, 1, 4200))
	if own, err := db.HasRepoVectorIndex(ctx, guess, model); err != nil || own {
		t.Fatalf("a repository of ~5k chunks got an index of its own (%v, err %v)", own, err)
	}
	if n := leftOut(guess); n != 0 {
		t.Fatalf("%d vectors of a repository without an index of its own are left out of the shared one", n)
	}

	big := index1(generatedRepo(t, "big", 2600, 10, 450))
	if own, err := db.HasRepoVectorIndex(ctx, big, model); err != nil || !own {
		t.Fatalf("a repository of 28k chunks among 12k others has no index of its own (%v, err %v)", own, err)
	}
	var all int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbol_embeddings WHERE repository_id = $1`, big).Scan(&all); err != nil {
		t.Fatal(err)
	}
	if n := leftOut(big); n != all || all < pg.RepoVectorIndexMin {
		t.Fatalf("%d of the %d vectors of a repository with its own index are left out of the shared one, want all", n, all)
	}
	answers(big, "bigF1234x5 returns its place")
}
