package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Provider is the forge a delivery came from.
type Provider string

// The forges whose push events are understood.
const (
	GitHub Provider = "github"
	GitLab Provider = "gitlab"
)

// Errors of a delivery that is refused before its body is read as an event.
var (
	// ErrUnsigned is a delivery that carries no signature or token at all (401).
	ErrUnsigned = errors.New("unsigned delivery")
	// ErrBadSignature is a delivery whose signature or token is wrong (403).
	ErrBadSignature = errors.New("bad signature")
)

// providerOf tells the forge from the headers: GitLab names itself in
// X-Gitlab-* headers; everything else is treated as GitHub, so a request with
// no forge headers at all is refused as an unsigned GitHub delivery.
func providerOf(h http.Header) Provider {
	if h.Get("X-Gitlab-Event") != "" || h.Get("X-Gitlab-Token") != "" {
		return GitLab
	}
	return GitHub
}

// verify checks the delivery's credentials for its provider. It runs before
// the body is parsed, so nothing an unauthenticated sender writes is ever
// interpreted.
func verify(p Provider, secret, body []byte, h http.Header) error {
	if len(secret) == 0 {
		// New refuses an empty secret; this keeps a zero-value handler closed.
		return fmt.Errorf("%w: no secret is configured", ErrBadSignature)
	}
	if p == GitLab {
		return verifyGitLab(secret, h.Values("X-Gitlab-Token"))
	}
	return verifyGitHub(secret, body, h.Values("X-Hub-Signature-256"))
}

// verifyGitHub checks X-Hub-Signature-256: "sha256=" and the hex HMAC-SHA256
// of the raw body keyed with the secret. The older SHA-1 header is not
// accepted.
func verifyGitHub(secret, body []byte, values []string) error {
	if len(values) == 0 || values[0] == "" {
		return fmt.Errorf("%w: no X-Hub-Signature-256 header", ErrUnsigned)
	}
	if len(values) > 1 {
		return fmt.Errorf("%w: %d X-Hub-Signature-256 headers", ErrBadSignature, len(values))
	}
	digest, ok := strings.CutPrefix(values[0], "sha256=")
	if !ok {
		return fmt.Errorf("%w: X-Hub-Signature-256 is not sha256=<hex>", ErrBadSignature)
	}
	given, err := hex.DecodeString(digest)
	if err != nil || len(given) != sha256.Size {
		return fmt.Errorf("%w: X-Hub-Signature-256 is not sha256=<64 hex digits>", ErrBadSignature)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil), given) {
		return fmt.Errorf("%w: X-Hub-Signature-256 does not match the body", ErrBadSignature)
	}
	return nil
}

// verifyGitLab compares X-Gitlab-Token with the secret in constant time.
// Both are hashed first so that the time taken does not depend on their
// lengths either (ConstantTimeCompare returns at once on a length mismatch).
func verifyGitLab(secret []byte, values []string) error {
	if len(values) == 0 || values[0] == "" {
		return fmt.Errorf("%w: no X-Gitlab-Token header", ErrUnsigned)
	}
	if len(values) > 1 {
		return fmt.Errorf("%w: %d X-Gitlab-Token headers", ErrBadSignature, len(values))
	}
	want := sha256.Sum256(secret)
	got := sha256.Sum256([]byte(values[0]))
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 {
		return fmt.Errorf("%w: X-Gitlab-Token does not match the secret", ErrBadSignature)
	}
	return nil
}
