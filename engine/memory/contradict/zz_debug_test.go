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
		{"The billing service stores invoices in PostgreSQL.", "Invoices of the billing service live in MongoDB."},
		{"Builds run on self-hosted runners.", "Builds run on GitHub-hosted runners."},
		{"We use trunk-based development.", "We use GitFlow with long-lived feature branches."},
		{"The cache is write-through.", "The cache is write-back."},
		{"Passwords are hashed with bcrypt.", "We hash passwords using argon2."},
		{"The API returns timestamps in UTC.", "The API returns timestamps in the user's local time zone."},
		{"Logs are shipped to Elasticsearch.", "Logs go to Loki."},
		{"Feature branches are squashed on merge.", "Feature branches are merged with a merge commit."},
		{"The queue delivers messages at least once.", "The queue delivers messages exactly once."},
		{"The nightly job runs at 03:00.", "The nightly job runs at 05:00."},
		{"Reports are emailed every Monday.", "Reports are emailed on the first day of each month."},
		{"The service is deployed with Helm charts.", "The service is deployed with Kustomize."},
		{"Config is loaded from environment variables.", "Config is loaded from a YAML file."},
		{"The default page size is 20.", "By default, pages hold 50 items."},
		{"Admins can export user data.", "Admins are not allowed to export user data."},
		{"Retries are disabled for the payment webhook.", "The payment webhook is retried up to 5 times."},
		{"Tests are written with pytest.", "Tests are written with unittest."},
		{"The frontend talks to the backend over GraphQL.", "The frontend calls the backend's REST API."},
		{"Images are resized on upload.", "Images are resized lazily on first request."},
		{"The service authenticates users with SAML.", "Users sign in to the service with OpenID Connect."},
	}
	for _, p := range probes {
		r := Check(Statement{Text: p[0]}, Statement{Text: p[1]})
		t.Logf("%v | %s | %s || %s", r.Contradicts, p[0], p[1], r.Reason)
	}
}
