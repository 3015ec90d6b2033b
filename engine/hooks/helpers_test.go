package hooks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain keeps the tests' git away from the machine's configuration: a
// global core.hooksPath, say, would send every hook of these repositories
// elsewhere.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "spelunk", "GIT_AUTHOR_EMAIL": "spelunk@example.com",
		"GIT_COMMITTER_NAME": "spelunk", "GIT_COMMITTER_EMAIL": "spelunk@example.com",
	} {
		os.Setenv(k, v)
	}
	os.Exit(m.Run())
}

// git runs git in dir and returns its trimmed output. The deadline is only a
// guard against a hook that never lets git return.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func gitErr(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	// A background process holding git's output open would keep
	// CombinedOutput waiting after git exits; this bounds that wait too.
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// newRepo is a git repository with one commit, its root with symlinks resolved.
func newRepo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	commitFile(t, dir, "a.txt", "a\n")
	return dir
}

// commitFile writes name and commits it.
func commitFile(t *testing.T, dir, name, content string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, name), content, 0o644)
	git(t, dir, "add", name)
	git(t, dir, "commit", "-q", "-m", "add "+name)
}

func writeFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is subject to the umask
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeSpelunk is a stand-in for the spelunk binary: each start appends its
// arguments and working directory to calls.
func fakeSpelunk(t *testing.T) (bin, calls string) {
	t.Helper()
	dir := t.TempDir()
	bin, calls = filepath.Join(dir, "spelunk"), filepath.Join(dir, "calls")
	writeFile(t, bin, "#!/bin/sh\necho \"$PWD $*\" >> '"+calls+"'\n", 0o755)
	return bin, calls
}

// waitFor polls cond until it holds, failing after a generous deadline: the
// background runs take milliseconds, but a loaded machine may be slow.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lines is the content of p split into lines, none when it does not exist.
func lines(p string) []string {
	b, err := os.ReadFile(p)
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

func install(t *testing.T, dir, bin string) Report {
	t.Helper()
	rep, err := Install(context.Background(), dir, Options{Binary: bin})
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	return rep
}

func uninstall(t *testing.T, dir string) Report {
	t.Helper()
	rep, err := Uninstall(context.Background(), dir)
	if err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	return rep
}

// snapshot is every file in dir: name -> mode and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		content := ""
		if fi.Mode().IsRegular() {
			content = readFile(t, filepath.Join(dir, e.Name()))
		}
		out[e.Name()] = fi.Mode().String() + "\n" + content
	}
	return out
}
