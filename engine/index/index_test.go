package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) {
	if os.Getenv("SPELUNK_CRASH_CHILD") == "1" {
		crashChild()
		return
	}
	if os.Getenv("SPELUNK_LOCK_CHILD") == "1" {
		lockChild()
		return
	}
	pgtest.Main(m)
}

func fixtureRepo(t testing.TB) string { return indextest.Repo(t) }

func git(t testing.TB, dir string, args ...string) string { return indextest.Git(t, dir, args...) }

func hashing() *embed.Hashing { return embed.NewHashing(64) }

func TestIndexFixture(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ctx := context.Background()
	ix := index.New(db, hashing())

	sum, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed < 25 || sum.Symbols < 100 || sum.Edges < 100 || sum.Embedded == 0 {
		t.Fatalf("summary %+v: want a real index of the fixture", sum)
	}
	if sum.Embedded != sum.Symbols || sum.PendingEmbedding != 0 {
		t.Fatalf("embedded %d of %d symbols", sum.Embedded, sum.Symbols)
	}
	head := git(t, repo, "rev-parse", "HEAD")
	if sum.Revision != head {
		t.Fatalf("revision %s, want HEAD %s", sum.Revision, head)
	}

	// Skipped files carry their reasons.
	reasons := map[string]string{}
	rows, _ := db.Pool.Query(ctx, `SELECT path, coalesce(skip_reason,''), status, secrets_redacted, notes FROM files`)
	for rows.Next() {
		var p, reason, status string
		var secrets int
		var notes []string
		if err := rows.Scan(&p, &reason, &status, &secrets, &notes); err != nil {
			t.Fatal(err)
		}
		reasons[p] = status + ":" + reason
		if p == "config/settings.py" && secrets < 2 {
			t.Errorf("settings.py: %d secrets redacted, want >= 2", secrets)
		}
		if p == "py/shop/legacy/latin1_report.py" && !strings.Contains(strings.Join(notes, " "), "UTF-8") {
			t.Errorf("latin1_report.py notes %v: want the invalid UTF-8 noted", notes)
		}
	}
	for p, want := range map[string]string{
		"assets/logo.png":   "skipped:binary",
		"web/vendor.min.js": "skipped:minified",
		"py/broken.py":      "partial:",
		"js/broken.js":      "partial:",
		"billing/refund.go": "indexed:",
	} {
		if reasons[p] != want {
			t.Errorf("%s: got %q, want %q", p, reasons[p], want)
		}
	}

	// No secret reaches the database.
	var leaks int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE content LIKE '%AKIA%' OR content LIKE '%BEGIN RSA PRIVATE%' OR content LIKE '%hunter2%'`).Scan(&leaks); err != nil {
		t.Fatal(err)
	}
	if leaks != 0 {
		t.Errorf("%d symbols still hold a fake secret", leaks)
	}

	// Resolved calls: same file, same package, imported package.
	for _, e := range []struct{ from, to, toPath string }{
		{"IssueRefund", "IsEligibleForRefund", "billing/refund.go"},
		{"IssueRefund", "Total", "billing/invoice.go"},
		{"IssueRefund", "Do", "internal/retry/backoff.go"},
	} {
		var n int
		err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges e
			JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id
			WHERE e.kind = 'calls' AND s.name = $1 AND t.name = $2 AND t.path = $3`, e.from, e.to, e.toPath).Scan(&n)
		if err != nil || n == 0 {
			t.Errorf("no resolved call %s -> %s (%s): %v", e.from, e.to, e.toPath, err)
		}
	}
	// Go types implement interfaces by method set.
	for _, typ := range []string{"PercentOff", "BuyXGetYFree"} {
		var n int
		err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges e JOIN symbols s ON s.id = e.source_id
			JOIN symbols t ON t.id = e.target_id
			WHERE e.kind = 'implements' AND s.name = $1 AND t.name = 'Discount'`, typ).Scan(&n)
		if err != nil || n != 1 {
			t.Errorf("%s implements cart.Discount: %d edges, %v", typ, n, err)
		}
	}
	var unresolvedFmt int
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges WHERE target_qualifier = 'fmt' AND target_id IS NOT NULL`).Scan(&unresolvedFmt)
	if unresolvedFmt != 0 {
		t.Errorf("%d calls into fmt resolved to repository symbols", unresolvedFmt)
	}

	// A re-run of the same commit changes nothing.
	before := snapshot(t, db)
	again, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.FilesIndexed != 0 || again.FilesDeleted != 0 || again.Embedded != 0 || again.FilesUnchanged != sum.FilesIndexed+sum.FilesSkipped {
		t.Fatalf("re-run was not a no-op: %+v", again)
	}
	if after := snapshot(t, db); after != before {
		t.Fatalf("re-run changed rows:\n%s\nvs\n%s", before, after)
	}
}

func TestIncremental(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ctx := context.Background()
	ix := index.New(db, hashing())
	if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	var embeddingsBefore int
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbol_embeddings`).Scan(&embeddingsBefore)

	// modify, add, delete, rename
	appendFile(t, filepath.Join(repo, "cart/discount.go"), "\n// SeasonalMarkdown lowers prices in the off season.\nfunc SeasonalMarkdown(cents int64) int64 { return cents * 9 / 10 }\n")
	writeFile(t, filepath.Join(repo, "billing/credit.go"), "package billing\n\n// StoreCredit is money kept for the next order.\nfunc StoreCredit(inv *Invoice) int64 { return inv.Total() / 10 }\n")
	git(t, repo, "rm", "-q", "js/lib/money.js")
	git(t, repo, "mv", "internal/session/token.go", "internal/session/tokens.go")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "change")

	sum, err := ix.Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesIndexed != 3 || sum.FilesDeleted != 2 {
		t.Fatalf("summary %+v: want 3 indexed (modified, added, renamed) and 2 deleted", sum)
	}
	var n int
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE path IN ('js/lib/money.js', 'internal/session/token.go')`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d symbols of deleted files remain", n)
	}
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges e WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = e.file_id)`).Scan(&n)
	if n != 0 {
		t.Fatalf("%d edges of deleted files remain", n)
	}
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM edges e JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id
		WHERE s.name = 'StoreCredit' AND t.name = 'Total'`).Scan(&n)
	if n != 1 {
		t.Fatalf("the new function's call is not resolved (%d)", n)
	}
	// Unchanged chunks kept their vectors: only the changed ones were embedded.
	if sum.Embedded == 0 || sum.Embedded > 40 {
		t.Fatalf("embedded %d symbols for a 3-file change", sum.Embedded)
	}
	var sessionSyms int
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE path = 'internal/session/tokens.go'`).Scan(&sessionSyms)
	if sessionSyms == 0 {
		t.Fatal("renamed file not indexed under its new path")
	}

	// The same rows as a clean index of the new commit.
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("incremental index differs from a clean one:\n%s", diffLines(a, b))
	}
}

func TestWorkingTree(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ctx := context.Background()
	ix := index.New(db, hashing())
	appendFile(t, filepath.Join(repo, "cart/cart.go"), "\n// Abandon empties a cart the customer walked away from.\nfunc (c *Cart) Abandon() { c.Items = nil }\n")
	writeFile(t, filepath.Join(repo, "cart/wishlist.go"), "package cart\n\n// Wishlist keeps items for later.\ntype Wishlist struct{ Items []string }\n")
	sum, err := ix.Index(ctx, repo, index.Options{WorkingTree: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Revision != "working-tree" {
		t.Fatalf("revision %q", sum.Revision)
	}
	revs := map[string]string{}
	rows, _ := db.Pool.Query(ctx, `SELECT path, revision FROM files WHERE path IN ('cart/cart.go', 'cart/wishlist.go', 'cart/discount.go')`)
	for rows.Next() {
		var p, r string
		_ = rows.Scan(&p, &r)
		revs[p] = r
	}
	head := git(t, repo, "rev-parse", "HEAD")
	if revs["cart/cart.go"] != "working-tree" || revs["cart/wishlist.go"] != "working-tree" || revs["cart/discount.go"] != head {
		t.Fatalf("revisions %v: changed files are working-tree, the rest HEAD", revs)
	}
	var rev string
	if err := db.Pool.QueryRow(ctx, `SELECT f.revision FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = 'Abandon'`).Scan(&rev); err != nil || rev != "working-tree" {
		t.Fatalf("Abandon: revision %q, %v", rev, err)
	}
}

// downEmbedder fails like a backend that cannot be reached.
type downEmbedder struct{ *embed.Hashing }

func (downEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("connect: %w", embed.ErrUnavailable)
}

func TestEmbedderDownLeavesSymbolsPending(t *testing.T) {
	db := pgtest.Open(t)
	repo := fixtureRepo(t)
	ctx := context.Background()
	sum, err := index.New(db, downEmbedder{hashing()}).Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatalf("an embedder outage must not fail indexing: %v", err)
	}
	if sum.Symbols == 0 || sum.PendingEmbedding != sum.Symbols || len(sum.Notes) == 0 {
		t.Fatalf("summary %+v: want every symbol indexed and pending, with a note", sum)
	}
	next, err := index.New(db, hashing()).Index(ctx, repo, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if next.FilesIndexed != 0 || next.Embedded != sum.Symbols || next.PendingEmbedding != 0 {
		t.Fatalf("next run %+v: want the pending symbols embedded without re-indexing files", next)
	}
}

func TestBadInput(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	ix := index.New(db, hashing())

	t.Run("missing dir", func(t *testing.T) {
		_, err := ix.Index(ctx, filepath.Join(t.TempDir(), "nope"), index.Options{})
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("no commits", func(t *testing.T) {
		dir := t.TempDir()
		git(t, dir, "init", "-q")
		writeFile(t, filepath.Join(dir, "a.go"), "package a\n\nfunc A() {}\n")
		_, err := ix.Index(ctx, dir, index.Options{})
		if err == nil || !strings.Contains(err.Error(), "no commits") || !strings.Contains(err.Error(), "--working-tree") {
			t.Fatalf("got %v", err)
		}
		sum, err := ix.Index(ctx, dir, index.Options{WorkingTree: true})
		if err != nil || sum.Symbols < 2 {
			t.Fatalf("working tree of an empty repo: %+v %v", sum, err)
		}
	})
	t.Run("plain directory", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "m.py"), "def hello():\n    return 1\n")
		sum, err := ix.Index(ctx, dir, index.Options{})
		if err != nil || sum.Revision != "working-tree" || sum.Symbols < 2 {
			t.Fatalf("plain dir: %+v %v", sum, err)
		}
	})
	t.Run("detached head and shallow clone", func(t *testing.T) {
		repo := fixtureRepo(t)
		git(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
		clone := filepath.Join(t.TempDir(), "shallow")
		git(t, repo, "clone", "-q", "--depth", "1", "file://"+repo, clone)
		git(t, clone, "checkout", "-q", "--detach", "HEAD")
		sum, err := ix.Index(ctx, clone, index.Options{})
		if err != nil || sum.FilesIndexed < 25 {
			t.Fatalf("shallow detached clone: %+v %v", sum, err)
		}
	})
	t.Run("huge file", func(t *testing.T) {
		repo := fixtureRepo(t)
		big := filepath.Join(repo, "huge.txt")
		f, err := os.Create(big)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(50 << 20); err != nil {
			t.Fatal(err)
		}
		f.Close()
		git(t, repo, "add", "huge.txt")
		git(t, repo, "commit", "-q", "-m", "huge")
		if _, err := ix.Index(ctx, repo, index.Options{}); err != nil {
			t.Fatal(err)
		}
		var reason string
		if err := db.Pool.QueryRow(ctx, `SELECT skip_reason FROM files WHERE path = 'huge.txt' AND repository_id =
			(SELECT id FROM repositories WHERE root = $1)`, mustReal(t, repo)).Scan(&reason); err != nil || reason != "too-large" {
			t.Fatalf("huge.txt: %q %v", reason, err)
		}
	})
}

// TestCrashResume kills an indexing process with SIGKILL mid-run, re-runs, and
// expects exactly the rows of a clean run.
func TestCrashResume(t *testing.T) {
	url := pgtest.URL(t)
	repo := fixtureRepo(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SPELUNK_CRASH_CHILD=1", "SPELUNK_CRASH_URL="+url, "SPELUNK_CRASH_REPO="+repo)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child should die by SIGKILL mid-run, got %v\n%s", err, out)
	}
	ctx := context.Background()
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	var files int
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM files`).Scan(&files)
	if files == 0 {
		t.Fatalf("the child wrote nothing before dying; the test proves nothing\n%s", out)
	}
	if _, err := index.New(db, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	clean := pgtest.Open(t)
	if _, err := index.New(clean, hashing()).Index(ctx, repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if a, b := snapshot(t, db), snapshot(t, clean); a != b {
		t.Fatalf("resumed index differs from a clean one:\n%s", diffLines(a, b))
	}
}

func crashChild() {
	ctx := context.Background()
	db, err := pg.Open(ctx, pg.Options{URL: os.Getenv("SPELUNK_CRASH_URL")})
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(3)
	}
	opts := index.Options{Workers: 1, ProgressEvery: time.Nanosecond}
	index.SetBatchFiles(&opts, 3)
	opts.Progress = func(p index.Progress) {
		if p.FilesDone >= 7 {
			fmt.Println("child: killing myself after", p.FilesDone, "files")
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Second)
		}
	}
	_, err = index.New(db, embed.NewHashing(64)).Index(ctx, os.Getenv("SPELUNK_CRASH_REPO"), opts)
	fmt.Println("child: finished without being killed:", err)
	os.Exit(4)
}

// snapshot renders the repository's rows independent of ids and timestamps.
func snapshot(t testing.TB, db *pg.DB) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	q := func(sql string) {
		rows, err := db.Pool.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprint(vals...))
		}
	}
	q(`SELECT 'file', path, blob_sha, status, coalesce(skip_reason,''), secrets_redacted FROM files`)
	q(`SELECT 'sym', s.path, s.qualified_name, s.kind, s.start_line, s.end_line, s.content_hash, s.embedding_state,
		coalesce(p.qualified_name, '') FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id`)
	// Source and target by path, qualified name and line (ids depend on which
	// writer committed first), with the confidence and every candidate.
	q(`SELECT 'edge', s.path, s.qualified_name, s.start_line, e.kind, e.target_name, e.line, coalesce(t.qualified_name, '?'),
		coalesce(t.path, ''), coalesce(t.start_line, 0), coalesce(e.target_path, ''), e.confidence, e.target_type,
		coalesce((SELECT string_agg(c.path || ':' || c.qualified_name || ':' || c.start_line, ',' ORDER BY u.ord)
		          FROM unnest(e.candidates) WITH ORDINALITY u(id, ord) JOIN symbols c ON c.id = u.id), ''),
		coalesce(tf.path, CASE WHEN e.target_file_id IS NULL THEN '' ELSE 'a deleted file' END)
		FROM edges e JOIN symbols s ON s.id = e.source_id LEFT JOIN symbols t ON t.id = e.target_id
		LEFT JOIN files tf ON tf.id = e.target_file_id`)
	q(`SELECT 'vec', s.path, s.qualified_name, m.name FROM symbol_embeddings e JOIN symbols s ON s.id = e.symbol_id
		JOIN embedding_models m ON m.id = e.model_id`)
	// Postings per symbol, decoded, and any orphan among them.
	repos, err := db.Pool.Query(ctx, `SELECT id FROM repositories`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(repos, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		lines = append(lines, indextest.PostingLines(t, db, id)...)
	}
	// Vectors have no foreign key either (migration 0013): none may outlive its symbol.
	q(`SELECT 'orphan vectors', count(*) FROM symbol_embeddings e WHERE NOT EXISTS (SELECT 1 FROM symbols s WHERE s.id = e.symbol_id)`)
	// Nor do edges and symbols (migration 0014): they go with their file.
	q(`SELECT 'orphan edges', count(*) FROM edges e WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = e.file_id)
		OR NOT EXISTS (SELECT 1 FROM symbols s WHERE s.id = e.source_id)`)
	q(`SELECT 'orphan symbols', count(*) FROM symbols s WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = s.file_id)`)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func diffLines(a, b string) string {
	as, bs := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		as[l] = true
	}
	for _, l := range strings.Split(b, "\n") {
		bs[l] = true
	}
	var out []string
	for l := range as {
		if !bs[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range bs {
		if !as[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	if len(out) > 40 {
		out = append(out[:40], "...")
	}
	return strings.Join(out, "\n")
}

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t testing.TB, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func mustReal(t testing.TB, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
