package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// searchJSON is what the freshness test reads of search --json.
type searchJSON struct {
	Results []struct {
		Path     string `json:"path"`
		Name     string `json:"name"`
		Revision string `json:"revision"`
		Stale    *bool  `json:"stale"`
	} `json:"results"`
}

// Every result says the revision it was read from, and stale when its file has
// changed on disk since; the status agrees: edit -> stale, index -> fresh, edit
// again -> stale (issue 14).
func TestCLIFreshness(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	repo := indextest.Repo(t)
	head := indextest.Git(t, repo, "rev-parse", "HEAD")
	must := func(args ...string) string {
		t.Helper()
		code, out, errOut := spelunk(t, args...)
		if code != 0 {
			t.Fatalf("spelunk %v: %d %s", args, code, errOut)
		}
		return out
	}
	results := func() searchJSON {
		t.Helper()
		var r searchJSON
		if err := json.Unmarshal([]byte(must("search", "IsEligibleForRefund", "--repo", repo, "--json")), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Results) == 0 || r.Results[0].Path != "billing/refund.go" {
			t.Fatalf("search: %+v", r.Results)
		}
		return r
	}
	refund := filepath.Join(repo, "billing", "refund.go")
	orig, err := os.ReadFile(refund)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(tail string) {
		t.Helper()
		if err := os.WriteFile(refund, append([]byte(tail), orig...), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	must("index", repo)
	for _, r := range results().Results {
		if r.Revision != head || r.Stale != nil {
			t.Fatalf("just indexed: %s %s revision %q stale %v; want %s, no stale field", r.Path, r.Name, r.Revision, r.Stale, head)
		}
	}
	if out := must("status", "--repo", repo); !strings.Contains(out, ", fresh") {
		t.Fatalf("status after indexing:\n%s", out)
	}

	edit("// A comment that moves every line down.\n\n")
	for _, r := range results().Results {
		if want := r.Path == "billing/refund.go"; (r.Stale != nil && *r.Stale) != want {
			t.Errorf("edited refund.go: %s %s stale %v, want %v", r.Path, r.Name, r.Stale, want)
		}
	}
	out := must("search", "IsEligibleForRefund", "--repo", repo)
	if !strings.Contains(out, "billing/refund.go:") || !strings.Contains(out, "@"+head[:12]+" [stale]") ||
		!strings.Contains(out, "note: 1 file has changed on disk since indexed") {
		t.Errorf("search text after an edit:\n%s", out)
	}
	code, out, errOut := spelunk(t, "show", "Invoice.IsEligibleForRefund", "--repo", repo)
	if code != 0 || !strings.Contains(out, "@"+head[:12]+" [stale]") || !strings.Contains(errOut, "billing/refund.go changed on disk") {
		t.Errorf("show after an edit: %d\n%s\n%s", code, out, errOut)
	}
	out = must("show", "Invoice.IsEligibleForRefund", "--repo", repo, "--json")
	if !strings.Contains(out, `"stale":true`) || !strings.Contains(out, `"revision":"`+head+`"`) {
		t.Errorf("show --json after an edit: %s", out)
	}
	out = must("callers", "Invoice.IsEligibleForRefund", "--repo", repo, "--json")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var n struct {
			Path     string `json:"path"`
			Revision string `json:"revision"`
			Stale    bool   `json:"stale"`
		}
		if err := json.Unmarshal([]byte(l), &n); err != nil {
			t.Fatal(err)
		}
		if n.Revision != head || n.Stale != (n.Path == "billing/refund.go") {
			t.Errorf("callers --json after editing refund.go: %s", l)
		}
	}
	if !strings.Contains(out, `"path":"billing/invoice_test.go"`) || !strings.Contains(out, `"path":"billing/refund.go"`) {
		t.Errorf("callers --json: want callers in refund.go and invoice_test.go: %s", out)
	}
	out = must("callers", "Invoice.IsEligibleForRefund", "--repo", repo)
	if first := strings.SplitN(out, "\n", 2)[0]; !strings.HasPrefix(first, "callers of Invoice.IsEligibleForRefund (billing/refund.go:") ||
		!strings.HasSuffix(first, "[stale]") || !strings.Contains(out, "note: 1 file has changed") {
		t.Errorf("callers text: the anchor is in the edited file:\n%s", out)
	}
	if out := must("status", "--repo", repo); !strings.Contains(out, "STALE: 1 file with uncommitted changes not indexed (billing/refund.go)") {
		t.Fatalf("status after an edit:\n%s", out)
	}

	must("index", repo, "--working-tree")
	for _, r := range results().Results {
		if r.Stale != nil {
			t.Fatalf("working tree indexed: %s stale", r.Path)
		}
		if r.Path == "billing/refund.go" && r.Revision != "working-tree" || r.Path != "billing/refund.go" && r.Revision != head {
			t.Fatalf("working tree indexed: refund.go revision %q, want working-tree", r.Revision)
		}
	}
	if out := must("status", "--repo", repo); !strings.Contains(out, ", fresh") {
		t.Fatalf("status after indexing the working tree:\n%s", out)
	}

	edit("// Another comment.\n")
	if r := results(); r.Results[0].Stale == nil || !*r.Results[0].Stale {
		t.Errorf("edited again: %+v, want the refund.go result stale", r.Results[0])
	}
	out = must("status", "--repo", repo, "--json")
	var st struct {
		Stale       bool   `json:"stale"`
		StaleReason string `json:"stale_reason"`
		StaleFiles  int    `json:"stale_files"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if !st.Stale || st.StaleFiles != 1 || !strings.Contains(st.StaleReason, "1 file changed since indexed (billing/refund.go)") {
		t.Fatalf("status --json after editing again: %s", out)
	}
}
