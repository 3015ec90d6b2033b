package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

func TestServeUsage(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		env  string
		args []string
		want string
	}{
		{"x", []string{"serve"}, "give --webhook ADDR"},
		{"x", []string{"serve", "--webhook", "8080"}, "want HOST:PORT"},
		{"", []string{"serve", "--webhook", ":0"}, "no webhook secret"},
		{"x", []string{"serve", "--webhook", ":0", "--webhook-secret-file", secretFile}, "given twice"},
		{"x", []string{"serve", "--webhook", ":0", "--job-timeout", "0s"}, "--job-timeout must be positive"},
	}
	for _, c := range cases {
		t.Setenv("SPELUNK_WEBHOOK_SECRET", c.env)
		code, _, errOut := spelunk(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("spelunk %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

func TestWebhookSecretFile(t *testing.T) {
	t.Setenv("SPELUNK_WEBHOOK_SECRET", "")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got, err := webhookSecret(write("nl", "s3cret\r\n")); err != nil || string(got) != "s3cret" {
		t.Errorf("secret %q, %v; want s3cret without the newline", got, err)
	}
	if _, err := webhookSecret(write("empty", "\n")); err == nil {
		t.Error("an empty secret file was accepted")
	}
	if _, err := webhookSecret(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing secret file was accepted")
	}
}

// spelunk serve end to end: a signed push is indexed, and a cancelled context
// (what SIGINT/SIGTERM do) shuts the server down cleanly with exit 0.
func TestServeIndexesAPushAndShutsDown(t *testing.T) {
	url := pgtest.URL(t)
	t.Setenv("SPELUNK_DATABASE_URL", url)
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	t.Setenv("SPELUNK_WEBHOOK_SECRET", "team secret")
	base := t.TempDir()
	remote, dev, dir := filepath.Join(base, "shared.git"), filepath.Join(base, "dev"), filepath.Join(base, "server")
	indextest.Git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	indextest.Git(t, base, "init", "-q", "-b", "main", dev)
	write := func(body string) string {
		if err := os.WriteFile(filepath.Join(dev, "pay.go"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		indextest.Git(t, dev, "add", "-A")
		indextest.Git(t, dev, "commit", "-q", "-m", "pay")
		indextest.Git(t, dev, "push", "-q", "origin", "main")
		return indextest.Git(t, dev, "rev-parse", "HEAD")
	}
	indextest.Git(t, dev, "remote", "add", "origin", remote)
	write("package pay\n\nfunc Charge() {}\n")
	indextest.Git(t, base, "clone", "-q", remote, dir)
	dir, _ = filepath.EvalSymlinks(dir)

	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--webhook", addr, "--repo", dir}) }()
	waitUntil(t, "the server to listen", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})

	after := write("package pay\n\nfunc Charge() {}\n\n// Refund gives the money back.\nfunc Refund() {}\n")
	body := fmt.Appendf(nil, `{"ref":"refs/heads/main","after":%q,"repository":{"full_name":"acme/pay"}}`, after)
	mac := hmac.New(sha256.New, []byte("team secret"))
	mac.Write(body)
	req, _ := http.NewRequest("POST", "http://"+addr+"/webhook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", "cli-1")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d, want 202", resp.StatusCode)
	}
	db := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	waitUntil(t, "Refund to be indexed", func() bool {
		rec, err := db.RepositoryByRoot(context.Background(), dir)
		if err != nil {
			return false
		}
		got, _ := symbols.Find(context.Background(), db, rec.ID, "Refund", "")
		return len(got) == 1 && rec.LastCommit == after
	})

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d after the signal, want 0", code)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("serve did not stop after the signal")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitUntil polls cond with a generous limit: no assertion on timing.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
