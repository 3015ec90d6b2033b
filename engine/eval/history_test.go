package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/source"
)

const cartV1 = `def add_item(cart, item):
    cart.append(item)
    return cart


def remove_item(cart, item):
    cart.remove(item)
    return cart


def total(cart, discount):
    amount = sum(i.price for i in cart)
    return amount - discount
`

const shippingV1 = `def shipping_rate(weight, distance):
    base = 4.5
    return base + weight * 0.2 + distance * 0.01
`

// historyRepo builds a small repository whose history has one commit of every
// kind the selection tells apart. It returns the root and the SHAs of the two
// commits that must become queries (oldest first).
func historyRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shop")
	git := func(args ...string) string { return indextest.Git(t, dir, args...) }
	write := func(p, content string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) string {
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	write("lib/cart.py", cartV1)
	write("lib/shipping.py", shippingV1)
	write("README.md", "# shop\n")
	write("tests/test_cart.py", "def test_total():\n    assert True\n")
	commit("Initial import of the shop")

	write("lib/cart.py", strings.Replace(cartV1, "    return amount - discount\n", "    return round(max(amount - discount, 0), 2)\n", 1))
	fix := commit("Fix rounding of the cart total when a discount applies\n\nThe total could go negative (#12).\n\nFixes #12\nSigned-off-by: Dev <dev@example.com>")

	write("README.md", "# shop\n\nA tiny shop.\n")
	write("docs/guide.py", "print('guide')\n")
	commit("Document how the shop computes totals")

	write("tests/test_cart.py", "def test_total():\n    assert 1 == 1\n")
	commit("Make the cart total test assert something real")

	git("checkout", "-q", "-b", "feature")
	express := "\n\ndef express_rate(weight):\n    return 12.0 + weight\n"
	write("lib/shipping.py", shippingV1+express)
	commit("Add an express shipping rate for heavy parcels")
	git("checkout", "-q", "main")
	git("merge", "-q", "--no-ff", "-m", "Merge branch feature with the express rate", "feature")

	write("lib/cart.py", cartV1)
	for _, p := range []string{"lib/a.py", "lib/b.py", "lib/c.py", "lib/d.py", "lib/e.py", "lib/f.py"} {
		write(p, "X = 1\n")
	}
	commit("Split constants into six modules and revert the total")

	write("lib/cart.py", cartV1+"\n")
	commit("wip")

	cart := strings.Replace(cartV1, "    cart.remove(item)\n", "    if item in cart:\n        cart.remove(item)\n", 1)
	write("lib/cart.py", cart)
	write("lib/shipping.py", strings.Replace(shippingV1, "    base = 4.5\n", "    base = 0 if weight < 1 else 4.5\n", 1)+express)
	two := commit("Ship light parcels for free and ignore removing an item that is absent (#45)\n\n" +
		"See https://github.com/shop/shop/issues/45 for the report.\n\nReviewed-by: Rev <rev@example.com>\nChange-Id: I0123456789")

	write("lib/tax.py", "def vat(amount):\n    return amount * 0.2\n")
	commit("Add a value added tax helper module")

	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real, []string{fix, two}
}

func TestHistorySelectsCommits(t *testing.T) {
	root, want := historyRepo(t)
	ctx := context.Background()
	repo, err := source.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	commits, considered, skipped, err := selectCommits(ctx, repo, "", 150, 5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range commits {
		got = append(got, c.SHA)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chosen %v, want %v (oldest first)", got, want)
	}
	// First parent only: the feature branch's own commit is not walked.
	if considered != 9 {
		t.Errorf("considered %d commits, want 9", considered)
	}
	wantSkipped := map[string]int{SkipRootCommit: 1, SkipMerge: 1, SkipNoSource: 3, SkipTooManyFiles: 1, SkipShortMessage: 1}
	if !reflect.DeepEqual(skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", skipped, wantSkipped)
	}
	if len(commits) == 2 {
		if q := commits[0].Query; q != "Fix rounding of the cart total when a discount applies The total could go negative ." {
			t.Errorf("query 1 = %q", q)
		}
		if q := commits[1].Query; q != "Ship light parcels for free and ignore removing an item that is absent See for the report." {
			t.Errorf("query 2 = %q", q)
		}
		if g := commits[1].Gold; !reflect.DeepEqual(g, []string{"lib/cart.py", "lib/shipping.py"}) {
			t.Errorf("gold files %v", g)
		}
	}
	// --commits 1 keeps the newest qualifying commit.
	commits, _, _, err = selectCommits(ctx, repo, "", 1, 5)
	if err != nil || len(commits) != 1 || commits[0].SHA != want[1] {
		t.Errorf("--commits 1: %+v, %v", commits, err)
	}
}

func TestHistoryCleanMessage(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Fix parser crash on empty input (#1234)", "Fix parser crash on empty input"},
		{"Fix GH-99 and gh-100: tokens", "Fix and : tokens"},
		{"Handle nil maps\n\nSee https://github.com/o/r/pull/7 and #8.\n\nCo-authored-by: A <a@x>\nSigned-off-by: B <b@x>", "Handle nil maps See and ."},
		{"Tidy the lexer\n\nCloses #3\n- fixes #4", "Tidy the lexer"},
		{"Speed up walks\n\nBody text here.\n\nChange-Id: I12\nBug: 42\nX-Custom-Token: yes", "Speed up walks Body text here."},
		{"Subject: with a colon stays", "Subject: with a colon stays"},
	} {
		if got := cleanMessage(tt.in); got != tt.want {
			t.Errorf("cleanMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if n := wordCount(cleanMessage("Fix #12 (#13)")); n != 1 {
		t.Errorf("word count %d, want 1", n)
	}
}

func TestHistoryFileKinds(t *testing.T) {
	for p, want := range map[string]bool{
		"lib/cart.py": true, "src/app.ts": true, "Makefile": true,
		"README.md": false, "docs/conf.py": false, "CHANGELOG": false, "History.md": false,
		"package.json": false, "yarn.lock": false, ".github/workflows/ci.yml": false, ".eslintrc.js": false,
		"tests/test_cart.py": false, "lib/cart_test.go": false, "logo.png": false, "lib/history.go": true,
	} {
		if got := isSourceFile(p); got != want {
			t.Errorf("isSourceFile(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestHistoryHunks(t *testing.T) {
	diff := "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n" +
		"@@ -3 +3 @@ func a\n--- removed line that looks like a header\n+new\n" +
		"@@ -10,0 +11,2 @@\n+a\n+b\n@@ -20,4 +22,0 @@\n-x\n" +
		"diff --git a/new.go b/new.go\nnew file mode 100644\n--- /dev/null\n+++ b/new.go\n@@ -0,0 +1 @@\n+n\n" +
		"diff --git \"a/sp ace.go\" \"b/sp ace.go\"\n--- \"a/sp ace.go\"\t\n+++ \"b/sp ace.go\"\t\n@@ -1,2 +1,2 @@\n"
	got, err := parseHunks(diff)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]lineRange{
		"x.go":      {{3, 3}, {10, 10}, {20, 23}},
		"sp ace.go": {{1, 2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hunks %v, want %v", got, want)
	}
	if _, err := parseHunkHeader("@@ nonsense"); err == nil {
		t.Error("a malformed hunk header parsed")
	}
}

func TestHistoryStrictHit(t *testing.T) {
	ranked := []string{"a", "g1", "b", "g2", "c", "g3", "d", "e", "f", "h"}
	for _, tt := range []struct {
		name string
		gold []string
		k    int
		want bool
	}{
		{"one gold at rank 2, k=1", []string{"g1"}, 1, false},
		{"one gold at rank 2, k=3", []string{"g1"}, 3, true},
		{"three gold, k=1 needs the first to be gold", []string{"g1", "g2", "g3"}, 1, false},
		{"three gold, k=3 needs all three", []string{"g1", "g2", "g3"}, 3, false},
		{"three gold, k=5 needs all three", []string{"g1", "g2", "g3"}, 5, false},
		{"three gold, k=10 has all three", []string{"g1", "g2", "g3"}, 10, true},
		{"one of three missing, k=10", []string{"g1", "g2", "zz"}, 10, false},
		{"no gold never hits", nil, 10, false},
	} {
		if got := strictHit(ranked, tt.gold, tt.k); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	top := []string{"g2", "g1", "g3", "x"}
	if !strictHit(top, []string{"g1", "g2", "g3"}, 1) || !strictHit(top, []string{"g1", "g2", "g3"}, 3) {
		t.Error("three gold in the top 3: a hit at 1 and at 3")
	}
}

func TestHistoryBM25FilesRanksTheRightFile(t *testing.T) {
	b := newBM25Files()
	b.put("lib/cart.py", "1", []byte(cartV1))
	b.put("lib/shipping.py", "2", []byte(shippingV1))
	b.put("README.md", "3", []byte("# shop\n\nA shop with a cart and shipping of parcels.\n"))
	got := b.search("shipping rate is wrong for heavy weight", 10)
	if len(got) == 0 || got[0] != "lib/shipping.py" {
		t.Errorf("ranked %v, want lib/shipping.py first", got)
	}
	// Identifiers are split: removeItem finds remove_item.
	if got := b.search("removeItem leaves the cart unchanged", 1); len(got) != 1 || got[0] != "lib/cart.py" {
		t.Errorf("ranked %v, want lib/cart.py", got)
	}
	b.put("lib/cart.py", "4", []byte("def nothing():\n    pass\n"))
	b.remove("lib/shipping.py")
	if got := b.search("shipping rate weight", 10); len(got) != 1 || got[0] != "README.md" {
		t.Errorf("after updates ranked %v, want only README.md", got)
	}
	if b.total != len(bm25Tokens("def nothing():\n    pass\n"))+len(bm25Tokens("# shop\n\nA shop with a cart and shipping of parcels.\n")) {
		t.Errorf("total %d tokens is out of step with the documents", b.total)
	}
}

func TestHistoryRun(t *testing.T) {
	root, want := historyRepo(t)
	db := pgtest.Open(t)
	ctx := context.Background()
	emb := indextest.Embedder()
	own, err := index.New(db, emb).Index(ctx, root, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := db.RepositoryByRoot(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	countSymbols := func(id int64) int {
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE repository_id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	symbolsBefore := countSymbols(own.RepositoryID)

	var phases []string
	var features bytes.Buffer
	rep, err := RunHistory(ctx, db, emb, root, HistoryOptions{Baseline: "bm25", PerQuery: true, Features: &features,
		Progress: func(p HistoryProgress) { phases = append(phases, p.Phase) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 2 || rep.CommitsConsidered != 9 || len(rep.PerQuery) != 2 {
		t.Fatalf("report %+v", rep)
	}
	wantGold := []struct{ files, defs []string }{
		{[]string{"lib/cart.py"}, []string{"lib/cart.py:total"}},
		{[]string{"lib/cart.py", "lib/shipping.py"}, []string{"lib/cart.py:remove_item", "lib/shipping.py:shipping_rate"}},
	}
	for i, o := range rep.PerQuery {
		if o.ID != want[i] {
			t.Errorf("query %d is %s, want %s", i, o.ID, want[i])
		}
		if !reflect.DeepEqual(o.GoldFiles, wantGold[i].files) || !reflect.DeepEqual(o.GoldDefinitions, wantGold[i].defs) {
			t.Errorf("query %d gold %v %v, want %v %v", i, o.GoldFiles, o.GoldDefinitions, wantGold[i].files, wantGold[i].defs)
		}
	}
	var configs []string
	for _, m := range rep.Results {
		configs = append(configs, m.Config)
		if m.N != 2 {
			t.Errorf("%s: n %d, want 2", m.Config, m.N)
		}
		if m.Config == BM25FilesConfig != (m.Function5 == nil) {
			t.Errorf("%s: function@5 %v (only the file baseline has none)", m.Config, m.Function5)
		}
	}
	if !reflect.DeepEqual(configs, []string{"hybrid", "lexical", "dense", BM25FilesConfig}) {
		t.Errorf("configs %v", configs)
	}
	if !contains(phases, "indexing") || !contains(phases, "querying") {
		t.Errorf("progress phases %v", phases)
	}
	checkFeatures(t, features.Bytes(), wantGold[0].defs[0])

	// The user's own index is untouched: same row, same symbols.
	after, err := db.RepositoryByRoot(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("the user's repository row changed:\n%+v\n%+v", before, after)
	}
	if n := countSymbols(own.RepositoryID); n != symbolsBefore {
		t.Errorf("the user's index has %d symbols, had %d", n, symbolsBefore)
	}
	hist, err := db.RepositoryByRoot(ctx, root+HistoryKeySuffix)
	if err != nil || hist.ID == own.RepositoryID {
		t.Errorf("history index %+v, %v", hist, err)
	}
}

func TestHistoryErrors(t *testing.T) {
	root, _ := historyRepo(t)
	db := pgtest.Open(t)
	ctx := context.Background()
	emb := indextest.Embedder()
	_, err := RunHistory(ctx, db, emb, root, HistoryOptions{Since: "no-such-tag"})
	if err == nil || !strings.Contains(err.Error(), "--since no-such-tag does not name a commit") {
		t.Errorf("bad --since: %v", err)
	}
	_, err = RunHistory(ctx, db, emb, root, HistoryOptions{Since: "HEAD~1"})
	if err == nil || !strings.Contains(err.Error(), "looked at 1 (1 no-source-file)") {
		t.Errorf("nothing qualifies: %v", err)
	}
	_, err = RunHistory(ctx, db, emb, t.TempDir(), HistoryOptions{})
	if err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("plain directory: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := RunHistory(cancelled, db, emb, root, HistoryOptions{}); err == nil {
		t.Error("a cancelled run succeeded")
	}
}

// checkFeatures: each features line is a query with the ranker's inputs for
// every candidate, and the changed definition is labelled 2.
func checkFeatures(t *testing.T, data []byte, changed string) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) < 2 {
		t.Fatalf("%d features lines, want one or two per query:\n%s", len(lines), data)
	}
	labelled := false
	for _, l := range lines {
		var q FeatureQuery
		if err := json.Unmarshal(l, &q); err != nil {
			t.Fatal(err)
		}
		for _, c := range q.Candidates {
			if len(c.Features) != search.LearnedInputCount() {
				t.Fatalf("%s: %d inputs, want %d", c.Name, len(c.Features), search.LearnedInputCount())
			}
			labelled = labelled || c.Label == 2 && c.Path+":"+c.Name == changed
		}
	}
	if !labelled {
		t.Errorf("no candidate %s labelled 2 in\n%s", changed, data)
	}
}
