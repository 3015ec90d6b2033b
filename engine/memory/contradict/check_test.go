package contradict

import "testing"

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want Kind
	}{
		{"negated verb", "Tests run in parallel.", "Tests do not run in parallel.", KindPolarity},
		{"antonym", "Caching is enabled.", "Caching is disabled.", KindPolarity},
		{"double negation agrees", "Never disable TLS on the API.", "TLS must always be enabled on the API.", KindNone},
		{"different port", "The gateway binds to port 8080.", "The gateway binds to port 8443.", KindValue},
		{"extra value agrees", "The gateway binds to port 8080.", "The gateway binds to port 8080 and 8443.", KindNone},
		{"same duration in other units", "Tokens live for 2 hours.", "Tokens live for 120 minutes.", KindNone},
		{"same size in other units", "The cap is 1 MB.", "The cap is 1 MiB.", KindNone},
		{"different choice", "Use Redis for caching.", "Use Memcached for caching.", KindChoice},
		{"different lowercase choice", "Format the code with prettier.", "Format the code with biome.", KindChoice},
		{"participle paraphrase", "Sessions are stored in Redis.", "Sessions are kept in Redis.", KindNone},
		{"different subject names", "Stripe webhooks are verified with a signature.", "GitHub webhooks are verified with a signature.", KindNone},
		{"different scope", "Logging is verbose in development.", "Logging is not verbose in production.", KindNone},
		{"partial value overlap", "Timeouts are 30s for reads and 60s for writes.", "The read timeout is 30s.", KindNone},
		{"events differ in values", "Deployed 1.2.0 on Monday.", "Deployed 1.3.0 on Tuesday.", KindNone},
		{"unrelated", "The CLI is written in Go.", "Backups run every night at 02:00.", KindNone},
		{"empty", "", "", KindNone},
		{"punctuation only", "...", "?!", KindNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Statement{Text: tt.a}, Statement{Text: tt.b}
			if tt.name == "events differ in values" {
				a.Event, b.Event = true, true
			}
			got := Check(a, b)
			if got.Kind != tt.want || got.Contradicts != (tt.want != KindNone) {
				t.Fatalf("Check(%q, %q) = %+v, want kind %q", tt.a, tt.b, got, tt.want)
			}
			// The verdict must not depend on the order of the statements.
			if rev := Check(b, a); rev.Contradicts != got.Contradicts {
				t.Fatalf("Check is not symmetric: %+v vs %+v", got, rev)
			}
		})
	}
}

func TestStem(t *testing.T) {
	groups := [][]string{
		{"retry", "retries", "retried", "retrying"},
		{"merge", "merging", "merged", "merges"},
		{"use", "uses", "used", "using"},
		{"commit", "committing", "committed", "commits"},
		{"enable", "enabled", "enables", "enabling"},
		{"cache", "caching", "cached", "caches"},
		{"paginate", "pagination", "paginates", "paginated"},
		{"validate", "validation", "validating"},
	}
	for _, g := range groups {
		want := stem(g[0])
		for _, w := range g[1:] {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, want %q (as stem(%q))", w, got, want, g[0])
			}
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("The API listens on port 8080.", "Port 9090 is where the API listens, not 8080.")
	f.Add("isn't can't won't", "https://x/ ~/a/b 10MB 3.2.1 one")
	f.Fuzz(func(t *testing.T, a, b string) {
		Check(Statement{Text: a}, Statement{Text: b}) // must not panic
	})
}

func BenchmarkCheckLong(b *testing.B) {
	long := ""
	for len(long) < 64<<10 {
		long += "the service does not retry failed webhooks and uses port 8080 with Redis "
	}
	for b.Loop() {
		Check(Statement{Text: long}, Statement{Text: long + " x"})
	}
}

func BenchmarkCheckShort(b *testing.B) {
	for b.Loop() {
		Check(Statement{Text: "Order confirmation emails are sent synchronously during checkout."},
			Statement{Text: "Order confirmation emails are sent asynchronously by a background worker, not during checkout."})
	}
}

func TestCheckReasons(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"Query result caching is enabled in production.", "Query result caching is disabled in production.",
			`negation: "enabled" vs "disabled" (about Query result caching production)`},
		{"The payments service retries failed webhooks.", "The payments service does not retry failed webhooks.",
			`negation: "retries" vs "not retry" (about payments service failed webhooks)`},
		{"The API server listens on port 8080.", "The API server listens on port 9090.", "different port: 8080 vs 9090"},
		{"Session tokens expire after 15 minutes.", "Session tokens expire after 24 hours.", "different duration: 15 minutes vs 24 hours"},
		{"Use pnpm to install JavaScript dependencies.", "Use yarn to install JavaScript dependencies.", `different choice after "Use": "pnpm" vs "yarn"`},
	}
	for _, tt := range tests {
		if got := Check(Statement{Text: tt.a}, Statement{Text: tt.b}).Reason; got != tt.want {
			t.Errorf("Check(%q, %q).Reason = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}
