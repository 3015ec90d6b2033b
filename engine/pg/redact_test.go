package pg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/pg"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"percent-encoded password", "postgres://admin:S3cr%40t%21pw@db.example.com:5433/code?sslmode=require",
			"postgres://admin:xxxxx@db.example.com:5433/code?sslmode=require"},
		{"two-character password keeps the scheme", "postgres://admin:pw@host/db",
			"postgres://admin:xxxxx@host/db"},
		{"password equal to the user name", "postgresql://postgres:postgres@localhost/postgres",
			"postgresql://postgres:xxxxx@localhost/postgres"},
		{"query parameter", "postgres://admin@host/db?sslmode=disable&password=pw&application_name=x",
			"postgres://admin@host/db?sslmode=disable&password=xxxxx&application_name=x"},
		{"encoded query key and sslpassword", "postgres://h/db?pass%77ord=pw&sslpassword=pw2",
			"postgres://h/db?pass%77ord=xxxxx&sslpassword=xxxxx"},
		{"unencoded @ in the password", "postgres://admin:S3cr@t!pw@host/db",
			"postgres://admin:xxxxx@host/db"},
		{"unencoded / in the password", "postgres://admin:S3cr/t?pw@host/db",
			"postgres://admin:xxxxx@host/db"},
		{"bad percent-encoding", "postgres://admin:S3cr%zzpw@host/db",
			"postgres://admin:xxxxx@host/db"},
		{"no password", "postgres://postgres@/spelunk?host=/tmp/spelunk-1/pg&port=5432&sslmode=disable",
			"postgres://postgres@/spelunk?host=/tmp/spelunk-1/pg&port=5432&sslmode=disable"},
		{"@ in the path is not user info", "postgres://host:5432/db@x", "postgres://host:5432/db@x"},
		{"upper-case scheme", "POSTGRES://a:pw@h/d", "POSTGRES://a:xxxxx@h/d"},
		{"keyword/value", "host=h user=admin password=S3cr@t!pw dbname=db",
			"host=h user=admin password=xxxxx dbname=db"},
		{"keyword/value quoted with spaces", `host=h password = 'it\'s a pw' dbname=db`,
			`host=h password = 'xxxxx' dbname=db`},
		{"keyword/value last", "dbname=db sslpassword=pw", "dbname=db sslpassword=xxxxx"},
		{"keyword/value without password", "host=/tmp port=5432 dbname=spelunk", "host=/tmp port=5432 dbname=spelunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pg.RedactURL(tt.in); got != tt.want {
				t.Errorf("RedactURL(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactText(t *testing.T) {
	in := "open: cannot parse `host=h password=pw`; cannot connect to PostgreSQL at " +
		"postgres://admin:S3cr%40t%21pw@127.0.0.1:1/db?password=pw2: password authentication failed"
	// In free text a value runs to the next white space, so the punctuation after it
	// goes too: better than printing a password that contains some.
	want := "open: cannot parse `host=h password=xxxxx cannot connect to PostgreSQL at " +
		"postgres://admin:xxxxx@127.0.0.1:1/db?password=xxxxx password authentication failed"
	if got := pg.RedactText(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestConnectErrorsHidePasswords connects to a closed port for real: neither the
// message spelunk writes nor the pgx error it wraps may carry the password.
func TestConnectErrorsHidePasswords(t *testing.T) {
	t.Setenv("PGPASSWORD", "EnvS3cretPw")
	tests := []struct{ name, url, want string }{
		{"percent-encoded", "postgres://admin:S3cr%40t%21pw@127.0.0.1:1/db?sslmode=disable",
			"postgres://admin:xxxxx@127.0.0.1:1/db?sslmode=disable"},
		{"two characters", "postgres://admin:pw@127.0.0.1:1/db?sslmode=disable",
			"postgres://admin:xxxxx@127.0.0.1:1/db?sslmode=disable"},
		{"query parameter", "postgres://admin@127.0.0.1:1/db?sslmode=disable&password=S3cr%40t%21pw",
			"postgres://admin@127.0.0.1:1/db?sslmode=disable&password=xxxxx"},
		{"keyword/value", "host=127.0.0.1 port=1 user=admin password=S3cr@t!pw dbname=db sslmode=disable",
			"host=127.0.0.1 port=1 user=admin password=xxxxx dbname=db sslmode=disable"},
		{"from PGPASSWORD", "postgres://admin@127.0.0.1:1/db?sslmode=disable",
			"postgres://admin@127.0.0.1:1/db?sslmode=disable"},
		{"unparsable", "postgres://admin:S3cr%zzpw@127.0.0.1:1/db", "postgres://admin:xxxxx@127.0.0.1:1/db"},
	}
	secrets := []string{"S3cr%40t%21pw", "S3cr@t!pw", "S3cr%zzpw", ":pw@", "=pw", "EnvS3cretPw"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOwner := pg.ConnectOwner(context.Background(), tt.url)
			_, errOpen := pg.Open(context.Background(), pg.Options{URL: tt.url})
			for _, err := range []error{errOwner, errOpen} {
				if err == nil {
					t.Fatal("connected to a closed port")
				}
				msg := err.Error()
				for _, s := range secrets {
					if strings.Contains(msg, s) {
						t.Errorf("error shows the password (%q): %s", s, msg)
					}
				}
				if !strings.Contains(msg, tt.want) {
					t.Errorf("error %q does not name the server as %q", msg, tt.want)
				}
			}
		})
	}
}
