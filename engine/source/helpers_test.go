package source

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// Keep the machine's git configuration (excludes files, hooks, signing)
	// out of the tests; the package inherits this environment.
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Exit(m.Run())
}

// gitT runs git in dir with a fixed identity and fails the test on error.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	full := append([]string{
		"-c", "user.name=Spelunk Test", "-c", "user.email=test@spelunk.invalid",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
		"-c", "protocol.file.allow=always", "-c", "core.autocrlf=false", "-c", "gc.auto=0",
	}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles creates files (path -> content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newRepo creates a git repository holding files, committed when commit is true.
func newRepo(t testing.TB, files map[string]string, commit bool) string {
	t.Helper()
	dir := realTempDir(t)
	gitT(t, dir, "init", "-q")
	writeFiles(t, dir, files)
	if commit {
		gitT(t, dir, "add", "-A")
		gitT(t, dir, "commit", "-q", "-m", "initial")
	}
	return dir
}

func realTempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func openT(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func byPath(files []File) map[string]File {
	m := make(map[string]File, len(files))
	for _, f := range files {
		m[f.Path] = f
	}
	return m
}

func paths(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}
