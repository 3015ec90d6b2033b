package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestStatusGraph: status --graph counts each language's call sites by
// confidence; the counts add up to the calls, which are the call edges indexed.
func TestStatusGraph(t *testing.T) {
	url, repo := indexedFixture(t)
	var calls int
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM edges WHERE kind = 'calls'`).Scan(&calls); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := spelunk(t, "status", "--repo", repo, "--graph", "--json")
	if code != 0 {
		t.Fatalf("status --graph --json: %d %s", code, errOut)
	}
	var st struct {
		Files int            `json:"files"`
		Graph []coverageLine `json:"graph"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Files == 0 {
		t.Fatalf("status --graph --json: %v\n%s", err, out)
	}
	langs := map[string]coverageLine{}
	total := 0
	for _, c := range st.Graph {
		langs[c.Language] = c
		total += c.Calls
		if sum := c.Exact + c.Inferred + c.Ambiguous + c.Unresolved + c.External; sum != c.Calls || c.Unresolved < 0 {
			t.Errorf("%s: %+v adds up to %d, want %d calls", c.Language, c, sum, c.Calls)
		}
	}
	if total != calls {
		t.Errorf("languages count %d calls, the index has %d", total, calls)
	}
	for _, l := range []string{"go", "python", "javascript", "typescript"} {
		if c, ok := langs[l]; !ok || c.Calls == 0 || c.Exact+c.Inferred == 0 {
			t.Errorf("%s: %+v, want resolved call sites", l, c)
		}
	}
	if langs["go"].External == 0 {
		t.Errorf("go: no external calls (fmt, errors): %+v", langs["go"])
	}

	code, out, _ = spelunk(t, "status", "--repo", repo, "--graph")
	if code != 0 {
		t.Fatalf("status --graph: %d", code)
	}
	for _, want := range []string{"graph     language", "exact", "inferred", "ambiguous", "unresolved", "external"} {
		if !strings.Contains(out, want) {
			t.Errorf("status --graph lacks %q:\n%s", want, out)
		}
	}
	for _, l := range []string{"go", "python", "javascript", "typescript"} {
		if !strings.Contains(out, "\n            "+l+" ") {
			t.Errorf("status --graph has no row for %s:\n%s", l, out)
		}
	}
	if _, out, _ = spelunk(t, "status", "--repo", repo, "--json"); strings.Contains(out, `"graph"`) {
		t.Errorf("status --json without --graph carries the graph: %s", out)
	}
}
