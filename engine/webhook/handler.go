package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
)

// MaxBody bounds a delivery's body: GitHub caps payloads at 25 MB, and a
// bigger body is refused before it is read whole.
const MaxBody = 25 << 20

// Path is where deliveries are accepted: http://HOST:PORT/webhook.
const Path = "/webhook"

// enqueued is what queueing a push did.
type enqueued struct {
	JobID     int64
	Duplicate bool // the delivery was already queued or done: nothing new queued
}

// handler answers deliveries. It only verifies, parses and queues: the work
// happens in the job, so a forge's short delivery timeout (10 s on GitHub) is
// never at risk.
type handler struct {
	secret  []byte
	branch  string // the branch the clone follows; pushes to others are ignored
	enqueue func(ctx context.Context, p Push) (enqueued, error)
	log     *slog.Logger
}

// outcome is the answer to one delivery and the facts its log line reports.
type outcome struct {
	status int
	result string // accepted | duplicate | ignored | refused | failed
	reason string
	push   *Push
	event  string
	job    int64
}

func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	return mux
}

// ServeHTTP answers one delivery and logs exactly one line about it.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := providerOf(r.Header)
	o := h.serve(w, r, p)
	h.logDelivery(r, p, o)
	body := map[string]any{"result": o.result}
	if o.reason != "" {
		body["reason"] = o.reason
	}
	if o.job != 0 {
		body["job"] = o.job
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(o.status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // reasons such as "sha256=<64 hex digits>" read as written
	_ = enc.Encode(body)
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request, p Provider) outcome {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return outcome{status: http.StatusMethodNotAllowed, result: "refused", reason: "method " + r.Method}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return outcome{status: http.StatusRequestEntityTooLarge, result: "refused", reason: fmt.Sprintf("body over %d bytes", MaxBody)}
		}
		return outcome{status: http.StatusBadRequest, result: "refused", reason: "read body: " + err.Error()}
	}
	if err := verify(p, h.secret, body, r.Header); err != nil {
		status := http.StatusForbidden
		if errors.Is(err, ErrUnsigned) {
			status = http.StatusUnauthorized
		}
		return outcome{status: status, result: "refused", reason: err.Error()}
	}
	ev, err := parseEvent(p, r.Header, body)
	if err != nil {
		return outcome{status: http.StatusBadRequest, result: "refused", reason: err.Error(), event: ev.name}
	}
	o := outcome{event: ev.name, push: ev.push}
	if ev.push == nil {
		o.status, o.result, o.reason = http.StatusOK, "ignored", fmt.Sprintf("not a push event (%q)", ev.name)
		return o
	}
	if reason := h.ignore(*ev.push); reason != "" {
		o.status, o.result, o.reason = http.StatusOK, "ignored", reason
		return o
	}
	q, err := h.enqueue(r.Context(), *ev.push)
	if err != nil {
		// The forge shows the failure and the delivery can be redelivered.
		o.status, o.result, o.reason = http.StatusServiceUnavailable, "failed", err.Error()
		return o
	}
	o.job = q.JobID
	if q.Duplicate {
		o.status, o.result, o.reason = http.StatusOK, "duplicate", "this delivery is already queued or indexed"
		return o
	}
	o.status, o.result = http.StatusAccepted, "accepted"
	return o
}

// ignore says why a verified push is not indexed, or "" when it is: the index
// holds one revision per repository, the head of the branch the clone follows.
func (h *handler) ignore(p Push) string {
	branch, ok := p.Branch()
	switch {
	case !ok:
		return fmt.Sprintf("%s is not a branch", p.Ref)
	case branch != h.branch:
		return fmt.Sprintf("push to %s: the index follows %s only", branch, h.branch)
	case p.Deleted():
		return fmt.Sprintf("branch %s was deleted: the index keeps its last revision", branch)
	}
	return ""
}

func (h *handler) logDelivery(r *http.Request, p Provider, o outcome) {
	attrs := []slog.Attr{
		slog.String("result", o.result), slog.Int("status", o.status), slog.String("provider", string(p)),
		slog.String("remote", r.RemoteAddr),
	}
	if o.event != "" {
		attrs = append(attrs, slog.String("event", o.event))
	}
	if o.push != nil {
		attrs = append(attrs, slog.String("delivery", o.push.Delivery))
		if o.push.Repository != "" {
			attrs = append(attrs, slog.String("repository", o.push.Repository))
		}
		attrs = append(attrs, slog.String("ref", o.push.Ref), slog.String("after", o.push.After))
	} else if id := deliveryHeader(r.Header); id != "" {
		// Unverified, so only logged (bounded): it helps find the delivery in the forge's UI.
		attrs = append(attrs, slog.String("delivery", id[:min(len(id), 100)]))
	}
	if o.job != 0 {
		attrs = append(attrs, slog.Int64("job", o.job))
	}
	if o.reason != "" {
		attrs = append(attrs, slog.String("reason", o.reason))
	}
	level := slog.LevelInfo
	if o.result == "refused" || o.result == "failed" {
		level = slog.LevelWarn
	}
	h.log.LogAttrs(r.Context(), level, "webhook delivery", attrs...)
}

// deliveryHeader is the forge's id of a delivery, as sent.
func deliveryHeader(h http.Header) string {
	for _, k := range []string{"X-GitHub-Delivery", "Idempotency-Key", "X-Gitlab-Event-UUID"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}
