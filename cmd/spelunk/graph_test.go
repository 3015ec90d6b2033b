package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// indexedFixture indexes a copy of the fixture through the CLI into the test's
// database (hash embedder) and returns the database URL and the repository.
func indexedFixture(t *testing.T) (url, repo string) {
	t.Helper()
	url = pgtest.URL(t)
	t.Setenv("SPELUNK_DATABASE_URL", url)
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo = indextest.Repo(t)
	if code, _, errOut := spelunk(t, "index", repo); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	return url, repo
}

// indexedWithConfidence indexes the fixture through the CLI and gives
// IssueRefund's calls known confidences: IsEligibleForRefund ambiguous between
// it and retry.Backoff, retry.Do exact, Invoice.Total inferred.
func indexedWithConfidence(t *testing.T) string {
	t.Helper()
	url, repo := indexedFixture(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	ctx := context.Background()
	id := func(qual string) int64 {
		t.Helper()
		var id int64
		if err := db.Pool.QueryRow(ctx, `SELECT id FROM symbols WHERE qualified_name = $1 AND NOT is_test ORDER BY path LIMIT 1`, qual).Scan(&id); err != nil {
			t.Fatalf("symbol %s: %v", qual, err)
		}
		return id
	}
	refund, eligible, backoff := id("billing.IssueRefund"), id("Invoice.IsEligibleForRefund"), id("retry.Backoff")
	for _, u := range []struct {
		target int64
		conf   string
		cands  []int64
	}{{eligible, "ambiguous", []int64{eligible, backoff}}, {id("retry.Do"), "exact", nil}, {id("Invoice.Total"), "inferred", nil}} {
		tag, err := db.Pool.Exec(ctx, `UPDATE edges SET confidence = $3, candidates = $4 WHERE source_id = $1 AND target_id = $2`,
			refund, u.target, u.conf, u.cands)
		if err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("set %s: %v (%d rows)", u.conf, err, tag.RowsAffected())
		}
	}
	return repo
}

func TestCLICalleesConfidence(t *testing.T) {
	repo := indexedWithConfidence(t)

	code, out, errOut := spelunk(t, "callees", "IssueRefund", "--repo", repo)
	if code != 0 {
		t.Fatalf("callees: %d %s", code, errOut)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	for name, want := range map[string]string{
		"Invoice.IsEligibleForRefund": "[ambiguous: 2 candidates]", "retry.Backoff": "[ambiguous: 2 candidates]",
		"Invoice.Total": "[inferred]",
	} {
		if !strings.HasSuffix(lines[name], want) {
			t.Errorf("callees line of %s = %q, want it to end in %q\n%s", name, lines[name], want, out)
		}
	}
	if l := lines["retry.Do"]; l == "" || strings.Contains(l, "[") {
		t.Errorf("an exact callee is unmarked: %q\n%s", l, out)
	}

	code, out, _ = spelunk(t, "callees", "IssueRefund", "--repo", repo, "--json", "--min-confidence", "inferred")
	if code != 0 {
		t.Fatalf("callees --json: %d", code)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var w walkLine
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got[w.QualifiedName] = w.Confidence
	}
	if got["retry.Do"] != "exact" || got["Invoice.Total"] != "inferred" {
		t.Errorf("callees --json confidences %v", got)
	}
	if _, ok := got["Invoice.IsEligibleForRefund"]; ok {
		t.Errorf("--min-confidence inferred kept the ambiguous callee: %v", got)
	}
}

func TestCLICallersConfidence(t *testing.T) {
	repo := indexedWithConfidence(t)
	code, out, _ := spelunk(t, "callers", "Backoff", "--repo", repo, "--json")
	if code != 0 || !strings.Contains(out, `"qualified_name":"billing.IssueRefund"`) || !strings.Contains(out, `"confidence":"ambiguous"`) {
		t.Fatalf("callers of a second candidate: %d %s", code, out)
	}
	code, out, _ = spelunk(t, "callers", "Backoff", "--repo", repo, "--min-confidence", "inferred")
	if code != 0 || strings.Contains(out, "billing.IssueRefund") {
		t.Fatalf("callers --min-confidence inferred kept the ambiguous caller: %d %s", code, out)
	}
	code, _, errOut := spelunk(t, "callers", "Backoff", "--repo", repo, "--min-confidence", "unresolved")
	if code != 2 || !strings.Contains(errOut, "--min-confidence must be one of exact, inferred, ambiguous") {
		t.Fatalf("--min-confidence unresolved: exit %d %q, want 2", code, errOut)
	}
}

// A --min-confidence that makes no sense exits 2 before any database work (the
// URL points at a closed port).
func TestCallersMinConfidenceIsCheckedFirst(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	for _, v := range []string{"sure", "Exact", "unresolved"} {
		code, _, errOut := spelunk(t, "callees", "X", "--min-confidence", v)
		if code != 2 || !strings.Contains(errOut, "--min-confidence must be one of exact, inferred, ambiguous") {
			t.Errorf("--min-confidence %s: exit %d %q, want 2", v, code, errOut)
		}
	}
}

// TestCLIReadersWriters: who writes and who reads a struct field, with the
// access's confidence; --depth adds the writers' callers; a name that is no
// field says so.
func TestCLIReadersWriters(t *testing.T) {
	_, repo := indexedFixture(t)
	code, out, errOut := spelunk(t, "writers", "Limiter.buckets", "--repo", repo)
	if code != 0 || !strings.Contains(out, "writers of Limiter.buckets") || !strings.Contains(out, "Limiter.refill") ||
		strings.Contains(out, "Limiter.Allow") {
		t.Errorf("writers Limiter.buckets: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = spelunk(t, "readers", "Limiter.Rate", "--repo", repo, "--json")
	if code != 0 {
		t.Fatalf("readers: %d %s", code, errOut)
	}
	readers := map[string]walkLine{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var w walkLine
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		readers[w.QualifiedName] = w
	}
	for _, name := range []string{"Limiter.RetryAfter", "Limiter.refill"} {
		if w, ok := readers[name]; !ok || w.Edge != "reads" || w.Confidence != "exact" {
			t.Errorf("readers of Limiter.Rate: %s = %+v (all: %v)", name, w, readers)
		}
	}
	// bucket.tokens is written through b := l.refill(key), whose type the file
	// does not say: the one tokens field in reach, inferred.
	code, out, _ = spelunk(t, "writers", "bucket.tokens", "--repo", repo, "--depth", "2")
	if code != 0 || !strings.Contains(out, "Limiter.Allow") || !strings.Contains(out, "[inferred]") ||
		!strings.Contains(out, "Limiter.RetryAfter") {
		t.Errorf("writers bucket.tokens --depth 2 (refill's callers): %d\n%s", code, out)
	}
	code, _, errOut = spelunk(t, "writers", "Limiter.Allow", "--repo", repo)
	if code == 0 || !strings.Contains(errOut, `no field named "Limiter.Allow"`) {
		t.Errorf("writers of a method: %d %s", code, errOut)
	}
}

// TestAnswersFromAnIncompleteIndexSaySo: callers, search and symbols read
// from an index whose last run never finished (killed, failed) warn that
// results may be missing, and one no run ever finished for says so instead
// of an unqualified "(none found)" (issue 36, 5).
func TestAnswersFromAnIncompleteIndexSaySo(t *testing.T) {
	url, repo := indexedFixture(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	ctx := context.Background()
	if code, _, errOut := spelunk(t, "callers", "Backoff", "--repo", repo); code != 0 || strings.Contains(errOut, "incomplete") {
		t.Fatalf("callers from a complete index: %d %q", code, errOut)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE repositories SET indexing_started = now()`); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"callers", "Backoff"}, {"search", "refund"}, {"symbols", "--path", "billing/refund.go"}} {
		code, _, errOut := spelunk(t, append(args, "--repo", repo)...)
		if code != 0 || !strings.Contains(errOut, "index incomplete: the last run") || !strings.Contains(errOut, "results may be missing") {
			t.Errorf("%s after a stopped run: exit %d, stderr %q", args[0], code, errOut)
		}
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE repositories SET last_indexed_at = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, _, errOut := spelunk(t, "callers", "Backoff", "--repo", repo); !strings.Contains(errOut, "index incomplete: no run has finished") {
		t.Errorf("callers when no run finished: stderr %q", errOut)
	}
}

// TestJSONFromAnIncompleteIndexSaysSo: with --json the reading commands
// open with a line {"index_incomplete": WHY} of their own when the last run
// did not finish, whether their output is one document (search, show) or
// JSON lines (callers, symbols), so a script sees what stderr tells a person;
// from a complete index the output is unchanged (issue 36, 5).
func TestJSONFromAnIncompleteIndexSaysSo(t *testing.T) {
	url, repo := indexedFixture(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	cmds := [][]string{{"callers", "Backoff"}, {"search", "refund"}, {"show", "Backoff"}, {"symbols", "--path", "billing/refund.go"}}
	for _, args := range cmds {
		_, out, _ := spelunk(t, append(args, "--repo", repo, "--json")...)
		if strings.Contains(out, "index_incomplete") {
			t.Fatalf("%s --json from a complete index: %s", args[0], out)
		}
	}
	if _, err := db.Pool.Exec(context.Background(), `UPDATE repositories SET indexing_started = now()`); err != nil {
		t.Fatal(err)
	}
	for _, args := range cmds {
		code, out, errOut := spelunk(t, append(args, "--repo", repo, "--json")...)
		first, rest, _ := strings.Cut(out, "\n")
		var head map[string]any
		if err := json.Unmarshal([]byte(first), &head); code != 0 || err != nil || len(head) != 1 ||
			!strings.HasPrefix(fmt.Sprint(head["index_incomplete"]), "index incomplete: the last run") {
			t.Errorf("%s --json after a stopped run: exit %d, first line %q (%v), stderr %q", args[0], code, first[:min(len(first), 120)], err, errOut)
		}
		if rest == "" || !json.Valid([]byte(strings.SplitN(rest, "\n", 2)[0])) {
			t.Errorf("%s --json after a stopped run: no answer after the warning: %.120q", args[0], rest)
		}
	}
}
