package webhook_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/engine/webhook"
)

func TestMain(m *testing.M) {
	if os.Getenv("SPELUNK_WEBHOOK_CRASH_CHILD") == "1" {
		crashChild()
		return
	}
	pgtest.Main(m)
}

const secret = "correct horse battery staple"

// waitLimit is generous: the tests poll, they never assert on timing.
const waitLimit = 2 * time.Minute

// syncBuffer is the log sink shared by the server's goroutines and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is one team setup: a bare repository as the shared remote, a developer's
// clone that pushes to it, the server's clone (DIR) and a webhook server on
// loopback in front of a real database.
type env struct {
	db      *pg.DB
	owner   *pgxpool.Pool // reads river's tables (the app role has no grant there)
	remote  string
	dev     string
	dir     string
	svc     *webhook.Service
	srv     *httptest.Server
	logs    *syncBuffer
	started bool
}

type envOptions struct {
	noStart bool
	catchUp bool
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{remote: filepath.Join(base, "shared.git"), dev: filepath.Join(base, "dev"), dir: filepath.Join(base, "server"), logs: &syncBuffer{}}
	indextest.Git(t, base, "init", "-q", "--bare", "-b", "main", e.remote)
	indextest.Git(t, base, "init", "-q", "-b", "main", e.dev)
	indextest.Git(t, e.dev, "remote", "add", "origin", e.remote)
	e.commit(t, "pay/pay.go", "package pay\n\n// Charge takes the money.\nfunc Charge(cents int) error { return nil }\n")
	indextest.Git(t, base, "clone", "-q", e.remote, e.dir)
	real, err := filepath.EvalSymlinks(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	e.dir = real

	url := pgtest.URL(t)
	e.db = pgtest.OpenTenant(t, url, pg.DefaultTenant)
	if e.owner, err = pgxpool.New(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.owner.Close)
	e.svc, err = webhook.New(context.Background(), webhook.Config{DB: e.db, Embedder: indextest.Embedder(), Dir: e.dir,
		Secret: []byte(secret), Logger: slog.New(slog.NewTextHandler(e.logs, nil)), RetryDelay: time.Second, CatchUp: o.catchUp})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(e.svc.Handler())
	t.Cleanup(func() {
		e.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if e.started {
			if err := e.svc.Stop(ctx); err != nil {
				t.Errorf("stop: %v", err)
			}
		}
		e.svc.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", e.logs)
		}
	})
	if !o.noStart {
		e.start(t)
	}
	return e
}

func (e *env) start(t *testing.T) {
	t.Helper()
	if err := e.svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.started = true
}

// commit writes a file in the developer's clone, commits and pushes it, and
// returns the new commit.
func (e *env) commit(t *testing.T, path, content string) string {
	t.Helper()
	full := filepath.Join(e.dev, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	indextest.Git(t, e.dev, "add", "-A")
	indextest.Git(t, e.dev, "commit", "-q", "-m", "change "+path)
	indextest.Git(t, e.dev, "push", "-q", "origin", "main")
	return indextest.Git(t, e.dev, "rev-parse", "HEAD")
}

func githubPush(ref, after string) []byte {
	return fmt.Appendf(nil, `{"ref":%q,"before":"%s","after":%q,"repository":{"full_name":"acme/shop"}}`, ref, strings.Repeat("0", 40), after)
}

func signature(key string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// post delivers body with headers and returns the status and response body.
func (e *env) post(t *testing.T, headers map[string]string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+webhook.Path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// deliverGitHub sends a signed GitHub push of main at after.
func (e *env) deliverGitHub(t *testing.T, delivery, after string) (int, string) {
	t.Helper()
	body := githubPush("refs/heads/main", after)
	return e.post(t, map[string]string{"X-GitHub-Event": "push", "X-GitHub-Delivery": delivery,
		"X-Hub-Signature-256": signature(secret, body)}, body)
}

type job struct {
	ID       int64
	State    string
	Attempt  int
	Errors   int
	Delivery string
}

func (e *env) jobs(t *testing.T) []job {
	t.Helper()
	rows, err := e.owner.Query(context.Background(), `SELECT id, state::text, attempt, coalesce(array_length(errors, 1), 0),
		args->>'delivery' FROM river.river_job ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []job
	for rows.Next() {
		var j job
		if err := rows.Scan(&j.ID, &j.State, &j.Attempt, &j.Errors, &j.Delivery); err != nil {
			t.Fatal(err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitFor polls until cond holds; what describes the state when it never does.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s: %s", what, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitDone waits until every job has finished (completed or discarded) and
// there is at least n.
func (e *env) waitDone(t *testing.T, n int) []job {
	t.Helper()
	var js []job
	waitFor(t, fmt.Sprintf("%d finished jobs", n), func() (bool, string) {
		js = e.jobs(t)
		if len(js) < n {
			return false, fmt.Sprintf("%+v", js)
		}
		for _, j := range js {
			if j.State != "completed" && j.State != "discarded" && j.State != "cancelled" {
				return false, fmt.Sprintf("%+v", js)
			}
		}
		return true, ""
	})
	return js
}

// find looks a definition up in the index of the server's clone.
func (e *env) find(t *testing.T, name string) []symbols.Symbol {
	t.Helper()
	rec, err := e.db.RepositoryByRoot(context.Background(), e.dir)
	if errors.Is(err, pg.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := symbols.Find(context.Background(), e.db, rec.ID, name, "")
	if err != nil && !errors.Is(err, symbols.ErrNotFound) {
		t.Fatal(err)
	}
	return got
}

func (e *env) lastCommit(t *testing.T) string {
	t.Helper()
	rec, err := e.db.RepositoryByRoot(context.Background(), e.dir)
	if err != nil {
		t.Fatal(err)
	}
	return rec.LastCommit
}
