package webhook

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a log sink that handler goroutines and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Split(strings.TrimSpace(b.buf.String()), "\n")
}

func TestHandlerAnswers(t *testing.T) {
	const secret = "s3cret"
	push := func(ref, after string) string {
		return `{"ref":"` + ref + `","before":"` + zero + `","after":"` + after + `","repository":{"full_name":"acme/shop"}}`
	}
	main := push("refs/heads/main", sha)
	tests := []struct {
		name     string
		method   string
		headers  map[string]string
		body     string
		queueErr error
		dup      bool
		status   int
		result   string
		queued   bool
	}{
		{"unsigned", "POST", map[string]string{"X-GitHub-Event": "push"}, main, nil, false, 401, "refused", false},
		{"bad signature", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign("nope", main)}, main, nil, false, 403, "refused", false},
		{"gitlab unsigned", "POST", map[string]string{"X-Gitlab-Event": "Push Hook"}, main, nil, false, 401, "refused", false},
		{"gitlab bad token", "POST", map[string]string{"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": "nope"}, main, nil, false, 403, "refused", false},
		{"wrong method", "GET", nil, "", nil, false, 405, "refused", false},
		{"signed garbage", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign(secret, "{")}, "{", nil, false, 400, "refused", false},
		{"ping", "POST", map[string]string{"X-GitHub-Event": "ping", "X-Hub-Signature-256": sign(secret, "{}")}, "{}", nil, false, 200, "ignored", false},
		{"other branch", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign(secret, push("refs/heads/dev", sha))}, push("refs/heads/dev", sha), nil, false, 200, "ignored", false},
		{"tag", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign(secret, push("refs/tags/v1", sha))}, push("refs/tags/v1", sha), nil, false, 200, "ignored", false},
		{"branch deleted", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign(secret, push("refs/heads/main", zero))}, push("refs/heads/main", zero), nil, false, 200, "ignored", false},
		{"accepted", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign(secret, main)}, main, nil, false, 202, "accepted", true},
		{"duplicate", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign(secret, main)}, main, nil, true, 200, "duplicate", true},
		{"queue down", "POST", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": sign(secret, main)}, main, errors.New("db down"), false, 503, "failed", true},
		{"gitlab accepted", "POST", map[string]string{"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": secret},
			`{"object_kind":"push","ref":"refs/heads/main","after":"` + sha + `"}`, nil, false, 202, "accepted", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &lockedBuffer{}
			queued := false
			h := &handler{secret: []byte(secret), branch: "main", log: slog.New(slog.NewTextHandler(logs, nil)),
				enqueue: func(context.Context, Push) (enqueued, error) {
					queued = true
					return enqueued{JobID: 7, Duplicate: tt.dup}, tt.queueErr
				}}
			srv := httptest.NewServer(h.routes())
			defer srv.Close()
			req, err := http.NewRequest(tt.method, srv.URL+Path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if queued != tt.queued {
				t.Errorf("queued %v, want %v", queued, tt.queued)
			}
			lines := logs.lines()
			if len(lines) != 1 || !strings.Contains(lines[0], "result="+tt.result) {
				t.Errorf("log %q: want one line with result=%s", lines, tt.result)
			}
			if strings.Contains(strings.Join(lines, "\n"), secret) {
				t.Errorf("log %q shows the secret", lines)
			}
		})
	}
}

func TestHandlerRefusesHugeBody(t *testing.T) {
	logs := &lockedBuffer{}
	h := &handler{secret: []byte("s"), branch: "main", log: slog.New(slog.NewTextHandler(logs, nil)),
		enqueue: func(context.Context, Push) (enqueued, error) { t.Error("queued"); return enqueued{}, nil }}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", Path, bytes.NewReader(make([]byte, MaxBody+1)))
	h.routes().ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", rec.Code)
	}
}
