package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestMain(m *testing.M) {
	// A --db URL turns the memory cache on: its default file must not land in
	// the user's cache directory. Tests of the cache give --cache FILE.
	os.Setenv("SPELUNK_CACHE", "off")
	pgtest.Main(m)
}

// spelunk runs the CLI in-process and returns its exit code, stdout and stderr.
func spelunk(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outW, errW
	var stdout, stderr bytes.Buffer
	done := make(chan struct{}, 2)
	go func() { io.Copy(&stdout, outR); done <- struct{}{} }()
	go func() { io.Copy(&stderr, errR); done <- struct{}{} }()
	code := run(context.Background(), args)
	outW.Close()
	errW.Close()
	<-done
	<-done
	os.Stdout, os.Stderr = oldOut, oldErr
	return code, stdout.String(), stderr.String()
}

// withStdin runs spelunk with text on standard input.
func withStdin(t *testing.T, text string, args ...string) (int, string, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { io.WriteString(w, text); w.Close() }()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old; r.Close() }()
	return spelunk(t, args...)
}

func TestCLIEndToEnd(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo := indextest.Repo(t)

	code, out, errOut := spelunk(t, "index", repo, "--json")
	if code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("index --json: %v\n%s", err, out)
	}
	for _, k := range []string{"repository", "revision", "files_indexed", "files_unchanged", "files_deleted",
		"files_skipped", "symbols", "edges", "embedded", "duration_ms"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("index --json lacks %s", k)
		}
	}
	code, out, _ = spelunk(t, "index", repo)
	if code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("re-run: %d %q", code, out)
	}

	code, out, _ = spelunk(t, "symbols", "--repo", repo, "--path", "billing/refund.go", "--json")
	if code != 0 {
		t.Fatalf("symbols: %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"path", "name", "qualified_name", "kind", "start_line", "end_line", "parent", "revision"} {
		if _, ok := first[k]; !ok {
			t.Errorf("symbols --json lacks %s: %s", k, lines[0])
		}
	}

	// A traceback read from standard input, ranked as files.
	trace := "Traceback (most recent call last):\n  File \"/srv/shop/billing/refunds.py\", line 66, in process_refund\n" +
		"    raise RefundError(\"refund larger than the order\")\n"
	code, out, _ = withStdin(t, trace, "search", "-", "--files", "--repo", repo)
	if code != 0 || !strings.Contains(out, "py/shop/billing/refunds.py") || !strings.Contains(out, "process_refund") {
		t.Fatalf("search - --files: %d\n%s", code, out)
	}

	// Filters typed in the query narrow the search and are shown in its heading.
	code, out, _ = spelunk(t, "search", "refund path:py/ -test", "--repo", repo)
	if code != 0 || !strings.Contains(out, "[path:py/ test:no]") || !strings.Contains(out, "py/shop/billing/refunds.py") ||
		strings.Contains(out, "billing/refund.go") {
		t.Fatalf("search with filters: %d\n%s", code, out)
	}

	code, out, _ = spelunk(t, "search", "IsEligibleForRefund", "--repo", repo, "--json")
	if code != 0 {
		t.Fatalf("search: %d", code)
	}
	var resp struct {
		Query   string `json:"query"`
		Results []struct {
			Rank      int     `json:"rank"`
			Path      string  `json:"path"`
			Name      string  `json:"name"`
			Qualified string  `json:"qualified_name"`
			Kind      string  `json:"kind"`
			StartLine int     `json:"start_line"`
			EndLine   int     `json:"end_line"`
			Score     float64 `json:"score"`
			Explain   struct {
				Channels map[string]struct {
					Rank         int     `json:"rank"`
					Score        float64 `json:"score"`
					Contribution float64 `json:"contribution"`
				} `json:"channels"`
				Decay float64 `json:"decay"`
				Final float64 `json:"final"`
			} `json:"explain"`
		} `json:"results"`
		Pruned []map[string]any `json:"pruned"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Query != "IsEligibleForRefund" || len(resp.Results) == 0 || resp.Results[0].Name != "IsEligibleForRefund" ||
		resp.Results[0].Explain.Channels["symbol"].Rank != 1 || resp.Results[0].Explain.Final == 0 || resp.Pruned == nil {
		t.Fatalf("search --json: %s", out)
	}

	code, out, _ = spelunk(t, "callers", "Backoff", "--repo", repo, "--depth", "2", "--json")
	if code != 0 || !strings.Contains(out, `"qualified_name":"billing.IssueRefund"`) || !strings.Contains(out, `"depth":2`) {
		t.Fatalf("callers: %d %s", code, out)
	}
	code, out, _ = spelunk(t, "importers", "events", "--repo", repo, "--json")
	if code != 0 || !strings.Contains(out, `"path":"js/lib/app.js"`) {
		t.Fatalf("importers: %d %s", code, out)
	}
	code, out, _ = spelunk(t, "show", "billing/refund.go:40", "--repo", repo)
	if code != 0 || !strings.Contains(out, "func (inv *Invoice) IsEligibleForRefund") {
		t.Fatalf("show: %d %s", code, out)
	}

	queries := filepath.Join(indextest.FixtureDir(), "..", "eval", "fixture.jsonl")
	code, out, _ = spelunk(t, "eval", "--repo", repo, "--queries", queries, "--json")
	if code != 0 {
		t.Fatalf("eval: %d", code)
	}
	// Six configurations (hybrid and each channel) by four kinds (all, semantic,
	// identifier, graph); the fixture has no query tagged literal. Plus the two
	// confidence-restricted graph walks, on the all and graph rows.
	var rep struct {
		Queries int              `json:"queries"`
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Queries < 40 || len(rep.Results) != 6*4+2*2 {
		t.Fatalf("eval --json: %v %d queries %d rows", err, rep.Queries, len(rep.Results))
	}
	for _, k := range []string{"config", "kind", "n", "hit@1", "hit@5", "recall@5", "recall@10", "mrr@10", "ndcg@10", "p50_ms", "p95_ms"} {
		if _, ok := rep.Results[0][k]; !ok {
			t.Errorf("eval row lacks %s", k)
		}
	}

	code, _, errOut = spelunk(t, "status", "--repo", repo)
	if code != 0 {
		t.Fatalf("status: %s", errOut)
	}
}

func TestCLIErrors(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo := indextest.Repo(t)
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"search"}, 2, "takes 1 argument"},
		{[]string{"search", "", "--repo", repo}, 2, "empty query"},
		{[]string{"search", "x", "--channels", "psychic", "--repo", repo}, 2, "unknown channel"},
		{[]string{"search", "x lang:klingon", "--repo", repo}, 2, "not a language spelunk indexes"},
		{[]string{"search", "x test:maybe", "--repo", repo}, 2, "test:no (or -test)"},
		{[]string{"search", "refund", "--repo", repo}, 1, "not indexed yet"},
		// A directory outside any repository is not advised to be indexed.
		{[]string{"search", "refund", "--repo", t.TempDir()}, 1, "is not a git repository: run spelunk inside one, or pass --repo DIR"},
		{[]string{"index", filepath.Join(repo, "missing")}, 1, "does not exist"},
		{[]string{"eval", "--repo", repo}, 2, "--queries"},
		{[]string{"callers", "X", "--depth", "0", "--repo", repo}, 2, "--depth"},
		{[]string{"--db", "postgres://nobody@127.0.0.1:1/x?sslmode=disable", "status"}, 1, "cannot connect"},
	}
	for _, tt := range tests {
		code, _, errOut := spelunk(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.contains) {
			t.Errorf("spelunk %v: exit %d %q, want %d containing %q", tt.args, code, errOut, tt.code, tt.contains)
		}
	}
	if code, _, _ := spelunk(t, "index", repo); code != 0 {
		t.Fatal("index failed")
	}
	code, _, errOut := spelunk(t, "show", "NoSuchSymbolAnywhere", "--repo", repo)
	if code != 1 || !strings.Contains(errOut, "no symbol named") {
		t.Fatalf("show unknown: %d %q", code, errOut)
	}
	code, _, errOut = spelunk(t, "callers", "NoSuchSymbolAnywhere", "--repo", repo)
	if code != 1 || !strings.Contains(errOut, "no symbol named") {
		t.Fatalf("callers unknown: %d %q", code, errOut)
	}
	// A line past the file and a file not indexed say different things.
	code, _, errOut = spelunk(t, "show", "billing/refund.go:99999", "--repo", repo)
	if code != 1 || !strings.Contains(errOut, "no definition at line 99999: its last indexed line is") {
		t.Fatalf("show past the end: %d %q", code, errOut)
	}
	code, _, errOut = spelunk(t, "show", "nosuch/file.go:1", "--repo", repo)
	if code != 1 || !strings.Contains(errOut, "no file nosuch/file.go is indexed") {
		t.Fatalf("show missing file: %d %q", code, errOut)
	}
}
