package index_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
)

// generatedRepo commits files Go files of funcs functions each, every function
// named after its file and place (name_F<file>x<func>).
func generatedRepo(t *testing.T, name string, files, funcs int) string {
	t.Helper()
	tree := map[string]string{}
	for f := range files {
		src := fmt.Sprintf("package p%d\n", f/100)
		for g := range funcs {
			src += fmt.Sprintf("\n// %[1]sF%[2]dx%[3]d returns its place.\nfunc %[1]sF%[2]dx%[3]d() int { return %[2]d*1000 + %[3]d }\n", name, f, g)
		}
		tree[fmt.Sprintf("p%d/f%d.go", f/100, f)] = src
	}
	return gitRepo(t, tree)
}

// TestVectorsLeftOutOfTheSharedIndex: a bulk load that expects a repository
// large beside others keeps its vectors out of the model's shared HNSW index
// (pg.DB.LeaveOutOfShared); they stay out only beside an index of the
// repository's own, and the dense channel finds them either way.
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
	found := func(repo int64, name string) {
		t.Helper()
		resp, err := search.New(db, repo, emb).Search(ctx, name, search.Options{Channels: []search.Channel{search.Dense}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range resp.Results {
			if r.Name == name {
				return
			}
		}
		t.Fatalf("the dense channel does not find %s in repository %d", name, repo)
	}

	index1(generatedRepo(t, "other", 700, 10)) // 7k chunks: a fifth of what comes
	// 2,600 files guess ~21k chunks, over the bound of an index of its own;
	// there are ~2.6k: the rows go back into the shared index at the end.
	guess := index1(generatedRepo(t, "guess", 2600, 1))
	if own, err := db.HasRepoVectorIndex(ctx, guess, model); err != nil || own {
		t.Fatalf("a repository of ~2.6k chunks got an index of its own (%v, err %v)", own, err)
	}
	if n := leftOut(guess); n != 0 {
		t.Fatalf("%d vectors of a repository without an index of its own are left out of the shared one", n)
	}
	found(guess, "guessF2011x0")

	big := index1(generatedRepo(t, "big", 2600, 10))
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
	found(big, "bigF1234x5")
}
