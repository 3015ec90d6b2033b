package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/hooks"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/watch"
)

// TestWatchCLI: spelunk watch --json indexes the repository at start, then a
// saved file (one event line each), and exits 0 on SIGINT.
func TestWatchCLI(t *testing.T) {
	isolateGit(t)
	bin, url, repo := buildSpelunk(t), pgtest.URL(t), indextest.Repo(t)
	cmd := exec.Command(bin, "watch", "--repo", repo, "--db", url, "--json")
	cmd.Env = append(os.Environ(), "SPELUNK_EMBEDDER=hash")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // gone already, normally
	events := make(chan watchJSON)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev watchJSON
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("not a JSON line: %q", sc.Text())
				continue
			}
			events <- ev
		}
		close(events)
		exited <- cmd.Wait()
	}()
	next := func(want func(watchJSON) bool, what string) watchJSON {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("spelunk watch exited before %s", what)
				}
				if want(ev) {
					return ev
				}
			case <-deadline:
				t.Fatalf("no %s from spelunk watch", what)
			}
		}
	}
	first := next(func(ev watchJSON) bool { return ev.Event == "indexed" }, "first run")
	if first.Reason != "start" || first.Indexed == nil || *first.Indexed == 0 || first.Error != "" {
		t.Errorf("first run: %+v", first)
	}
	src := "package billing\n\nfunc Saved() {}\n"
	if err := os.WriteFile(filepath.Join(repo, "billing", "saved.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := next(func(ev watchJSON) bool { return ev.Event == "indexed" && slices.Contains(ev.Paths, "billing/saved.go") }, "run for the save")
	if ev.Indexed == nil || *ev.Indexed != 1 || ev.Revision != "working-tree" {
		t.Errorf("run for the save: %+v", ev)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range events {
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("spelunk watch after SIGINT: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("spelunk watch did not exit on SIGINT")
	}
}

// TestHooksLeaveItToTheWatcher: while a watcher leads the repository, a hook
// run does not index (it would put committed content over edited files).
func TestHooksLeaveItToTheWatcher(t *testing.T) {
	isolateGit(t)
	url := pgtest.URL(t)
	t.Setenv("SPELUNK_DATABASE_URL", url)
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	old := detachHook
	detachHook = func() {}
	t.Cleanup(func() { detachHook = old })
	repo := indextest.Repo(t)
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	ctx, cancel := context.WithCancel(context.Background())
	indexed := make(chan struct{}, 1)
	w := watch.New(db, embed.NewHashing(64), repo, watch.Options{OnEvent: func(ev watch.Event) {
		if ev.Kind == watch.Indexed {
			select {
			case indexed <- struct{}{}:
			default:
			}
		}
	}})
	stopped := make(chan error, 1)
	go func() { stopped <- w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })
	select {
	case <-indexed:
	case <-time.After(60 * time.Second):
		t.Fatal("the watcher did not index")
	}
	t.Chdir(repo)
	if code, _, errOut := spelunk(t, "hooks", "run", "--repo", repo, "post-commit"); code != 0 {
		t.Fatalf("hooks run: %d %s", code, errOut)
	}
	if got := readText(t, filepath.Join(repo, ".git", hooks.LogFile)); !strings.Contains(got, "skipped: spelunk watch follows") {
		t.Errorf("hook log: %s", got)
	}
}
