//go:build citus

package main

// `make citus-test` (docs/OPERATIONS.md, "Scaling out on Citus"): spelunk on a
// real Citus cluster, beside the same work on one server (the test cluster),
// in one run. Citus cannot be built or started in CI, so this file is behind
// the citus build tag, and `make test` never compiles it; under the tag a
// missing cluster is a failure, not a skip.

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestCitusCluster distributes a database over the cluster whose coordinator
// is $SPELUNK_CITUS_URL, indexes two repositories ($SPELUNK_CITUS_REPOS, git
// repositories cloned for the run; default two copies of the fixture), and
// checks search, the graph, memories and a watcher's save against the same
// work on one server. Every statement runs with Citus's
// multi_task_query_log_level at error, so one that a repository's work sends
// to more than one shard fails the test: each is routed to one.
func TestCitusCluster(t *testing.T) {
	coord := os.Getenv("SPELUNK_CITUS_URL")
	if coord == "" {
		t.Fatal("SPELUNK_CITUS_URL is not set: the coordinator's URL of a Citus cluster (docs/OPERATIONS.md)")
	}
	routed := withParam(t, coord, "citus.multi_task_query_log_level", "error")
	single := pgtest.URL(t)
	ctx := context.Background()

	rep := distribute(t, coord)
	t.Logf("citus %s, %d workers", rep.Citus, rep.Workers)
	if rep.Workers < 1 {
		t.Fatalf("the coordinator has no workers: %+v", rep)
	}
	checkEveryTableDistributed(t, ctx, coord)
	checkRoutingGuard(t, ctx, routed)

	repos := citusRepos(t)
	figures := map[string][]time.Duration{}
	for _, r := range repos {
		for _, db := range []struct{ name, url string }{{"citus", routed}, {"single", single}} {
			figures[db.name+" index"] = append(figures[db.name+" index"], indexRepo(t, db.url, r))
		}
	}
	for _, r := range repos {
		compareSearches(t, routed, single, r, figures)
	}
	checkMemories(t, routed, repos[0])
	checkSave(t, routed, repos[0])
	checkTenantIsolation(t, ctx, coord, routed, repos[0])
	checkRouterPlan(t, ctx, coord, repos[0])
	logFigures(t, figures)
}

// distribute runs `spelunk db distribute --json` on the coordinator and
// returns its report.
func distribute(t *testing.T, coord string) pg.DistributeReport {
	t.Helper()
	code, out, errOut := spelunk(t, "--db", coord, "db", "distribute", "--json")
	if code != 0 {
		t.Fatalf("db distribute: %d %s", code, errOut)
	}
	var rep pg.DistributeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("db distribute --json: %v\n%s", err, out)
	}
	return rep
}

// withParam adds a startup parameter to a URL (pgx sends unknown URL
// parameters as settings).
func withParam(t *testing.T, raw, key, value string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("SPELUNK_CITUS_URL: %v", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

func owner(t *testing.T, ctx context.Context, u string) *pgx.Conn {
	conn, err := pg.ConnectOwner(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func checkEveryTableDistributed(t *testing.T, ctx context.Context, coord string) {
	rows, err := owner(t, ctx, coord).Query(ctx, `SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND NOT EXISTS (
			SELECT 1 FROM citus_tables t WHERE t.table_name = c.oid::regclass
			AND t.citus_table_type IN ('distributed', 'reference'))`)
	if err != nil {
		t.Fatal(err)
	}
	local, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(local) > 0 {
		t.Errorf("tables neither distributed nor reference after db distribute: %v", local)
	}
}

// checkRoutingGuard makes sure the guard works: a query over every shard fails.
func checkRoutingGuard(t *testing.T, ctx context.Context, routed string) {
	var n int
	err := owner(t, ctx, routed).QueryRow(ctx, `SELECT count(*) FROM symbols`).Scan(&n)
	if err == nil || !strings.Contains(err.Error(), "multi-task") {
		t.Fatalf("a query over every shard was not refused (%v): the routing guard does not hold", err)
	}
}

// citusRepos clones $SPELUNK_CITUS_REPOS (or two copies of the fixture) for
// this run, so each run indexes them afresh.
func citusRepos(t *testing.T) []string {
	dirs := strings.Fields(os.Getenv("SPELUNK_CITUS_REPOS"))
	if len(dirs) == 0 {
		return []string{indextest.Repo(t), indextest.Repo(t)}
	}
	var out []string
	for _, d := range dirs {
		dst := filepath.Join(t.TempDir(), filepath.Base(d))
		indextest.Git(t, ".", "clone", "-q", d, dst)
		real, err := filepath.EvalSymlinks(dst)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, real)
	}
	return out
}

func indexRepo(t *testing.T, db, repo string) time.Duration {
	start := time.Now()
	code, _, errOut := spelunk(t, "--db", db, "index", repo, "--json")
	if code != 0 {
		t.Fatalf("index %s on %s: %d %s", repo, pg.RedactURL(db), code, errOut)
	}
	return time.Since(start)
}
