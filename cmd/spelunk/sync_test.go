package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// syncCLI runs the memory and sync commands in-process with the global flags,
// the cache ones included.
func syncCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	g := &globals{}
	root := &cobra.Command{Use: "spelunk", SilenceUsage: true, SilenceErrors: true}
	pf := root.PersistentFlags()
	pf.StringVar(&g.db, "db", "", "")
	pf.StringVar(&g.repo, "repo", "", "")
	pf.StringVar(&g.tenant, "tenant", "default", "")
	pf.BoolVar(&g.json, "json", false, "")
	pf.StringVar(&g.cache, "cache", "", "")
	pf.BoolVar(&g.offline, "offline", false, "")
	g.embed.register(pf)
	root.AddCommand(newMemoryCmds(g)...)
	root.AddCommand(newSyncCmd(g))
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs(args)
	code := 0
	if err := root.ExecuteContext(context.Background()); err != nil {
		stderr.WriteString("spelunk: " + err.Error() + "\n")
		code = 1
	}
	return code, stdout.String(), stderr.String()
}

func TestSyncCLI(t *testing.T) {
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	cache := filepath.Join(t.TempDir(), "memory.db")
	base := []string{"--db", pgtest.URL(t), "--repo", t.TempDir(), "--cache", cache}
	run := func(t *testing.T, args ...string) string {
		t.Helper()
		code, out, errOut := syncCLI(t, append(append([]string{}, base...), args...)...)
		if code != 0 {
			t.Fatalf("spelunk %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	run(t, "nugget", "set", "deploy.cmd", "make deploy")
	run(t, "memory", "add", "--kind", "fact", "--author", "agent:t", "The staging database is db-stage-2")

	var r struct {
		Queued    int    `json:"queued"`
		Watermark string `json:"watermark"`
		LastError string `json:"last_error"`
		Pulled    int    `json:"pulled"`
		Pushed    int    `json:"pushed"`
	}
	if err := json.Unmarshal([]byte(run(t, "sync", "now", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Pulled < 2 || r.Queued != 0 || r.LastError != "" {
		t.Errorf("sync now = %+v, want the nugget and the memory pulled, nothing queued", r)
	}
	var b struct {
		Memories []struct{ Content string } `json:"memories"`
		Nuggets  []struct{ Key string }     `json:"nuggets"`
	}
	if err := json.Unmarshal([]byte(run(t, "--offline", "briefing", "--json")), &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Memories) != 1 || len(b.Nuggets) != 1 || b.Nuggets[0].Key != "deploy.cmd" {
		t.Errorf("offline briefing = %+v, want the memory and the nugget", b)
	}
	var st struct {
		Cache     string `json:"cache"`
		Watermark string `json:"watermark"`
	}
	if err := json.Unmarshal([]byte(run(t, "sync", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Cache != cache || st.Watermark != r.Watermark || st.Watermark == "" {
		t.Errorf("sync status = %+v, want %s with watermark %s", st, cache, r.Watermark)
	}
	if out := run(t, "--offline", "conflicts", "list", "--status", "all"); out != "" {
		t.Errorf("cached conflicts = %q, want none", out)
	}
	if out := run(t, "--cache", "off", "briefing"); !bytes.Contains([]byte(out), []byte("deploy.cmd")) {
		t.Errorf("briefing without a cache:\n%s", out)
	}

	// The core unreachable: writes are queued, reads served, sync now fails and
	// says how many writes wait.
	down := append(append([]string{}, base...), "--db", "postgres://spelunk@127.0.0.1:1/none?connect_timeout=1")
	for _, args := range [][]string{{"nugget", "set", "owner", "ann"}, {"memory", "add", "--kind", "episode", "--author", "agent:t", "Tried the flaky test again"}} {
		if code, _, errOut := syncCLI(t, append(append([]string{}, down...), args...)...); code != 0 {
			t.Fatalf("offline %v: exit %d: %s", args, code, errOut)
		}
	}
	if code, out, _ := syncCLI(t, append(append([]string{}, down...), "nugget", "get", "owner")...); code != 0 || out != "ann\n" {
		t.Errorf("offline nugget get = %d %q, want ann", code, out)
	}
	code, out, _ := syncCLI(t, append(append([]string{}, down...), "sync", "now", "--json")...)
	if err := json.Unmarshal([]byte(out), &r); err != nil || code == 0 || r.Queued != 2 {
		t.Errorf("sync now with the core down: exit %d, %+v (%v); want an error and 2 queued", code, r, err)
	}
	if err := json.Unmarshal([]byte(run(t, "sync", "now", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Pushed != 2 || r.Queued != 0 {
		t.Errorf("sync now with the core back = %+v, want 2 pushed, none queued", r)
	}
	if out := run(t, "--cache", "off", "nugget", "get", "owner"); out != "ann\n" {
		t.Errorf("core's nugget owner = %q, want ann", out)
	}
}

// TestSyncWithoutCache: with no cache configured, sync says why, and does not
// blame an --offline that was never given.
func TestSyncWithoutCache(t *testing.T) {
	repo := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sync", "status", "--cache", "off", "--db", "postgres://x@127.0.0.1:1/x"}, "--cache off disables it"},
		{[]string{"sync", "now", "--cache", "off", "--db", "postgres://x@127.0.0.1:1/x"}, "--cache off disables it"},
		{[]string{"sync", "status"}, "the embedded cluster needs none"},
	} {
		code, _, errOut := syncCLI(t, append([]string{"--repo", repo}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "--offline") {
			t.Errorf("spelunk %v: exit %d, %q; want an error saying %q", tc.args, code, errOut, tc.want)
		}
	}
}
