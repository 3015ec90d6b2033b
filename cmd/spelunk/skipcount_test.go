package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// TestIndexSkippedAgreesWithStatus: a run that changes nothing reports the
// skipped files the index holds, the number status shows, not zero (issue 40).
func TestIndexSkippedAgreesWithStatus(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo := indextest.Repo(t)
	// Every file over 200 bytes is skipped as too large.
	for i := 0; i < 2; i++ {
		if code, _, errOut := spelunk(t, "index", repo, "--max-file-bytes", "200", "--json"); code != 0 {
			t.Fatalf("index: %d %s", code, errOut)
		}
	}
	code, out, errOut := spelunk(t, "index", repo, "--max-file-bytes", "200", "--json")
	if code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	var sum struct {
		Indexed int `json:"files_indexed"`
		Skipped int `json:"files_skipped"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("index --json: %v\n%s", err, out)
	}
	code, out, errOut = spelunk(t, "status", "--repo", repo, "--json")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errOut)
	}
	var st struct {
		Skipped map[string]int `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	total := 0
	for _, n := range st.Skipped {
		total += n
	}
	if total == 0 || sum.Indexed != 0 || sum.Skipped != total {
		t.Fatalf("no-change index: %d indexed, %d skipped; status says %v skipped", sum.Indexed, sum.Skipped, st.Skipped)
	}
}
