package redact

import (
	"strings"
	"testing"
)

// TestRedactEscapedQuotes covers secrets inside escaped quotes (issue 11: a JSON
// value holding `\"<secret>\"` survived): a string nested in another string's
// text, as JSON, YAML, .env files and JS source write them.
func TestRedactEscapedQuotes(t *testing.T) {
	tests := []struct {
		name, in, secret string
	}{
		{"json escaped aws secret", `{"aws_secret_access_key": "\"` + awsSecret + `\""}`, awsSecret},
		{"json escaped token", `{"api_token": "\"` + entropic + `\""}`, entropic},
		{"json escaped password", `{"db_password": "\"hunter2-Zq9x\""}`, "hunter2-Zq9x"},
		{"json escaped single quotes", `{"password": "'hunter2-Zq9x'"}`, "hunter2-Zq9x"},
		{"json doubly escaped", `"{\"client_secret\": \"` + entropic + `\"}"`, entropic},
		{"yaml escaped", "aws_secret_access_key: \"\\\"" + awsSecret + "\\\"\"\n", awsSecret},
		{"yaml single-quoted in double", "api_key: \"'" + entropic + "'\"\n", entropic},
		{"env escaped", "API_SECRET=\"\\\"" + entropic + "\\\"\"\n", entropic},
		{"env single quotes", "DB_PASSWORD='hunter2-Zq9x'\n", "hunter2-Zq9x"},
		{"js escaped in a string", `const cfg = "{\"apiKey\": \"` + entropic + `\"}";`, entropic},
		{"js single-quoted json", `const cfg = '{"secret_key": "` + entropic + `"}';`, entropic},
		{"js escaped single quotes", `const s = 'token: \'` + entropic + `\'';`, entropic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, findings := Redact([]byte(tt.in))
			if strings.Contains(string(got), tt.secret) || strings.Contains(string(got), tt.secret[:12]) {
				t.Fatalf("secret survived:\n in: %s\nout: %s", tt.in, got)
			}
			if len(findings) == 0 || !strings.Contains(string(got), markerPrefix) {
				t.Fatalf("no finding for %s: %s", tt.in, got)
			}
			if again, _ := Redact(got); string(again) != string(got) {
				t.Fatalf("not idempotent: %s -> %s", got, again)
			}
		})
	}
}

// TestEscapedQuotesLeaveCodeAlone: escaped strings that hold no secret stay as
// they are.
func TestEscapedQuotesLeaveCodeAlone(t *testing.T) {
	for _, in := range []string{
		`{"password": "\"\""}`,
		`{"token": "\"${TOKEN}\""}`,
		`{"api_key": "\"YOUR_API_KEY\""}`,
		`{"password_hint": "\"the usual\""}`,
		`msg := "token: \"expired\""`,
		`{"secret": "\"changeme\""}`,
		`{"token_type": "\"Bearer\""}`,
		`fmt.Printf("password=\"%s\"\n", p)`,
		`log("api_key: \"" + key + "\"")`,
	} {
		if got, f := Redact([]byte(in)); string(got) != in {
			t.Errorf("redacted %v:\n in: %s\nout: %s", f, in, got)
		}
	}
}

// TestEscapedQuotesRedactOnlyTheSecret: the quotes around a nested value stay, and
// the secret keeps its kind.
func TestEscapedQuotesRedactOnlyTheSecret(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"aws_secret_access_key": "\"` + awsSecret + `\""}`,
			`{"aws_secret_access_key": "\"` + marker(KindAWSSecret) + `\""}`},
		{`"{\"aws_secret_access_key\": \"` + awsSecret + `\"}"`,
			`"{\"aws_secret_access_key\": \"` + marker(KindAWSSecret) + `\"}"`},
		{`{"password": "'hunter2-Zq9x'"}`, `{"password": "'` + marker(KindPassword) + `'"}`},
		{"api_key: \"\\'" + entropic + "\\'\"\n", "api_key: \"\\'" + marker(KindCredential) + "\\'\"\n"},
		{`x = "{\"id\": \"` + entropic + `\"}"`, `x = "{\"id\": \"` + marker(KindHighEntropy) + `\"}"`},
	}
	for _, tt := range tests {
		if got, _ := Redact([]byte(tt.in)); string(got) != tt.want {
			t.Errorf("Redact(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
