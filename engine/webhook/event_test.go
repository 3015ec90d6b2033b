package webhook

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
)

const sha = "0123456789abcdef0123456789abcdef01234567"

func TestParseEvent(t *testing.T) {
	ghPush := `{"ref":"refs/heads/main","before":"` + zero + `","after":"` + sha + `","repository":{"full_name":"acme/shop"}}`
	glPush := `{"object_kind":"push","ref":"refs/heads/main","before":"` + zero + `","after":"` + sha + `","project":{"path_with_namespace":"acme/shop"}}`
	tests := []struct {
		name    string
		p       Provider
		headers map[string]string
		body    string
		want    *Push // nil: not a push
		err     error
	}{
		{"github push", GitHub, map[string]string{"X-GitHub-Event": "push", "X-GitHub-Delivery": "d-1"}, ghPush,
			&Push{Provider: GitHub, Delivery: "d-1", Ref: "refs/heads/main", Before: zero, After: sha, Repository: "acme/shop"}, nil},
		{"github form body", GitHub, map[string]string{"X-GitHub-Event": "push", "X-GitHub-Delivery": "d-2",
			"Content-Type": "application/x-www-form-urlencoded"}, "payload=" + url.QueryEscape(ghPush),
			&Push{Provider: GitHub, Delivery: "d-2", Ref: "refs/heads/main", Before: zero, After: sha, Repository: "acme/shop"}, nil},
		{"github JSON labelled as a form", GitHub, map[string]string{"X-GitHub-Event": "push", "X-GitHub-Delivery": "d-3",
			"Content-Type": "application/x-www-form-urlencoded"}, ghPush,
			&Push{Provider: GitHub, Delivery: "d-3", Ref: "refs/heads/main", Before: zero, After: sha, Repository: "acme/shop"}, nil},
		{"github no delivery id", GitHub, map[string]string{"X-GitHub-Event": "push"}, ghPush,
			&Push{Provider: GitHub, Delivery: "sha:" + sha, Ref: "refs/heads/main", Before: zero, After: sha, Repository: "acme/shop"}, nil},
		{"github ping", GitHub, map[string]string{"X-GitHub-Event": "ping"}, `{"zen":"hi"}`, nil, nil},
		{"github issues", GitHub, map[string]string{"X-GitHub-Event": "issues"}, `not json`, nil, nil},
		{"github bad json", GitHub, map[string]string{"X-GitHub-Event": "push"}, `{"ref":`, nil, ErrBadEvent},
		{"github bad after", GitHub, map[string]string{"X-GitHub-Event": "push"}, `{"ref":"refs/heads/main","after":"--upload-pack=x"}`, nil, ErrBadEvent},
		{"github bad ref", GitHub, map[string]string{"X-GitHub-Event": "push"}, `{"ref":"main","after":"` + sha + `"}`, nil, ErrBadEvent},
		{"gitlab push", GitLab, map[string]string{"X-Gitlab-Event": "Push Hook", "Idempotency-Key": "k-1", "X-Gitlab-Event-UUID": "u-1"}, glPush,
			&Push{Provider: GitLab, Delivery: "k-1", Ref: "refs/heads/main", Before: zero, After: sha, Repository: "acme/shop"}, nil},
		{"gitlab older, event uuid", GitLab, map[string]string{"X-Gitlab-Event": "Push Hook", "X-Gitlab-Event-UUID": "u-1"}, glPush,
			&Push{Provider: GitLab, Delivery: "u-1", Ref: "refs/heads/main", Before: zero, After: sha, Repository: "acme/shop"}, nil},
		{"gitlab tag push", GitLab, map[string]string{"X-Gitlab-Event": "Tag Push Hook"}, glPush, nil, nil},
		{"gitlab wrong kind", GitLab, map[string]string{"X-Gitlab-Event": "Push Hook"}, `{"object_kind":"build"}`, nil, ErrBadEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			ev, err := parseEvent(tt.p, h, []byte(tt.body))
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == nil && ev.push != nil:
				t.Fatalf("got push %+v, want none", *ev.push)
			case tt.want != nil && (ev.push == nil || *ev.push != *tt.want):
				t.Fatalf("got push %+v, want %+v", ev.push, *tt.want)
			}
		})
	}
}

const zero = "0000000000000000000000000000000000000000"

func TestPushBranch(t *testing.T) {
	for _, tt := range []struct {
		ref, after, branch string
		isBranch, deleted  bool
	}{
		{"refs/heads/main", sha, "main", true, false},
		{"refs/heads/feature/x", sha, "feature/x", true, false},
		{"refs/tags/v1", sha, "", false, false},
		{"refs/heads/main", zero, "main", true, true},
	} {
		p := Push{Ref: tt.ref, After: tt.after}
		b, ok := p.Branch()
		if b != tt.branch || ok != tt.isBranch || p.Deleted() != tt.deleted {
			t.Errorf("%s %s: got branch %q %v deleted %v, want %q %v %v", tt.ref, tt.after, b, ok, p.Deleted(), tt.branch, tt.isBranch, tt.deleted)
		}
	}
}
