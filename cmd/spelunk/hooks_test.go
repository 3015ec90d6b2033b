package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/hooks"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// isolateGit keeps the machine's git configuration out: a global
// core.hooksPath would have the tests write hooks into it.
func isolateGit(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func hooksReport(t *testing.T, out string) hooks.Report {
	t.Helper()
	var rep hooks.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("hooks --json: %v\n%s", err, out)
	}
	return rep
}

func TestHooksCLI(t *testing.T) {
	isolateGit(t)
	repo := indextest.Repo(t)
	hooksDir := filepath.Join(repo, ".git", "hooks")
	code, out, errOut := spelunk(t, "hooks", "status", "--repo", repo, "--json")
	if code != 0 {
		t.Fatalf("hooks status: %d %s", code, errOut)
	}
	rep := hooksReport(t, out)
	if rep.Dir != hooksDir || len(rep.Hooks) != 4 {
		t.Fatalf("hooks status --json: %s", out)
	}
	for _, h := range rep.Hooks {
		if h.State != hooks.NotInstalled {
			t.Errorf("%s: %s before install", h.Name, h.State)
		}
	}

	python := "#!/usr/bin/env python3\nprint('checked out')\n"
	if err := os.WriteFile(filepath.Join(hooksDir, "post-checkout"), []byte(python), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fake, calls := filepath.Join(dir, "spelunk"), filepath.Join(dir, "calls")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$*\" >> '"+calls+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A hook spelunk cannot chain into fails the install (exit 1); the others
	// are installed all the same.
	code, out, errOut = spelunk(t, "hooks", "install", "--repo", repo, "--binary", fake, "--embedder", "hash")
	if code != 1 || !strings.Contains(errOut, "left alone") || !strings.Contains(errOut, "python3") ||
		!strings.Contains(out, "post-commit    created") || !strings.Contains(errOut, "to chain post-checkout by hand") {
		t.Fatalf("hooks install beside a python hook: %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = spelunk(t, "hooks", "status", "--repo", repo)
	if code != 0 || strings.Count(out, " installed") != 3 || !strings.Contains(out, "post-checkout  foreign hook present, a python3 script") {
		t.Errorf("hooks status: %d\n%s", code, out)
	}

	indextest.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "empty")
	waitForFile(t, calls)
	if got, want := strings.TrimSpace(readText(t, calls)), "hooks run --repo "+repo+" --embedder=hash post-commit --"; got != want {
		t.Errorf("the hook ran %q, want %q", got, want)
	}

	code, out, errOut = spelunk(t, "hooks", "uninstall", "--repo", repo, "--json")
	if code != 0 {
		t.Fatalf("hooks uninstall: %d %s", code, errOut)
	}
	for _, h := range hooksReport(t, out).Hooks {
		if want := map[bool]string{true: "none", false: "removed"}[h.Name == "post-checkout"]; h.Action != want {
			t.Errorf("uninstall %s: %s, want %s", h.Name, h.Action, want)
		}
	}
	if got := readText(t, filepath.Join(hooksDir, "post-checkout")); got != python {
		t.Errorf("the python hook changed: %q", got)
	}
}

func TestHooksCLIUsage(t *testing.T) {
	isolateGit(t)
	repo := indextest.Repo(t)
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"hooks", "frob"}, 2, "unknown hooks command"},
		{[]string{"hooks", "install", "extra", "--repo", repo}, 2, "takes no arguments"},
		{[]string{"hooks", "install", "--repo", repo, "--binary", "no/such/spelunk"}, 2, "--binary"},
		{[]string{"hooks", "install", "--repo", repo, "--embed-url", "https://me:secret@example.com/v1"}, 2, "credentials"},
		{[]string{"hooks", "run"}, 2, "hook's name"},
		{[]string{"hooks", "run", "pre-commit"}, 2, "unknown hook"},
		{[]string{"hooks", "status", "--repo", t.TempDir()}, 1, "not a git working tree"},
	}
	for _, tt := range tests {
		code, _, errOut := spelunk(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.contains) {
			t.Errorf("spelunk %v: exit %d %q, want %d containing %q", tt.args, code, errOut, tt.code, tt.contains)
		}
	}
	// By default the hooks run this very binary.
	bin, err := hookBinary("")
	exe, _ := os.Executable()
	if err != nil || !sameFile(bin, exe) || !filepath.IsAbs(bin) {
		t.Errorf("default binary %q (%v), want %s", bin, err, exe)
	}
}

// TestHooksRunIndexes runs what an installed hook starts, in-process, in the
// working tree git would run it in.
func TestHooksRunIndexes(t *testing.T) {
	isolateGit(t)
	t.Setenv("SPELUNK_DATABASE_URL", pgtest.URL(t))
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	old := detachHook
	detachHook = func() {} // the test process keeps its session
	t.Cleanup(func() { detachHook = old })
	repo := indextest.Repo(t)
	log := filepath.Join(repo, ".git", hooks.LogFile)

	t.Chdir(repo)
	if code, _, errOut := spelunk(t, "hooks", "run", "--repo", repo, "post-commit"); code != 0 {
		t.Fatalf("hooks run: %d %s", code, errOut)
	}
	if got := readText(t, log); !strings.Contains(got, "post-commit "+repo+": at ") || !strings.Contains(got, "files indexed") {
		t.Fatalf("hook log: %s", got)
	}
	if code, out, errOut := spelunk(t, "status", "--repo", repo); code != 0 || !strings.Contains(out, "fresh") {
		t.Fatalf("status after the hook's run: %d %s %s", code, out, errOut)
	}
	head := indextest.Git(t, repo, "rev-parse", "HEAD")
	if code, _, _ := spelunk(t, "hooks", "run", "--repo", repo, "post-checkout", "--", head, head, "0"); code != 0 {
		t.Fatal("hooks run post-checkout failed")
	}
	if got := readText(t, log); !strings.Contains(got, "skipped: a checkout of files") {
		t.Errorf("hook log after a checkout of files: %s", got)
	}

	// A linked worktree shares the hooks but was never indexed: left alone.
	wt := filepath.Join(t.TempDir(), "wt")
	indextest.Git(t, repo, "worktree", "add", "-q", "-b", "wt", wt)
	wt, _ = filepath.EvalSymlinks(wt)
	t.Chdir(wt)
	if code, _, errOut := spelunk(t, "hooks", "run", "--repo", repo, "post-commit"); code != 0 {
		t.Fatalf("hooks run in a worktree: %d %s", code, errOut)
	}
	wtLog := filepath.Join(repo, ".git", "worktrees", "wt", hooks.LogFile)
	if got := readText(t, wtLog); !strings.Contains(got, "skipped: not indexed yet") {
		t.Errorf("worktree hook log: %s", got)
	}
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitForFile waits, generously, for the background run to write p.
func waitForFile(t *testing.T, p string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", p)
}
