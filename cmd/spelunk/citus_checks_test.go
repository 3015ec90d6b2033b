//go:build citus

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// queriesPerRepo is how many searches each repository gets on each database.
const queriesPerRepo = 25

// uniqueNames are up to n names of functions, methods and types defined once
// in repo, spread over the sorted list: identifier queries whose best result
// is the same on any database.
func uniqueNames(t *testing.T, db, repo string, n int) []string {
	code, out, errOut := spelunk(t, "--db", db, "symbols", "--repo", repo, "--json")
	if code != 0 {
		t.Fatalf("symbols: %d %s", code, errOut)
	}
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s struct{ Name, Kind string }
		if json.Unmarshal([]byte(line), &s) == nil && slices.Contains([]string{"function", "method", "type", "class"}, s.Kind) && len(s.Name) > 3 {
			count[s.Name]++
		}
	}
	var names []string
	for name, c := range count {
		if c == 1 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("%s: no name defined once", repo)
	}
	var out2 []string
	for i := 0; i < n && i*len(names)/n < len(names); i++ {
		out2 = append(out2, names[i*len(names)/n])
	}
	return slices.Compact(out2)
}

var citusSearchTook = regexp.MustCompile(` in ([0-9.]+(?:ms|s|µs))\n`)

// top1 runs a search and returns its best result (qualified name and
// path:lines), how long the command took in-process (opening the database
// included) and the search itself took (the time its heading reports).
func top1(t *testing.T, db, repo, query string) (best string, command, search time.Duration) {
	start := time.Now()
	code, out, errOut := spelunk(t, "--db", db, "--repo", repo, "search", query, "--limit", "5")
	command = time.Since(start)
	if code != 0 {
		t.Fatalf("search %q on %s: %d %s", query, db, code, errOut)
	}
	m := citusSearchTook.FindStringSubmatch(out)
	lines := strings.Split(out, "\n")
	if m == nil || len(lines) < 2 || len(strings.Fields(lines[1])) < 5 {
		t.Fatalf("search %q: no result or no time:\n%s", query, out)
	}
	search, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(lines[1])
	return f[3] + " " + f[4], command, search
}

// compareSearches runs the same identifier queries on both databases,
// alternating which goes first, and compares their best results and the
// callers of the first few.
func compareSearches(t *testing.T, citus, single, repo string, figures map[string][]time.Duration) {
	names := uniqueNames(t, single, repo, queriesPerRepo)
	for i, q := range names {
		order := []struct{ name, url string }{{"citus", citus}, {"single", single}}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		got := map[string]string{}
		for _, db := range order {
			best, command, search := top1(t, db.url, repo, q)
			got[db.name] = best
			figures[db.name+" search"] = append(figures[db.name+" search"], search)
			figures[db.name+" command"] = append(figures[db.name+" command"], command)
		}
		if got["citus"] != got["single"] {
			t.Errorf("search %q: citus's best %s, one server's %s", q, got["citus"], got["single"])
		}
	}
	for _, q := range names[:min(5, len(names))] {
		a, b := callers(t, citus, repo, q), callers(t, single, repo, q)
		if !slices.Equal(a, b) {
			t.Errorf("callers %s: citus %v, one server %v", q, a, b)
		}
	}
}

func callers(t *testing.T, db, repo, name string) []string {
	code, out, errOut := spelunk(t, "--db", db, "--repo", repo, "callers", name, "--depth", "2")
	if code != 0 {
		t.Fatalf("callers %s: %d %s", name, code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines)
	return lines
}

var conflictID = regexp.MustCompile(`conflict ([0-9a-f-]{36})`)

// checkMemories records two contradicting memories, resolves the conflict and
// reads the outcome, on the distributed database.
func checkMemories(t *testing.T, db, repo string) {
	base := []string{"--db", db, "--repo", repo, "--cache", "off"}
	mem := func(args ...string) string {
		code, out, errOut := spelunk(t, append(slices.Clone(base), args...)...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
		return out
	}
	mem("memory", "add", "--kind", "fact", "--author", "citus-test", "the shop's API listens on port 8080")
	out := mem("memory", "add", "--kind", "fact", "--author", "citus-test", "the shop's API listens on port 9090")
	m := conflictID.FindStringSubmatch(out)
	if !strings.Contains(out, "DISPUTED") || m == nil {
		t.Fatalf("a contradicting memory was not disputed:\n%s", out)
	}
	mem("conflicts", "resolve", m[1], "--keep", "b", "--note", "moved to 9090")
	list := mem("memory", "list")
	if !strings.Contains(list, "SUPERSEDED") || strings.Contains(list, "DISPUTED") {
		t.Fatalf("after resolving, memory list:\n%s", list)
	}
	if out := mem("memory", "search", "which port does the API listen on"); !strings.Contains(out, "9090") {
		t.Fatalf("memory search:\n%s", out)
	}
}

// checkSave indexes one saved file as the watcher does (index --file) and
// finds the definition it adds.
func checkSave(t *testing.T, db, repo string) {
	path := filepath.Join(repo, "citus_probe.py")
	if err := os.WriteFile(path, []byte("def citus_probe_saved_function():\n    return 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := spelunk(t, "--db", db, "--repo", repo, "index", "--file", path); code != 0 {
		t.Fatalf("index --file: %d %s", code, errOut)
	}
	if best, _, _ := top1(t, db, repo, "citus_probe_saved_function"); !strings.Contains(best, "citus_probe_saved_function citus_probe.py:") {
		t.Fatalf("after a save, the best result is %s", best)
	}
}

// checkTenantIsolation: another tenant's role, routed to the shard holding the
// repository, sees none of its rows (row-level security on the worker).
func checkTenantIsolation(t *testing.T, ctx context.Context, coord, routed, repo string) {
	if code, _, errOut := spelunk(t, "--db", coord, "--tenant", "citus_other", "db", "distribute"); code != 0 {
		t.Fatalf("db distribute --tenant citus_other: %d %s", code, errOut)
	}
	conn := owner(t, ctx, routed)
	var id int64
	if err := conn.QueryRow(ctx, `SELECT id FROM repositories WHERE root = $1`, repo).Scan(&id); err != nil {
		t.Fatal(err)
	}
	count := func(tenant string) int {
		var n int
		err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT set_config('spelunk.tenant', '%s', false),
			set_config('role', 'spelunk_app_%s', false)`, tenant, tenant)).Scan(new(string), new(string))
		if err == nil {
			err = conn.QueryRow(ctx, `SELECT count(*) FROM symbols WHERE repository_id = $1`, id).Scan(&n)
		}
		if _, rerr := conn.Exec(ctx, `RESET ROLE`); err == nil {
			err = rerr
		}
		if err != nil {
			t.Fatalf("count as tenant %s: %v", tenant, err)
		}
		return n
	}
	if own, other := count("default"), count("citus_other"); own == 0 || other != 0 {
		t.Fatalf("the repository's symbols: %d seen by its tenant, %d by another (want >0 and 0)", own, other)
	}
}

// checkRouterPlan: a search's nearest-neighbour query over one repository is
// one task on one worker.
func checkRouterPlan(t *testing.T, ctx context.Context, coord, repo string) {
	conn := owner(t, ctx, coord)
	var id int64
	var vec string
	if err := conn.QueryRow(ctx, `SELECT id FROM repositories WHERE root = $1`, repo).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT embedding::text FROM symbol_embeddings WHERE repository_id = $1 LIMIT 1`, id).Scan(&vec); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, fmt.Sprintf(`EXPLAIN (COSTS OFF) SELECT e.symbol_id FROM symbol_embeddings e
		WHERE e.repository_id = %d ORDER BY e.embedding <=> '%s' LIMIT 20`, id, vec))
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "Task Count: 1\n") {
		t.Errorf("a search of one repository is not routed to one shard:\n%s", strings.Join(plan, "\n"))
	}
}

// logFigures prints index times and search latencies (p50/p95) of both.
func logFigures(t *testing.T, figures map[string][]time.Duration) {
	keys := make([]string, 0, len(figures))
	for k := range figures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d := slices.Clone(figures[k])
		slices.Sort(d)
		t.Logf("%-14s n=%-3d p50 %-10v p95 %-10v all %v", k, len(d), d[len(d)/2].Round(time.Millisecond),
			d[min(len(d)-1, len(d)*95/100)].Round(time.Millisecond), roundAll(figures[k]))
	}
}

func roundAll(d []time.Duration) []time.Duration {
	if len(d) > 4 {
		return nil
	}
	out := make([]time.Duration, len(d))
	for i, x := range d {
		out[i] = x.Round(time.Millisecond)
	}
	return out
}
