package doctor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/doctor"
)

// TestDoctorHidesPasswords runs the checks against a closed port for real: the
// report names the server but no password, however it was written.
func TestDoctorHidesPasswords(t *testing.T) {
	t.Setenv("PGPASSWORD", "EnvS3cretPw")
	tests := []struct{ url, want string }{
		{"postgres://admin:S3cr%40t%21pw@127.0.0.1:1/db?sslmode=disable", "postgres://admin:xxxxx@127.0.0.1:1/db"},
		{"postgres://admin:pw@127.0.0.1:1/db?sslmode=disable", "postgres://admin:xxxxx@127.0.0.1:1/db"},
		{"host=127.0.0.1 port=1 user=admin password=S3cr@t!pw sslmode=disable", "host=127.0.0.1 port=1 user=admin password=xxxxx"},
		{"postgres://admin:S3cr%zzpw@127.0.0.1:1/db", "postgres://admin:xxxxx@127.0.0.1:1/db"},
	}
	for _, tt := range tests {
		checks := doctor.Run(context.Background(), doctor.Options{DatabaseURL: tt.url})
		report, err := json.Marshal(checks)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"S3cr%40t%21pw", "S3cr@t!pw", "S3cr%zzpw", ":pw@", "EnvS3cretPw"} {
			if strings.Contains(string(report), secret) {
				t.Errorf("doctor report shows %q: %s", secret, report)
			}
		}
		if !strings.Contains(string(report), tt.want) {
			t.Errorf("doctor report does not name the server as %q: %s", tt.want, report)
		}
	}
}
