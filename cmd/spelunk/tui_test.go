package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/backend"
)

func TestRunTUIWithoutATerminal(t *testing.T) {
	cmd := &cobra.Command{Use: "spelunk"}
	addTUIFlags(cmd)
	// go test's stdout is a pipe, never a terminal.
	err := runTUI(cmd, &globals{})
	if !errors.Is(err, errNoTTY) {
		t.Fatalf("runTUI without a terminal: %v, want errNoTTY", err)
	}
	for _, want := range []string{"needs a terminal", "spelunk search", "spelunk --help"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%s", want, err)
		}
	}
}

// TestBareSpelunkWithoutATerminal checks the wiring: `spelunk` with no subcommand
// opens the UI, which without a terminal exits 1 pointing to the subcommands.
func TestBareSpelunkWithoutATerminal(t *testing.T) {
	if newRoot().RunE == nil {
		t.Fatal("the root command does not call runTUI")
	}
	code, _, errOut := spelunk(t)
	if code != 1 || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("spelunk without a terminal: exit %d, stderr %q; want 1 and the subcommands", code, errOut)
	}
}

func TestDBLabel(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", "")
	tests := map[string]string{
		"": "embedded",
		"postgres://u:secret@db.example.com:5432/spelunk?sslmode=require": "db.example.com/spelunk",
		"postgres://postgres@/spelunk?host=/tmp/x":                        "local/spelunk",
		"host=/tmp dbname=x": "custom",
	}
	for in, want := range tests {
		if got := dbLabel(in); got != want {
			t.Errorf("dbLabel(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(dbLabel(in), "secret") {
			t.Errorf("dbLabel(%q) shows the password", in)
		}
	}
}

func TestEvalPath(t *testing.T) {
	cmd := &cobra.Command{Use: "spelunk"}
	addTUIFlags(cmd)
	t.Setenv("SPELUNK_EVAL_FILE", "")
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	got := evalPath(cmd, "/repo")
	if !strings.HasPrefix(got, filepath.Join(state, "spelunk", "eval", "repo-")) || !strings.HasSuffix(got, ".jsonl") {
		t.Errorf("default eval path %q, want one under %s/spelunk/eval", got, state)
	}
	if strings.HasPrefix(got, "/repo") || evalPath(cmd, "/other/repo") == got {
		t.Errorf("default eval path %q is inside the repository or shared with another", got)
	}
	t.Setenv("SPELUNK_EVAL_FILE", "/tmp/e.jsonl")
	if got := evalPath(cmd, "/repo"); got != "/tmp/e.jsonl" {
		t.Errorf("env eval path %q", got)
	}
	if err := cmd.Flags().Set("eval-file", "/x/flag.jsonl"); err != nil {
		t.Fatal(err)
	}
	if got := evalPath(cmd, "/repo"); got != "/x/flag.jsonl" {
		t.Errorf("flag eval path %q", got)
	}
}

// TestTUIBackendSeveralRepos checks the UI's wiring over several repositories:
// --repo A --repo B and --all give a backend that searches both with the
// repository filter, one --repo the plain one.
func TestTUIBackendSeveralRepos(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	shop, ledger := indextest.Repo(t), ledgerRepo(t)
	for _, r := range []string{shop, ledger} {
		if code, _, errOut := spelunk(t, "index", r); code != 0 {
			t.Fatalf("index %s: %s", r, errOut)
		}
	}
	ctx := context.Background()
	g := &globals{}
	db, err := openDB(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec, err := db.RepositoryByRoot(ctx, shop)
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHashing(384)
	for _, tc := range []struct {
		args []string
		want []string // the filter's repositories; nil = one repository, no filter
	}{
		{[]string{"--repo", shop, "--repo", ledger}, []string{"shop", "ledger"}},
		{[]string{"--all"}, []string{"shop", "ledger"}},
		{[]string{"--repo", shop}, nil},
	} {
		cmd := &cobra.Command{Use: "spelunk"}
		addTUIFlags(cmd)
		g := &globals{}
		cmd.Flags().Var(repoFlag{g}, "repo", "")
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		others, err := tuiOthers(ctx, cmd, g, db, shop)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		ui := tuiBackend(db, backend.New(db, rec, emb, backend.Options{}), others, emb)
		f, ok := ui.(tui.RepoFilter)
		if tc.want == nil {
			if ok {
				t.Errorf("%v: a repository filter over one repository", tc.args)
			}
			continue
		}
		if !ok || strings.Join(f.Repositories(), ",") != strings.Join(tc.want, ",") {
			t.Fatalf("%v: repositories %v (filter %v), want %v", tc.args, f, ok, tc.want)
		}
		resp, err := ui.Search(ctx, "refund", search.Options{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range resp.Results {
			seen[f.RepoOf(r.ID)] = true
		}
		if !seen["shop"] || !seen["ledger"] {
			t.Errorf("%v: results from %v, want shop and ledger", tc.args, seen)
		}
		// A query's repo: narrows the repositories the UI searches.
		resp, err = ui.Search(ctx, "refund repo:ledger", search.Options{Limit: 10})
		if err != nil || len(resp.Results) == 0 {
			t.Fatalf("%v: repo:ledger: %v", tc.args, err)
		}
		for _, r := range resp.Results {
			if got := f.RepoOf(r.ID); got != "ledger" {
				t.Errorf("%v: repo:ledger gave a result of %s", tc.args, got)
			}
		}
	}
	one := backend.New(db, rec, emb, backend.Options{})
	if _, err := one.Search(ctx, "refund repo:ledger", search.Options{Limit: 10}); !errors.Is(err, search.ErrFilter) ||
		!strings.Contains(err.Error(), "matches none of the repositories searched (shop)") {
		t.Errorf("repo:ledger in a UI over shop alone: %v", err)
	}
}
