package hooks

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookRoundTripLeavesForeignHooksByteIdentical(t *testing.T) {
	repo := newRepo(t)
	dir := filepath.Join(repo, ".git", "hooks")
	// Odd on purpose: no final newline, CRLF inside, unusual modes.
	writeFile(t, filepath.Join(dir, "post-commit"), "#!/bin/sh\n# mine\r\nset -e\necho \"mine $1\" >> ../out\nexit 0", 0o750)
	writeFile(t, filepath.Join(dir, "post-rewrite"), "#!/usr/bin/env bash\n\ncat >/dev/null\n", 0o700)
	before := snapshot(t, dir)
	bin, _ := fakeSpelunk(t)

	rep := install(t, repo, bin)
	want := map[string]string{"post-commit": "chained", "post-merge": "created", "post-checkout": "created", "post-rewrite": "chained"}
	for _, h := range rep.Hooks {
		if h.Action != want[h.Name] || h.State != Installed || h.Binary != bin {
			t.Errorf("%s: %+v, want action %s, installed, binary %s", h.Name, h, want[h.Name], bin)
		}
		if h.Chained != (want[h.Name] == "chained") {
			t.Errorf("%s: chained %v", h.Name, h.Chained)
		}
		fi, err := os.Stat(h.Path)
		if err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s is not executable: %v %v", h.Name, fi.Mode(), err)
		}
	}
	if got := readFile(t, filepath.Join(dir, "post-commit")); !strings.HasPrefix(got, "#!/bin/sh\n"+beginMarker+"\n") ||
		!strings.HasSuffix(got, endMarker+"\n# mine\r\nset -e\necho \"mine $1\" >> ../out\nexit 0") {
		t.Errorf("the block is not right after the #! line:\n%s", got)
	}

	rep = uninstall(t, repo)
	want = map[string]string{"post-commit": "unchained", "post-merge": "removed", "post-checkout": "removed", "post-rewrite": "unchained"}
	for _, h := range rep.Hooks {
		if h.Action != want[h.Name] {
			t.Errorf("uninstall %s: action %s, want %s", h.Name, h.Action, want[h.Name])
		}
	}
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		t.Errorf("hooks dir after install and uninstall:\n%v\nwant\n%v", after, before)
	}
}

func TestHookInstallIsIdempotent(t *testing.T) {
	repo := newRepo(t)
	dir := filepath.Join(repo, ".git", "hooks")
	writeFile(t, filepath.Join(dir, "post-merge"), "#!/bin/sh\necho merged\n", 0o755)
	bin, _ := fakeSpelunk(t)
	install(t, repo, bin)
	once := snapshot(t, dir)
	rep := install(t, repo, bin)
	for _, h := range rep.Hooks {
		if h.Action != "unchanged" {
			t.Errorf("second install of %s: %s, want unchanged", h.Name, h.Action)
		}
	}
	if twice := snapshot(t, dir); !maps.Equal(once, twice) {
		t.Errorf("installing twice differs from once:\n%v\n%v", twice, once)
	}
	if n := strings.Count(readFile(t, filepath.Join(dir, "post-merge")), beginMarker); n != 1 {
		t.Errorf("post-merge holds %d blocks", n)
	}

	// Another binary replaces the block in place; uninstall still restores.
	other, _ := fakeSpelunk(t)
	rep = install(t, repo, other)
	if h := rep.Hooks[1]; h.Action != "updated" || h.Binary != other || !h.Chained {
		t.Errorf("reinstall with another binary: %+v", h)
	}
	uninstall(t, repo)
	if got := readFile(t, filepath.Join(dir, "post-merge")); got != "#!/bin/sh\necho merged\n" {
		t.Errorf("post-merge after uninstall: %q", got)
	}
}

func TestHookHooksPathAndWorktrees(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "shared-hooks") // does not exist yet
	tests := []struct {
		name      string
		hooksPath string
		worktree  bool // install and commit in a linked worktree
		wantDir   func(repo, wt string) string
		inTree    bool
	}{
		{"default", "", false, func(repo, _ string) string { return filepath.Join(repo, ".git", "hooks") }, false},
		{"absolute", outside, false, func(string, string) string { return outside }, false},
		{"relative", ".githooks", false, func(repo, _ string) string { return filepath.Join(repo, ".githooks") }, true},
		{"worktree", "", true, func(repo, _ string) string { return filepath.Join(repo, ".git", "hooks") }, false},
		// A relative path is relative to the working tree the hook runs in.
		{"worktree relative", ".githooks", true, func(_, wt string) string { return filepath.Join(wt, ".githooks") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newRepo(t)
			if tt.hooksPath != "" {
				git(t, repo, "config", "core.hooksPath", tt.hooksPath)
			}
			root := repo
			if tt.worktree {
				root = filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-wt")
				git(t, repo, "worktree", "add", "-q", "-b", "wt", root)
				t.Cleanup(func() { os.RemoveAll(root) })
			}
			sub := filepath.Join(root, "sub", "dir") // install from below the top level
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			bin, calls := fakeSpelunk(t)
			rep := install(t, sub, bin)
			if want := tt.wantDir(repo, root); rep.Dir != want || rep.Root != root || rep.InWorkTree != tt.inTree {
				t.Fatalf("installed into %s for %s (in work tree %v), want %s for %s (%v)", rep.Dir, rep.Root, rep.InWorkTree, want, root, tt.inTree)
			}
			if tt.hooksPath != "" {
				if _, err := os.Stat(filepath.Join(repo, ".git", "hooks", "post-commit")); err == nil {
					t.Errorf("a hook was written to .git/hooks despite core.hooksPath")
				}
			}
			if tt.worktree && !strings.Contains(rep.GitDir, filepath.Join(".git", "worktrees")) {
				t.Errorf("git dir of a worktree: %s", rep.GitDir)
			}
			commitFile(t, root, "b.txt", "b\n") // git itself must find and run the hook
			waitFor(t, "the hook to start spelunk", func() bool { return len(lines(calls)) > 0 })
			if got, want := lines(calls)[0], root+" hooks run --repo "+root+" post-commit --"; got != want {
				t.Errorf("the hook ran %q, want %q", got, want)
			}
		})
	}
}

func TestHookPassesInputArgumentsAndExitStatusThrough(t *testing.T) {
	repo := newRepo(t)
	dir := filepath.Join(repo, ".git", "hooks")
	out := t.TempDir()
	// post-rewrite gets the rewritten commits on standard input.
	writeFile(t, filepath.Join(dir, "post-rewrite"), "#!/bin/sh\necho \"$@\" > '"+out+"/args'\ncat > '"+out+"/stdin'\n", 0o755)
	// post-checkout's exit status becomes git checkout's.
	writeFile(t, filepath.Join(dir, "post-checkout"), "#!/bin/sh\nexit 3\n", 0o755)
	bin, calls := fakeSpelunk(t)
	install(t, repo, bin)

	old := git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "commit", "-q", "--amend", "-m", "amended")
	now := git(t, repo, "rev-parse", "HEAD")
	if got := readFile(t, filepath.Join(out, "args")); got != "amend\n" {
		t.Errorf("post-rewrite arguments: %q", got)
	}
	if got, want := readFile(t, filepath.Join(out, "stdin")), old+" "+now+"\n"; got != want {
		t.Errorf("post-rewrite standard input: %q, want %q", got, want)
	}
	// git turns a failing post-checkout into its own failure: the same with
	// the block as in a repository without it.
	control := newRepo(t)
	writeFile(t, filepath.Join(control, ".git", "hooks", "post-checkout"), "#!/bin/sh\nexit 3\n", 0o755)
	_, want := gitErr(control, "checkout", "-q", "-b", "other")
	_, err := gitErr(repo, "checkout", "-q", "-b", "other")
	var got, wantExit *exec.ExitError
	if !errors.As(err, &got) || !errors.As(want, &wantExit) || got.ExitCode() != wantExit.ExitCode() {
		t.Errorf("git checkout with a post-checkout hook exiting 3: %v, without spelunk %v", err, want)
	}
	waitFor(t, "three runs", func() bool { return len(lines(calls)) == 3 })
	for _, want := range []string{"post-commit --", "post-rewrite -- amend", "post-checkout -- " + now + " " + now + " 1"} {
		if !strings.Contains(strings.Join(lines(calls), "\n"), want) {
			t.Errorf("no run with %q in %q", want, lines(calls))
		}
	}
}

// TestHookDetaches has git commit while the (fake) spelunk the hook starts is
// still running: it only ends once the test lets it, after git returned. A
// hook that waited for it would hold git until gitErr's deadline. No timing is
// asserted; CombinedOutput returning also shows the run does not hold git's
// output open.
func TestHookDetaches(t *testing.T) {
	repo := newRepo(t)
	tmp := t.TempDir()
	release, marker := filepath.Join(tmp, "release"), filepath.Join(tmp, "marker")
	bin := filepath.Join(tmp, "spelunk")
	writeFile(t, bin, "#!/bin/sh\ni=0\nwhile [ ! -e '"+release+"' ] && [ $i -lt 120 ]; do sleep 1; i=$((i+1)); done\ntouch '"+marker+"'\n", 0o755)
	install(t, repo, bin)

	writeFile(t, filepath.Join(repo, "b.txt"), "b\n", 0o644)
	git(t, repo, "add", "b.txt")
	if out, err := gitErr(repo, "commit", "-q", "-m", "b"); err != nil {
		t.Fatalf("git commit did not return while the hook's run went on: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the run finished before git returned")
	}
	writeFile(t, release, "", 0o644)
	waitFor(t, "the background run to finish", func() bool { _, err := os.Stat(marker); return err == nil })
}

func TestHookLeavesWhatItCannotChainAlone(t *testing.T) {
	tests := []struct {
		name, content string
		mode          os.FileMode
		symlink       bool
		refused       string
	}{
		{"python", "#!/usr/bin/env python3\nprint('hi')\n", 0o755, false, "a python3 script"},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00", 0o755, false, "a binary"},
		{"no shebang", "echo hi\n", 0o755, false, "no #! line"},
		{"disabled", "#!/bin/sh\necho hi\n", 0o644, false, "not executable"},
		{"symlink", "#!/bin/sh\necho tracked\n", 0o755, true, "a symlink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newRepo(t)
			p := filepath.Join(repo, ".git", "hooks", "post-checkout")
			if tt.symlink {
				writeFile(t, filepath.Join(repo, "scripts", "post-checkout"), tt.content, tt.mode)
				if err := os.Symlink("../../scripts/post-checkout", p); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, p, tt.content, tt.mode)
			}
			dir := filepath.Join(repo, ".git", "hooks")
			before := snapshot(t, dir)
			bin, _ := fakeSpelunk(t)
			rep, err := Install(context.Background(), repo, Options{Binary: bin})
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), p) {
				t.Fatalf("install: %v, want ErrRefused naming %s", err, p)
			}
			for _, h := range rep.Hooks {
				if h.Name == "post-checkout" {
					if h.Action != "refused" || h.State != Foreign || !strings.Contains(h.Refused, tt.refused) {
						t.Errorf("post-checkout: %+v, want refused with %q", h, tt.refused)
					}
				} else if h.State != Installed {
					t.Errorf("%s was not installed beside the refused hook: %+v", h.Name, h)
				}
			}
			if got := readFile(t, p); got != tt.content {
				t.Errorf("the refused hook changed: %q", got)
			}
			uninstall(t, repo)
			if after := snapshot(t, dir); !maps.Equal(before, after) {
				t.Errorf("hooks dir after install and uninstall:\n%v\nwant\n%v", after, before)
			}
		})
	}
}

func TestHookWithoutItsBinaryDoesNothing(t *testing.T) {
	repo := newRepo(t)
	bin, calls := fakeSpelunk(t)
	install(t, repo, bin)
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	commitFile(t, repo, "b.txt", "b\n")
	if out, err := gitErr(repo, "checkout", "-q", "-b", "other"); err != nil {
		t.Errorf("git checkout with the binary gone: %v\n%s", err, out)
	}
	rep, err := Status(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range rep.Hooks {
		if h.State != Installed || !h.BinaryMissing {
			t.Errorf("%s: %+v, want installed with the binary missing", h.Name, h)
		}
	}
	if got := lines(calls); got != nil {
		t.Errorf("something ran: %q", got)
	}
}

func TestHookOddBinaryPathAndUserAdditions(t *testing.T) {
	repo := newRepo(t)
	dir := filepath.Join(t.TempDir(), "it's a $dir")
	calls := filepath.Join(dir, "calls")
	bin := filepath.Join(dir, "spel unk")
	writeFile(t, bin, "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/calls\"\n", 0o755)
	install(t, repo, bin)
	rep, err := Status(context.Background(), repo)
	if err != nil || rep.Hooks[0].Binary != bin || rep.Hooks[0].BinaryMissing {
		t.Fatalf("status: %v %+v", err, rep.Hooks)
	}
	commitFile(t, repo, "b.txt", "b\n")
	waitFor(t, "the run", func() bool { return len(lines(calls)) == 1 })

	// A line the user added to a hook spelunk created keeps the file.
	p := filepath.Join(repo, ".git", "hooks", "post-merge")
	writeFile(t, p, readFile(t, p)+"echo mine\n", 0o755)
	rep = uninstall(t, repo)
	if h := rep.Hooks[1]; h.Action != "unchained" || h.State != Foreign {
		t.Errorf("uninstall post-merge: %+v", h)
	}
	if got := readFile(t, p); got != createdHeader+"echo mine\n" {
		t.Errorf("post-merge after uninstall: %q", got)
	}
}

func TestHookDamagedBlockIsAnError(t *testing.T) {
	repo := newRepo(t)
	p := filepath.Join(repo, ".git", "hooks", "post-commit")
	writeFile(t, p, "#!/bin/sh\n"+beginMarker+"\necho half\n", 0o755)
	if _, err := Status(context.Background(), repo); err == nil || !strings.Contains(err.Error(), "end marker") {
		t.Errorf("status of a block without its end: %v", err)
	}
	if _, err := Uninstall(context.Background(), repo); err == nil {
		t.Error("uninstall of a damaged block did not fail")
	}
	if got := readFile(t, p); got != "#!/bin/sh\n"+beginMarker+"\necho half\n" {
		t.Errorf("the damaged hook changed: %q", got)
	}
}

func TestHookLocateOutsideGit(t *testing.T) {
	if _, err := Locate(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a git working tree") {
		t.Errorf("locate outside git: %v", err)
	}
	if _, err := Install(context.Background(), t.TempDir(), Options{Binary: "spelunk"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("install with a relative binary: %v", err)
	}
}

func TestHookInterpreter(t *testing.T) {
	tests := []struct{ content, want string }{
		{"#!/bin/sh\n", "sh"},
		{"#! /bin/bash -e\n", "bash"},
		{"#!/usr/bin/env bash\n", "bash"},
		{"#!/usr/bin/env -S LC_ALL=C zsh -f\n", "zsh"},
		{"#!/usr/bin/env python3\n", "python3"},
		{"#!\n", ""},
		{"echo\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := interpreter([]byte(tt.content)); got != tt.want {
			t.Errorf("interpreter(%q) = %q, want %q", tt.content, got, tt.want)
		}
	}
}

// TestHookRoundTripUnderHooksPath: with core.hooksPath naming a shared
// directory that already holds hooks, install chains them there (git runs
// both the old hook and spelunk), .git/hooks is never touched, and uninstall
// leaves the shared directory byte-identical.
func TestHookRoundTripUnderHooksPath(t *testing.T) {
	repo := newRepo(t)
	git(t, repo, "config", "core.hooksPath", ".githooks")
	shared, local := filepath.Join(repo, ".githooks"), filepath.Join(repo, ".git", "hooks")
	marker := filepath.Join(t.TempDir(), "theirs")
	writeFile(t, filepath.Join(shared, "post-commit"), "#!/bin/sh\necho \"theirs $*\" >> '"+marker+"'\n", 0o755)
	writeFile(t, filepath.Join(shared, "pre-commit"), "#!/bin/sh\nexit 0\n", 0o755)
	before, localBefore := snapshot(t, shared), snapshot(t, local)
	bin, calls := fakeSpelunk(t)

	rep := install(t, repo, bin)
	if rep.Dir != shared {
		t.Fatalf("installed into %s, want core.hooksPath %s", rep.Dir, shared)
	}
	commitFile(t, repo, "c.txt", "c\n")
	waitFor(t, "spelunk started by the hook", func() bool { return len(lines(calls)) > 0 })
	if got := lines(marker); len(got) != 1 || got[0] != "theirs " {
		t.Errorf("the chained hook ran %q, want once with no arguments", got)
	}

	uninstall(t, repo)
	if after := snapshot(t, shared); !maps.Equal(before, after) {
		t.Errorf("core.hooksPath after install and uninstall:\n%v\nwant\n%v", after, before)
	}
	if after := snapshot(t, local); !maps.Equal(localBefore, after) {
		t.Errorf(".git/hooks changed although core.hooksPath is set:\n%v\nwant\n%v", after, localBefore)
	}
	commitFile(t, repo, "d.txt", "d\n")
	if got := lines(marker); len(got) != 2 {
		t.Errorf("after uninstall the shared hook ran %d times in all, want 2", len(got))
	}
}
