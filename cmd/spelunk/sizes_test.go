package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestStatusSizes(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo := indextest.Repo(t)
	if code, _, errOut := spelunk(t, "index", repo); code != 0 {
		t.Fatalf("index: %d %s", code, errOut)
	}
	code, out, errOut := spelunk(t, "status", "--repo", repo, "--sizes")
	if code != 0 || !strings.Contains(out, "disk use by table") || !strings.Contains(out, "symbols") || !strings.Contains(out, "total") ||
		!strings.Contains(out, "write-ahead log") {
		t.Fatalf("status --sizes: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = spelunk(t, "status", "--repo", repo, "--sizes", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		TableSizes []struct {
			Table string `json:"table"`
			Total int64  `json:"total_bytes"`
		} `json:"table_sizes"`
		Database int64 `json:"database_bytes"`
		WAL      int64 `json:"wal_bytes"`
	}
	if code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil {
		t.Fatalf("status --sizes --json: exit %d\n%s%s", code, out, errOut)
	}
	found := false
	for _, s := range last.TableSizes {
		if s.Table == "symbols" && s.Total > 0 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no size for the symbols table: %+v", last.TableSizes)
	}
	// The test cluster's owner is a superuser, so the WAL is readable; a
	// database holds at least its tables.
	if last.WAL <= 0 || last.Database <= 0 {
		t.Fatalf("database %d bytes, WAL %d bytes: want both > 0", last.Database, last.WAL)
	}
}
