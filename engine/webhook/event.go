package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// ErrBadEvent is a verified delivery whose body is not a usable event (400).
var ErrBadEvent = errors.New("malformed event")

// Push is a verified push event, reduced to what indexing needs.
type Push struct {
	Provider Provider
	// Delivery identifies the event across redeliveries: GitHub's
	// X-GitHub-Delivery, GitLab's Idempotency-Key or X-Gitlab-Event-UUID. When
	// the forge sent none it is "sha:" and the pushed commit.
	Delivery   string
	Ref        string // the full ref pushed, e.g. refs/heads/main
	Before     string
	After      string // the ref's new commit; all zeros when the ref was deleted
	Repository string // the repository as the event names it (owner/name), for the log only
}

// Branch is the short branch name, false for a tag or any other ref.
func (p Push) Branch() (string, bool) {
	b, ok := strings.CutPrefix(p.Ref, "refs/heads/")
	if !ok {
		return "", false
	}
	return b, true
}

// Deleted reports a push that removed the ref.
func (p Push) Deleted() bool { return strings.Trim(p.After, "0") == "" }

// event is what a verified delivery turned out to be.
type event struct {
	name string // the forge's event name (push, ping, Push Hook, ...)
	push *Push  // set for a push event
}

// commitID is a full SHA-1 or SHA-256 object name.
var commitID = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// parseEvent reads a verified body. Events other than pushes come back with a
// nil push: they are answered, logged and otherwise ignored.
func parseEvent(p Provider, h http.Header, body []byte) (event, error) {
	if p == GitLab {
		return parseGitLab(h, body)
	}
	return parseGitHub(h, body)
}

// githubPush is the part of GitHub's push payload spelunk reads.
type githubPush struct {
	Ref        string `json:"ref"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

func parseGitHub(h http.Header, body []byte) (event, error) {
	ev := event{name: h.Get("X-GitHub-Event")}
	if ev.name != "push" {
		return ev, nil // ping (sent when the hook is created) and every other event
	}
	// A hook may be configured to send its JSON as a form field; the signature
	// covers the raw body either way. A form type without that field is read
	// as JSON (curl -d labels everything as a form).
	if ct, _, _ := mime.ParseMediaType(h.Get("Content-Type")); ct == "application/x-www-form-urlencoded" {
		if form, err := url.ParseQuery(string(body)); err == nil && form.Has("payload") {
			body = []byte(form.Get("payload"))
		}
	}
	var gp githubPush
	if err := json.Unmarshal(body, &gp); err != nil {
		return ev, fmt.Errorf("%w: push payload: %v", ErrBadEvent, err)
	}
	push := Push{Provider: GitHub, Delivery: h.Get("X-GitHub-Delivery"), Ref: gp.Ref, Before: gp.Before,
		After: gp.After, Repository: gp.Repository.FullName}
	if err := push.check(); err != nil {
		return ev, err
	}
	ev.push = &push
	return ev, nil
}

// gitlabPush is the part of GitLab's push payload spelunk reads.
type gitlabPush struct {
	ObjectKind string `json:"object_kind"`
	Ref        string `json:"ref"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Project    struct {
		PathWithNamespace string `json:"path_with_namespace"`
	} `json:"project"`
}

func parseGitLab(h http.Header, body []byte) (event, error) {
	ev := event{name: h.Get("X-Gitlab-Event")}
	if ev.name != "Push Hook" {
		return ev, nil // tag pushes, merge requests, ...
	}
	var gp gitlabPush
	if err := json.Unmarshal(body, &gp); err != nil {
		return ev, fmt.Errorf("%w: push payload: %v", ErrBadEvent, err)
	}
	if gp.ObjectKind != "push" {
		return ev, fmt.Errorf("%w: a Push Hook whose object_kind is %q", ErrBadEvent, gp.ObjectKind)
	}
	// Idempotency-Key (GitLab 17.4+) stays the same when GitLab retries a
	// delivery; the event UUID is the older per-event id.
	delivery := h.Get("Idempotency-Key")
	if delivery == "" {
		delivery = h.Get("X-Gitlab-Event-UUID")
	}
	push := Push{Provider: GitLab, Delivery: delivery, Ref: gp.Ref, Before: gp.Before, After: gp.After,
		Repository: gp.Project.PathWithNamespace}
	if err := push.check(); err != nil {
		return ev, err
	}
	ev.push = &push
	return ev, nil
}

// check validates the fields the worker relies on and fills in a delivery id.
func (p *Push) check() error {
	if !strings.HasPrefix(p.Ref, "refs/") || strings.ContainsAny(p.Ref, "\x00\n ") {
		return fmt.Errorf("%w: ref %q", ErrBadEvent, p.Ref)
	}
	p.After = strings.ToLower(p.After)
	if !commitID.MatchString(p.After) {
		return fmt.Errorf("%w: after %q is not a commit id", ErrBadEvent, p.After)
	}
	if len(p.Delivery) > 200 {
		return fmt.Errorf("%w: delivery id of %d bytes", ErrBadEvent, len(p.Delivery))
	}
	if p.Delivery == "" {
		p.Delivery = "sha:" + p.After
	}
	return nil
}
