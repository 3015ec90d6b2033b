// Package indextest builds indexed fixture repositories for tests of the packages
// that read the index (search, graph, eval, the TUI).
package indextest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// FixtureDir is the absolute path of testdata/fixture.
func FixtureDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "fixture")
}

// Repo copies testdata/fixture into <tmp>/shop as a git repository with one commit
// whose identity and dates are fixed, so its revision is the same on every run. It
// returns the root with symlinks resolved, as the index registers it.
func Repo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shop")
	if err := os.CopyFS(dir, os.DirFS(FixtureDir())); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "fixture")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// Git runs git in dir with a fixed identity and dates and returns its trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=spelunk", "-c", "user.email=spelunk@example.com",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2025-06-01T10:00:00Z", "GIT_COMMITTER_DATE=2025-06-01T10:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Embedder is the embedder fixture tests use: the deterministic hashing embedder,
// so results do not depend on the GloVe data being installed.
func Embedder() *embed.Hashing { return embed.NewHashing(128) }

// Indexed is an indexed fixture.
type Indexed struct {
	DB     *pg.DB
	Root   string
	RepoID int64
	Emb    index.Embedder
}

// Fixture indexes a fresh copy of the fixture into a fresh database.
func Fixture(t testing.TB) Indexed {
	t.Helper()
	return FixtureWith(t, Embedder())
}

// FixtureWith indexes the fixture with emb.
func FixtureWith(t testing.TB, emb index.Embedder) Indexed {
	t.Helper()
	return fixture(t, emb, index.Options{})
}

// FixtureOrdered is Fixture indexed by one parse worker: symbol ids, which break
// ties between equal scores, are then the same on every run, as goldens need.
func FixtureOrdered(t testing.TB) Indexed {
	t.Helper()
	return fixture(t, Embedder(), index.Options{Workers: 1})
}

func fixture(t testing.TB, emb index.Embedder, opts index.Options) Indexed {
	t.Helper()
	db := pgtest.Open(t)
	root := Repo(t)
	sum, err := index.New(db, emb).Index(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("index fixture: %v", err)
	}
	return Indexed{DB: db, Root: root, RepoID: sum.RepositoryID, Emb: emb}
}
