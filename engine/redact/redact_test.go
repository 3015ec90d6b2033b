package redact

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Fake secrets, assembled at run time so that this file does not itself
// look like a leak to secret scanners (or to spelunk indexing itself).
var (
	awsKey    = "AKIA" + "Z7Q2M4XW9KD3LP0R"
	awsSecret = "k8Jd2Lq9" + "Zp4Xw7Rt1Vb6Nm3Hc5Yf0Ga8Ue2S/9Ow" // 40
	ghToken   = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
	ghPAT     = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD"
	slackTok  = "xoxb-" + "1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	stripeKey = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
	googleKey = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
	jwt       = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." +
		"eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ" + "." +
		"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	entropic = "Zx8Kq2LmN4pR7sT1vW3yB6dF9gH0jK5cQ"
	pemBody  = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCZe+nRY2OxnPJJ\n" +
		"ZPsJ7nN7BA0qry6N5kamEnjhV2vC639vpNwLiJgQ12zn7v/c9jAGWWncrlNGkJxp\n"
)

func pemKey(label string) string {
	return "-----BEGIN " + label + "-----\n" + pemBody + "-----END " + label + "-----"
}

func marker(kind string) string { return "[REDACTED:" + kind + "]" }

func TestFakeSecretsHaveTheirFormats(t *testing.T) {
	for name, tc := range map[string]struct {
		v    string
		size int
	}{"aws key": {awsKey, 20}, "aws secret": {awsSecret, 40}, "github": {ghToken, 40}, "google": {googleKey, 39}} {
		if len(tc.v) != tc.size {
			t.Errorf("%s fixture has %d characters, want %d", name, len(tc.v), tc.size)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  string
		kinds []string
	}{
		// Known formats, wherever they appear.
		{"aws access key in Go", `id := "` + awsKey + `"`, `id := "` + marker(KindAWSAccessKey) + `"`, []string{KindAWSAccessKey}},
		{"aws access key in .env", "AWS_ACCESS_KEY_ID=" + awsKey + "\n", "AWS_ACCESS_KEY_ID=" + marker(KindAWSAccessKey) + "\n", []string{KindAWSAccessKey}},
		{"ASIA session key", "k = '" + "ASIA" + awsKey[4:] + "'", "k = '" + marker(KindAWSAccessKey) + "'", []string{KindAWSAccessKey}},
		{"aws secret in .env", "AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n", "AWS_SECRET_ACCESS_KEY=" + marker(KindAWSSecret) + "\n", []string{KindAWSSecret}},
		{"aws secret in Python", `aws_secret_access_key = "` + awsSecret + `"`, `aws_secret_access_key = "` + marker(KindAWSSecret) + `"`, []string{KindAWSSecret}},
		{"github token in a comment", "// token: " + ghToken + " (revoked)", "// token: " + marker(KindGitHubToken) + " (revoked)", []string{KindGitHubToken}},
		{"github fine-grained token", `t = "` + ghPAT + `"`, `t = "` + marker(KindGitHubToken) + `"`, []string{KindGitHubToken}},
		{"github token assigned: the format wins", `GITHUB_TOKEN: "` + ghToken + `"`, `GITHUB_TOKEN: "` + marker(KindGitHubToken) + `"`, []string{KindGitHubToken}},
		{"slack token", `slack.New("` + slackTok + `")`, `slack.New("` + marker(KindSlackToken) + `")`, []string{KindSlackToken}},
		{"stripe key", "stripe.Key = '" + stripeKey + "'", "stripe.Key = '" + marker(KindStripeKey) + "'", []string{KindStripeKey}},
		{"stripe restricted key", `k := "r` + stripeKey[1:] + `"`, `k := "` + marker(KindStripeKey) + `"`, []string{KindStripeKey}},
		{"google api key", `const k = "` + googleKey + `"`, `const k = "` + marker(KindGoogleAPIKey) + `"`, []string{KindGoogleAPIKey}},
		{"jwt in a header", `req.Header.Set("Authorization", "Bearer ` + jwt + `")`, `req.Header.Set("Authorization", "Bearer ` + marker(KindJWT) + `")`, []string{KindJWT}},
		// Credentials in URLs: only the password.
		{"postgres URL", `dsn := "postgres://admin:` + "s3cr3tP4ss" + `@db.example.com:5432/app"`, `dsn := "postgres://admin:` + marker(KindURLCredential) + `@db.example.com:5432/app"`, []string{KindURLCredential}},
		{"redis URL without user", "REDIS_URL=redis://:" + "hunter22x" + "@cache:6379/0\n", "REDIS_URL=redis://:" + marker(KindURLCredential) + "@cache:6379/0\n", []string{KindURLCredential}},
		{"https URL with user and token", "git clone https://bot:" + "glpat9Xk2" + "@gitlab.example.com/g/r.git", "git clone https://bot:" + marker(KindURLCredential) + "@gitlab.example.com/g/r.git", []string{KindURLCredential}},
		// Assignments in many styles: only the value.
		{"Go short declaration", `password := "` + "hunter22" + `"`, `password := "` + marker(KindPassword) + `"`, []string{KindPassword}},
		{"Go struct field", `cfg := Config{Password: "` + "Tr0ub4dor&3" + `", User: "bob"}`, `cfg := Config{Password: "` + marker(KindPassword) + `", User: "bob"}`, []string{KindPassword}},
		{"Go const", "const apiKey = `" + "a8f5f167f44f4964e6c998dee827110c" + "`", "const apiKey = `" + marker(KindCredential) + "`", []string{KindCredential}},
		{"Python", `DB_PASSWORD = '` + "correct-h0rse" + `'`, `DB_PASSWORD = '` + marker(KindPassword) + `'`, []string{KindPassword}},
		{"Python bytes", `secret = b"` + "k3y-material-42" + `"`, `secret = b"` + marker(KindCredential) + `"`, []string{KindCredential}},
		{"Python dict", `{'api_key': '` + "abc123def456ghi" + `'}`, `{'api_key': '` + marker(KindCredential) + `'}`, []string{KindCredential}},
		{"Python keyword argument", `connect(host="db", password="` + "pa55word!" + `")`, `connect(host="db", password="` + marker(KindPassword) + `")`, []string{KindPassword}},
		{"JS object", `const cfg = { clientSecret: "` + "9f8e7d6c5b4a" + `" };`, `const cfg = { clientSecret: "` + marker(KindCredential) + `" };`, []string{KindCredential}},
		{"JSON", `{"password":"` + "s3cr3t-value" + `","user":"x"}`, `{"password":"` + marker(KindPassword) + `","user":"x"}`, []string{KindPassword}},
		{"PHP/Ruby arrow", `'secret' => '` + "r4nd0m-s3cret" + `',`, `'secret' => '` + marker(KindCredential) + `',`, []string{KindCredential}},
		{"YAML bare", "db:\n  password: s3cr3t!\n  user: app\n", "db:\n  password: " + marker(KindPassword) + "\n  user: app\n", []string{KindPassword}},
		{"YAML quoted", "auth_token: \"" + "t0k3n-abcdef" + "\"\n", "auth_token: \"" + marker(KindCredential) + "\"\n", []string{KindCredential}},
		{"YAML kebab key", "api-key: " + "q1w2e3r4t5y6" + "\n", "api-key: " + marker(KindCredential) + "\n", []string{KindCredential}},
		{".env", "export STRIPE_SECRET=whsec_" + "9aB8cD7eF6" + "\nPORT=8080\n", "export STRIPE_SECRET=" + marker(KindCredential) + "\nPORT=8080\n", []string{KindCredential}},
		{".env with comment", "SESSION_SECRET=x9y8z7w6v5 # rotate monthly\n", "SESSION_SECRET=" + marker(KindCredential) + " # rotate monthly\n", []string{KindCredential}},
		{"query parameter", `u := "https://api.example.com/v1?api_key=` + "abc123def456" + `&q=go"`, `u := "https://api.example.com/v1?api_key=` + marker(KindCredential) + `&q=go"`, []string{KindCredential}},
		// High-entropy literals.
		{"random literal", `var k = "` + entropic + `"`, `var k = "` + marker(KindHighEntropy) + `"`, []string{KindHighEntropy}},
		{"random literal in single quotes", `x = '` + entropic + `=='`, `x = '` + marker(KindHighEntropy) + `'`, []string{KindHighEntropy}},
		// Private keys: one marker, same number of lines.
		{"PEM private key", "key := `" + pemKey("RSA PRIVATE KEY") + "`\nnext()\n", "key := `" + marker(KindPrivateKey) + "\n\n\n`\nnext()\n", []string{KindPrivateKey}},
		{"OpenSSH private key", pemKey("OPENSSH PRIVATE KEY") + "\n", marker(KindPrivateKey) + "\n\n\n\n", []string{KindPrivateKey}},
		{"PGP private key block", pemKey("PGP PRIVATE KEY BLOCK"), marker(KindPrivateKey) + "\n\n\n", []string{KindPrivateKey}},
		{"private key in JSON with escapes", `{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\n-----END PRIVATE KEY-----\n", "x": 1}`, `{"private_key": "` + marker(KindPrivateKey) + `\n", "x": 1}`, []string{KindPrivateKey}},
		{"truncated private key", "-----BEGIN EC PRIVATE KEY-----\n" + pemBody + "\nrest of file\n", marker(KindPrivateKey) + "\n\n\n\nrest of file\n", []string{KindPrivateKey}},
		{"CRLF private key", strings.ReplaceAll(pemKey("PRIVATE KEY"), "\n", "\r\n") + "\r\nok\r\n", marker(KindPrivateKey) + "\r\n\r\n\r\n\r\nok\r\n", []string{KindPrivateKey}},
		{"public key is not a secret", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n", "", nil},
		{"certificate is not a secret", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "", nil},
		// Several on a line and across lines.
		{"two findings, lines counted", "a\nid=" + awsKey + " token=" + ghToken + "\n\nPASSWORD=hunter2!\n",
			"a\nid=" + marker(KindAWSAccessKey) + " token=" + marker(KindGitHubToken) + "\n\nPASSWORD=" + marker(KindPassword) + "\n",
			[]string{KindAWSAccessKey, KindGitHubToken, KindPassword}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = tt.in
			}
			got, findings := Redact([]byte(tt.in))
			if string(got) != want {
				t.Errorf("Redact(%q)\n got: %q\nwant: %q", tt.in, got, want)
			}
			var kinds []string
			for _, f := range findings {
				kinds = append(kinds, f.Kind)
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, tt.kinds)
			}
			if a, b := bytes.Count([]byte(tt.in), []byte("\n")), bytes.Count(got, []byte("\n")); a != b {
				t.Errorf("line count changed from %d to %d", a+1, b+1)
			}
			again, more := Redact(got)
			if !bytes.Equal(again, got) || len(more) != 0 {
				t.Errorf("not idempotent: second pass gives %q with %v", again, more)
			}
		})
	}
}

func TestFindingLines(t *testing.T) {
	src := "line1\n" + pemKey("PRIVATE KEY") + "\nline5\nPASSWORD=abc123!\nx = \"" + entropic + "\"\n"
	_, findings := Redact([]byte(src))
	want := []Finding{{KindPrivateKey, 2}, {KindPassword, 7}, {KindHighEntropy, 8}}
	if !slices.Equal(findings, want) {
		t.Errorf("findings = %v, want %v", findings, want)
	}
}

// TestRedactLeavesCodeAlone runs realistic code that talks about passwords,
// tokens, keys and secrets without holding any.
func TestRedactLeavesCodeAlone(t *testing.T) {
	samples := map[string]string{
		"auth.go": `package auth

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"go/token"
	"os"
)

// ErrBadPassword is returned when the password does not match.
var ErrBadPassword = errors.New("auth: bad password")

const tokenHeader = "X-Auth-Token"
const passwordMinLength = 12

type Config struct {
	Password string ` + "`json:\"password,omitempty\" yaml:\"password\"`" + `
	APIKey   string ` + "`json:\"api_key\"`" + `
	TokenURL string
	Secret   []byte
}

func (c *Config) Validate(password string) error {
	if password == "" || len(password) < passwordMinLength {
		return ErrBadPassword
	}
	if password != c.Password {
		return fmt.Errorf("password for %s: %w", c.TokenURL, ErrBadPassword)
	}
	tok := token.IDENT
	secret := os.Getenv("APP_SECRET")
	apiKey := c.APIKey
	passwordHash := sha256.Sum256([]byte(password))
	key := "user:" + apiKey
	c.Password = password
	c.Secret = []byte(secret)
	nextToken := resp.NextPageToken
	hash := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	id := "550e8400-e29b-41d4-a716-446655440000"
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	dsn := fmt.Sprintf("postgres://%s:%s@%s/db", user, password, host)
	docs := "see https://example.com/docs?page=2#token"
	envName := "GITHUB_TOKEN"
	token := lexer.Next()
	Token: token.EOF,
	Password: password,
	var rsaPrivateKey = testRSA2048PrivateKey
	name := "TestConvertToFloat64Int32x8"
	_ = []any{tok, passwordHash, key, nextToken, hash, id, dsn, docs, envName, token, name}
	return nil
}
`,
		"settings.py": `import os
from getpass import getpass

PASSWORD = os.environ["PASSWORD"]
SECRET_KEY = os.environ.get("SECRET_KEY", "")
token = None

def login(user: str, password: str) -> bool:
    password = password or getpass()
    api_key = settings.API_KEY
    secret = secrets.token_hex(32)
    headers = {"Authorization": f"Bearer {token}"}
    return check(user, password=password)
`,
		"config.yaml": `database:
  user: app
  password: ${DB_PASSWORD}
  password_file: /run/secrets/db
auth:
  token: "{{ .Values.token }}"
  api_key: <your-api-key>
  secret: changeme
  client_secret: ""
  token_type: bearer
`,
		"app.js": `const token = req.headers['x-token'];
const password = document.getElementById('password').value;
export const apiKey = process.env.API_KEY;
if (password === 'undefined') { throw new Error('no password'); }
const config = { password: password, secretName: 'db-credentials' };
`,
		// Subresource-integrity digests in lock files and Nix expressions are
		// hashes of public content, not secrets (issue 40).
		"package-lock.json": `{"node_modules/ms": {"version": "2.1.3",
  "integrity": "sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA=="}}
`,
		"flake.lock": `{"nodes": {"nixpkgs": {"locked": {"narHash": "sha256-Q6NzqjNnQkSmmMGXMQWkbO4cOTXgyBJCXcVkQf0RF8A="}}}}
`,
		"default.nix": `src = fetchurl { url = "https://example.com/x.tar.gz"; hash = "sha256-Q6NzqjNnQkSmmMGXMQWkbO4cOTXgyBJCXcVkQf0RF8A="; };
`,
		"README.md": `Set the password with ` + "`export DB_PASSWORD=...`" + `.
The token is read from $GITHUB_TOKEN. Example: https://user@example.com/repo.git
Use -----BEGIN PUBLIC KEY----- blocks for public keys only.
`,
	}
	for name, src := range samples {
		got, findings := Redact([]byte(src))
		if len(findings) != 0 || string(got) != src {
			t.Errorf("%s: clean code redacted: %v\n%s", name, findings, got)
		}
	}
}

func TestRedactEdges(t *testing.T) {
	for _, in := range []string{"", "\n", "password", "password=", "password = \"", "-----BEGIN ", "-----BEGIN PRIVATE KEY-----", "eyJ", "eyJa.eyJ", "AKIA", "xoxb-", "://", "a://b:c@", "\"", "'" + strings.Repeat("A1b2", 6)} {
		got, _ := Redact([]byte(in))
		if bytes.Count(got, []byte("\n")) != strings.Count(in, "\n") {
			t.Errorf("Redact(%q) = %q: line count changed", in, got)
		}
	}
	// Nothing found: the input itself comes back.
	src := []byte("package main\n")
	if got, _ := Redact(src); &got[0] != &src[0] {
		t.Errorf("clean input was copied")
	}
}

// goSources reads up to limit bytes of the Go standard library sources.
func goSources(tb testing.TB, limit int) ([][]byte, int) {
	tb.Helper()
	root := filepath.Join(goRoot(), "src")
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("no Go source tree: %v", err)
		}
		tb.Skipf("no Go source tree: %v", err)
	}
	var files [][]byte
	total := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || total >= limit {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, data)
		total += len(data)
		return nil
	})
	if err != nil && err != fs.SkipDir {
		tb.Fatal(err)
	}
	return files, total
}

// TestGoStdlibFalsePositives counts what Redact finds in the Go standard
// library, which holds no real secrets (only test fixtures shaped like
// them): it must stay at a handful per MB.
func TestGoStdlibFalsePositives(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole Go source tree")
	}
	files, total := goSources(t, 1<<40)
	counts := map[string]int{}
	n := 0
	for _, f := range files {
		_, findings := Redact(f)
		for _, fd := range findings {
			counts[fd.Kind]++
			n++
		}
	}
	mb := float64(total) / (1 << 20)
	t.Logf("Go stdlib: %.1f MiB in %d files, %d findings (%.2f per MiB): %v", mb, len(files), n, float64(n)/mb, counts)
	if perMB := float64(n) / mb; perMB > 3 {
		t.Errorf("%.2f findings per MiB of Go source; want at most 3", perMB)
	}
}

func BenchmarkRedact(b *testing.B) {
	files, total := goSources(b, 8<<20)
	b.SetBytes(int64(total))
	for b.Loop() {
		for _, f := range files {
			Redact(f)
		}
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"password = \"hunter22\"\n",
		"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n",
		"-----BEGIN PRIVATE KEY-----\nMIIB\n",
		"x := \"" + entropic + "\"",
		"https://u:" + "pw123" + "@h/",
		"id=" + awsKey + " " + ghToken + " " + jwt,
		"token: " + slackTok + "\r\n" + googleKey,
		"TOKEN=a1b2c3d4e5 # c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		orig := bytes.Clone(src)
		out, findings := Redact(src)
		if !bytes.Equal(src, orig) {
			t.Fatalf("Redact modified its input")
		}
		if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
			t.Fatalf("line count changed: %q -> %q", src, out)
		}
		if len(findings) == 0 && !bytes.Equal(out, src) {
			t.Fatalf("output changed without findings")
		}
		again, _ := Redact(out)
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n in: %q\n 1st: %q\n 2nd: %q", src, out, again)
		}
	})
}

// goRoot is the Go toolchain's root (its src tree is the benchmark corpus).
func goRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
