package source

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDirtyCorruptIndex: a git status that fails is an error, not "clean".
func TestDirtyCorruptIndex(t *testing.T) {
	dir := newRepo(t, map[string]string{"a.go": "package a\n"}, true)
	r := openT(t, dir)
	index := filepath.Join(dir, ".git", "index")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(index, data[:20], 0o644); err != nil {
		t.Fatal(err)
	}
	dirty, err := r.Dirty(context.Background())
	if err == nil {
		t.Fatalf("Dirty with a corrupt index = %v, nil; want an error", dirty)
	}
	if !strings.Contains(err.Error(), "cannot tell whether") || !strings.Contains(err.Error(), "index") {
		t.Errorf("error %q does not say what failed", err)
	}
}

// TestDirtyUnreadableDirectory: git status exits 0 with a warning and no
// output when it cannot open a directory; untracked files may hide there,
// so that is not "clean". Root reads everything: the test needs a user.
func TestDirtyUnreadableDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs Unix permissions")
	}
	if os.Getuid() == 0 {
		runAsNobody(t, "TestDirtyUnreadableDirectory")
		return
	}
	dir := newRepo(t, map[string]string{"a.go": "package a\n"}, true)
	writeFiles(t, dir, map[string]string{"secret/new.go": "package s\n"})
	secret := filepath.Join(dir, "secret")
	if err := os.Chmod(secret, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(secret, 0o755) })
	r := openT(t, dir)
	dirty, err := r.Dirty(context.Background())
	if err == nil {
		t.Fatalf("Dirty with an unreadable directory = %v, nil; want an error", dirty)
	}
	if !strings.Contains(err.Error(), "could not open directory") {
		t.Errorf("error %q does not name the directory problem", err)
	}
}

// TestIncompleteStatus: which warnings of a successful git status void a
// clean answer.
func TestIncompleteStatus(t *testing.T) {
	for stderr, bad := range map[string]bool{
		"": false,
		"warning: in the working copy of 'a.txt', LF will be replaced by CRLF the next time Git touches it": false,
		"warning: could not open directory 'secret/': Permission denied":                                    true,
		"error: open(\"x\"): Permission denied":                                                             true,
	} {
		if got := incompleteStatus(stderr) != ""; got != bad {
			t.Errorf("incompleteStatus(%q) reports %v, want %v", stderr, got, bad)
		}
	}
}

// runAsNobody runs test again in a copy of the test binary as the user nobody
// (setpriv), for what root cannot observe: root reads every directory. CI runs
// as root, so this is how the test runs there.
func runAsNobody(t *testing.T, test string) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		skipUnlessCI(t, "running as root without setpriv to become another user")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "spelunk-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "source.test")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(bin, data, 0o755); err != nil || os.Mkdir(tmp, 0o777) != nil ||
		os.Chmod(dir, 0o755) != nil || os.Chmod(tmp, 0o777) != nil {
		t.Fatalf("prepare a copy of the test binary for nobody: %v", err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		bin, "-test.run", "^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "HOME="+tmp, "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
}
