package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestStatusLanguages: status lists every language of the fixture with the
// number of its files the index holds, in --json and in the text output.
func TestStatusLanguages(t *testing.T) {
	url, repo := indexedFixture(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	want := map[string]int{}
	rows, err := db.Pool.Query(context.Background(),
		`SELECT language, count(*) FROM files WHERE status <> 'skipped' AND language IS NOT NULL GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		var n int
		if err := rows.Scan(&l, &n); err != nil {
			t.Fatal(err)
		}
		want[l] = n
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for _, l := range []string{"go", "python", "javascript", "typescript", "php", "ruby", "java", "csharp"} {
		if want[l] == 0 {
			t.Fatalf("the fixture has no indexed %s file: %v", l, want)
		}
	}

	code, out, errOut := spelunk(t, "status", "--repo", repo, "--json")
	if code != 0 {
		t.Fatalf("status --json: %d %s", code, errOut)
	}
	var st index.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	got := map[string]int{}
	for i, l := range st.Languages {
		got[l.Language] = l.Files
		if i > 0 && l.Files > st.Languages[i-1].Files {
			t.Errorf("languages not by file count: %+v", st.Languages)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("status languages %v, the index has %v", got, want)
	}

	code, out, _ = spelunk(t, "status", "--repo", repo)
	if code != 0 {
		t.Fatalf("status: %d", code)
	}
	said := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, "  languages "); ok {
			for _, part := range strings.Split(rest, ", ") {
				said[part] = true
			}
		}
	}
	for l, n := range want {
		if !said[fmt.Sprintf("%s %d", l, n)] {
			t.Errorf("status does not say %s %d:\n%s", l, n, out)
		}
	}
}
