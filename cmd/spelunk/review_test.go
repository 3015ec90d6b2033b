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

// TestMemoryReviewCLI: `memory add` anchors a memory to the method its text
// names; after the method changes and `spelunk index` runs, `memory review
// --json` lists it (NEEDS_REVIEW, the anchor changed, with the diff), `briefing`
// shows the anchor's state, and `memory review confirm` puts it back.
func TestMemoryReviewCLI(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	t.Setenv("SPELUNK_CACHE", "off")
	repo := indextest.Repo(t)
	must := func(args ...string) string {
		t.Helper()
		code, out, errOut := spelunk(t, args...)
		if code != 0 {
			t.Fatalf("spelunk %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	must("index", repo)
	var added struct {
		ID      string `json:"id"`
		Anchors []struct{ Path, Name, State string }
	}
	out := must("memory", "add", "--repo", repo, "--json", "--kind", "rule", "--author", "alice",
		"--anchor", "billing/invoice.go", "`Invoice.IsEligibleForRefund` rejects unpaid invoices first.")
	if err := json.Unmarshal([]byte(out), &added); err != nil || len(added.Anchors) != 2 {
		t.Fatalf("memory add --json: %v %q, want two anchors (the method, the file given)", err, out)
	}

	file := filepath.Join(repo, "billing/refund.go")
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), "return ErrNotPaid", "return ErrNotPaid // unpaid", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	indextest.Git(t, repo, "commit", "-qam", "edit")
	if code, _, errOut := spelunk(t, "index", repo); code != 0 || !strings.Contains(errOut, "1 memory sent to review") {
		t.Fatalf("index after the edit: exit %d, stderr %q; want a note of the memory sent to review", code, errOut)
	}

	lines := strings.Split(strings.TrimSpace(must("memory", "review", "--repo", repo, "--json")), "\n")
	var item struct {
		ID, Status, Reason string
		Anchors            []struct{ Path, Name, State, Diff string }
	}
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &item) != nil {
		t.Fatalf("memory review --json: %q, want one line", lines)
	}
	states := map[string]string{}
	for _, a := range item.Anchors {
		states[a.Path+"#"+a.Name] = a.State
		if a.State == "changed" && !strings.Contains(a.Diff, "+\t\treturn ErrNotPaid // unpaid") {
			t.Errorf("diff of %s:\n%s", a.Name, a.Diff)
		}
	}
	if item.ID != added.ID || item.Status != "NEEDS_REVIEW" || states["billing/refund.go#Invoice.IsEligibleForRefund"] != "changed" ||
		states["billing/invoice.go#"] != "current" {
		t.Fatalf("review item %+v, want NEEDS_REVIEW with the method changed and the file current", item)
	}
	if b := must("briefing", "--repo", repo); !strings.Contains(b, "anchors: billing/invoice.go current, Invoice.IsEligibleForRefund changed") {
		t.Fatalf("briefing does not show the anchors' states:\n%s", b)
	}
	text := must("memory", "review", "--repo", repo, "--diff")
	if !strings.Contains(text, "changed  Invoice.IsEligibleForRefund  billing/refund.go") || !strings.Contains(text, "// unpaid") {
		t.Fatalf("memory review --diff:\n%s", text)
	}
	must("memory", "review", "confirm", added.ID[:8], "--repo", repo, "--author", "bob")
	if code, _, errOut := spelunk(t, "memory", "review", "invalidate", added.ID[:8], "--repo", repo, "--reason", "gone"); code != 0 {
		t.Fatalf("review invalidate: exit %d %s", code, errOut)
	}
	if code, out, errOut := spelunk(t, "memory", "review", "--repo", repo); code != 0 || out != "" || !strings.Contains(errOut, "nothing to review") {
		t.Fatalf("review after confirm: exit %d, %q %q", code, out, errOut)
	}
}
