package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestSearchSeveralReposNamesTheIncomplete: a search over several
// repositories, one of whose last run did not finish, says which one on
// standard error and, with --json, in a first line {"index_incomplete":
// "NAME: WHY"}; --all names a repository it leaves out because no run of it
// ever finished; a complete one is never named (issue 36).
func TestSearchSeveralReposNamesTheIncomplete(t *testing.T) {
	url := pgtest.URL(t)
	t.Setenv("SPELUNK_DATABASE_URL", url)
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	shop, ledger := indextest.Repo(t), ledgerRepo(t)
	for _, r := range []string{shop, ledger} {
		if code, _, errOut := spelunk(t, "index", r); code != 0 {
			t.Fatalf("index %s: %s", r, errOut)
		}
	}
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	ctx := context.Background()
	both := []string{"search", "refund", "--repo", shop, "--repo", ledger}
	if code, _, errOut := spelunk(t, both...); code != 0 || strings.Contains(errOut, "warning") {
		t.Fatalf("both complete: exit %d, stderr %q", code, errOut)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE repositories SET indexing_started = now() WHERE root = $1`, ledger); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{both, {"search", "refund", "--all"}} {
		code, _, errOut := spelunk(t, args...)
		if code != 0 || !strings.Contains(errOut, "warning: ledger ("+ledger+"): index incomplete: the last run") ||
			strings.Contains(errOut, "shop") {
			t.Errorf("%v with ledger incomplete: exit %d, stderr %q", args[2:], code, errOut)
		}
		code, out, _ := spelunk(t, append(args, "--json")...)
		first, rest, _ := strings.Cut(out, "\n")
		var head map[string]string
		var resp multiResponse
		if err := json.Unmarshal([]byte(first), &head); code != 0 || err != nil ||
			!strings.HasPrefix(head["index_incomplete"], "ledger: index incomplete: the last run") || strings.Contains(first, "shop") {
			t.Errorf("%v --json: exit %d, first line %q (%v)", args[2:], code, first, err)
		}
		if err := json.Unmarshal([]byte(rest), &resp); err != nil || len(resp.Repositories) != 2 {
			t.Errorf("%v --json: the answer after the warning: %v %+v", args[2:], err, resp.Repositories)
		}
	}
	// --all leaves out a repository no run of which finished, and says so.
	if _, err := db.Pool.Exec(ctx, `UPDATE repositories SET last_indexed_at = NULL WHERE root = $1`, ledger); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := spelunk(t, "search", "refund", "--all")
	if code != 0 || !strings.Contains(errOut, "ledger ("+ledger+"): not searched: index incomplete: no run has finished") ||
		!strings.Contains(out, "across 1 repositories") {
		t.Errorf("--all with ledger never finished: exit %d, stdout %.80q, stderr %q", code, out, errOut)
	}
}
