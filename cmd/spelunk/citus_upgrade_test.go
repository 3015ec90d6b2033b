//go:build citus

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestCitusUpgradeOfADistributedSchema: a database distributed and indexed by
// an older spelunk ($SPELUNK_CITUS_OLD_BIN, built before the migrations under
// test) in an empty Citus database ($SPELUNK_CITUS_UPGRADE_URL: the citus,
// vector and pg_trgm extensions created and the workers added, as for
// SPELUNK_CITUS_URL) is migrated by this build on its first command. After it
// every table is still distributed or reference without another `db
// distribute`, the new postings table is co-located with files, and search
// (each statement on one shard), the graph, a memory and a save answer as a
// fresh index on one server does.
func TestCitusUpgradeOfADistributedSchema(t *testing.T) {
	old, coord := os.Getenv("SPELUNK_CITUS_OLD_BIN"), os.Getenv("SPELUNK_CITUS_UPGRADE_URL")
	if old == "" || coord == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: set SPELUNK_CITUS_OLD_BIN and SPELUNK_CITUS_UPGRADE_URL (docs/OPERATIONS.md); the upgrade test does not skip under CI")
		}
		t.Skip("set SPELUNK_CITUS_OLD_BIN (a spelunk built before the migrations to test) and SPELUNK_CITUS_UPGRADE_URL (an empty Citus database) to run the upgrade (docs/OPERATIONS.md)")
	}
	ctx := context.Background()
	var tables int
	if err := owner(t, ctx, coord).QueryRow(ctx, `SELECT count(*) FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables > 0 {
		t.Fatalf("SPELUNK_CITUS_UPGRADE_URL holds %d tables: the upgrade needs an empty database", tables)
	}
	runOld := func(args ...string) {
		t.Helper()
		cmd := exec.Command(old, append([]string{"--db", coord, "--cache", "off"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", old, args, err, out)
		}
	}
	runOld("db", "distribute")
	repos := citusRepos(t)
	for _, r := range repos {
		runOld("index", r)
	}
	runOld("--repo", repos[0], "memory", "add", "--kind", "fact", "--author", "upgrade-test",
		"the fixture's memory written before the upgrade")

	// The first command of this build migrates the distributed schema.
	code, _, errOut := spelunk(t, "--db", coord, "--cache", "off", "--repo", repos[0], "memory", "list")
	if code != 0 {
		t.Fatalf("the first command after the upgrade: %d %s", code, errOut)
	}
	if !strings.Contains(errOut, "upgrading the database") {
		t.Fatalf("no migration ran: is SPELUNK_CITUS_OLD_BIN older than this build's schema? stderr: %s", errOut)
	}
	checkEveryTableDistributed(t, ctx, coord)
	if rep := distribute(t, coord); len(rep.Distributed) > 0 || len(rep.Reference) > 0 {
		t.Errorf("the migrations left tables for db distribute: %+v", rep)
	}

	// The regrouped postings live with their repository's files, so a
	// lexical search still reaches one shard (the routing guard below).
	var colocated bool
	if err := owner(t, ctx, coord).QueryRow(ctx, `SELECT (SELECT colocation_id FROM citus_tables WHERE table_name = 'postings'::regclass)
		= (SELECT colocation_id FROM citus_tables WHERE table_name = 'files'::regclass)`).Scan(&colocated); err != nil || !colocated {
		t.Fatalf("postings co-located with files after the upgrade: %v, %v", colocated, err)
	}
	routed := withParam(t, coord, "citus.multi_task_query_log_level", "error")
	single := pgtest.URL(t)
	figures := map[string][]time.Duration{}
	for _, r := range repos {
		indexRepo(t, single, r)
		compareSearches(t, routed, single, r, figures)
	}
	code, out, _ := spelunk(t, "--db", coord, "--cache", "off", "--repo", repos[0], "memory", "list")
	if code != 0 || !strings.Contains(out, "written before the upgrade") {
		t.Errorf("the memory written before the upgrade: %d %q", code, out)
	}
	checkSave(t, routed, repos[0])
	logFigures(t, figures)
}
