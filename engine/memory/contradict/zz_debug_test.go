package contradict

import (
	"os"
	"testing"
)

func TestZZDebug(t *testing.T) {
	a, b := os.Getenv("ZA"), os.Getenv("ZB")
	if a == "" {
		t.Skip()
	}
	sa, sb := analyze(Statement{Text: a}), analyze(Statement{Text: b})
	for _, c := range sa.clauses {
		for _, tk := range c.toks {
			t.Logf("A tok %q key=%q stop=%v shaped=%v", tk.surface, tk.key, tk.stop, tk.shaped)
		}
	}
	for _, c := range sb.clauses {
		for _, tk := range c.toks {
			t.Logf("B tok %q key=%q stop=%v shaped=%v", tk.surface, tk.key, tk.stop, tk.shaped)
		}
	}
	t.Logf("%+v", Check(Statement{Text: a}, Statement{Text: b}))
}

func TestZZTune(t *testing.T) {
	if os.Getenv("ZT") == "" {
		t.Skip()
	}
	for _, p := range (pairSet{file: "pairs_heldout2", split: "tune"}).load(t) {
		if p.Conflict {
			r := Check(Statement{Text: p.A}, Statement{Text: p.B})
			t.Logf("%s %v | %s | %s || %s", p.Category, r.Contradicts, p.A, p.B, r.Reason)
		}
	}
}

func TestZZProbe(t *testing.T) {
	if os.Getenv("ZP") == "" {
		t.Skip()
	}
	probes := [][2]string{
		{"The mobile app stores tokens in the keychain.", "The mobile app keeps tokens in shared preferences."},
		{"Background jobs are scheduled with cron.", "Background jobs are scheduled by Temporal workflows."},
		{"Schema migrations are applied automatically on deploy.", "Schema migrations are applied by hand before each deploy."},
		{"The CDN caches API responses.", "API responses are never cached by the CDN."},
		{"Code review requires one approval.", "Code review requires two approvals."},
		{"We version the API in the URL path.", "The API is versioned through an Accept header."},
		{"Branch names use kebab-case.", "Branch names use snake_case."},
		{"Errors are reported to Sentry.", "Errors are reported to Rollbar."},
		{"The search service is written in Java.", "The search service is implemented in Rust."},
		{"Uploads are stored in the eu-west-1 region.", "Uploads are stored in us-east-1."},
		{"The job queue is backed by RabbitMQ.", "The job queue runs on Kafka."},
		{"Emails are sent from noreply@example.com.", "Emails are sent from support@example.com."},
		{"The app supports dark mode.", "The app has no dark mode."},
		{"Inactive sessions time out after 30 minutes.", "Inactive sessions time out after 2 hours."},
		{"Stale issues are closed after 60 days.", "Stale issues are never closed automatically."},
		{"Public endpoints require an API key.", "Public endpoints can be called without an API key."},
	}
	for _, p := range probes {
		r := Check(Statement{Text: p[0]}, Statement{Text: p[1]})
		t.Logf("%v | %s | %s || %s", r.Contradicts, p[0], p[1], r.Reason)
	}
}
