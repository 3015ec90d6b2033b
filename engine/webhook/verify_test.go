package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func sign(secret, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func TestVerify(t *testing.T) {
	const secret, body = "s3cret", `{"ref":"refs/heads/main"}`
	good := sign(secret, body)
	tests := []struct {
		name    string
		secret  string
		headers map[string][]string
		want    error
	}{
		{"github good", secret, map[string][]string{"X-Hub-Signature-256": {good}}, nil},
		{"github upper-case hex", secret, map[string][]string{"X-Hub-Signature-256": {"sha256=" + strings.ToUpper(good[7:])}}, nil},
		{"github unsigned", secret, map[string][]string{"X-Github-Event": {"push"}}, ErrUnsigned},
		{"github empty header", secret, map[string][]string{"X-Hub-Signature-256": {""}}, ErrUnsigned},
		{"github other secret", "other", map[string][]string{"X-Hub-Signature-256": {good}}, ErrBadSignature},
		{"github other body", secret, map[string][]string{"X-Hub-Signature-256": {sign(secret, body+" ")}}, ErrBadSignature},
		{"github sha1 form", secret, map[string][]string{"X-Hub-Signature-256": {"sha1=" + good[7:]}}, ErrBadSignature},
		{"github not hex", secret, map[string][]string{"X-Hub-Signature-256": {"sha256=zz"}}, ErrBadSignature},
		{"github truncated", secret, map[string][]string{"X-Hub-Signature-256": {good[:len(good)-2]}}, ErrBadSignature},
		{"github twice", secret, map[string][]string{"X-Hub-Signature-256": {good, good}}, ErrBadSignature},
		{"github no secret configured", "", map[string][]string{"X-Hub-Signature-256": {sign("", body)}}, ErrBadSignature},
		{"gitlab good", secret, map[string][]string{"X-Gitlab-Event": {"Push Hook"}, "X-Gitlab-Token": {secret}}, nil},
		{"gitlab unsigned", secret, map[string][]string{"X-Gitlab-Event": {"Push Hook"}}, ErrUnsigned},
		{"gitlab wrong", secret, map[string][]string{"X-Gitlab-Token": {"s3cre"}}, ErrBadSignature},
		{"gitlab longer", secret, map[string][]string{"X-Gitlab-Token": {secret + "x"}}, ErrBadSignature},
		{"gitlab twice", secret, map[string][]string{"X-Gitlab-Token": {secret, secret}}, ErrBadSignature},
		{"gitlab no secret configured", "", map[string][]string{"X-Gitlab-Token": {""}, "X-Gitlab-Event": {"Push Hook"}}, ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, vs := range tt.headers {
				for _, v := range vs {
					h.Add(k, v)
				}
			}
			err := verify(providerOf(h), []byte(tt.secret), []byte(body), h)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("verify: got %v, want %v", err, tt.want)
			}
		})
	}
}
