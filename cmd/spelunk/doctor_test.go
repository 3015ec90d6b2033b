package main

import (
	"strings"
	"testing"
)

// TestDoctorAndErrorsHidePasswords runs the CLI against a closed port: neither the
// doctor report nor the error a command ends with may print the password, and the
// URL they print stays readable.
func TestDoctorAndErrorsHidePasswords(t *testing.T) {
	t.Setenv("SPELUNK_EMBEDDER", "hash")
	t.Setenv("PGPASSWORD", "EnvS3cretPw")
	secrets := []string{"S3cr%40t%21pw", "S3cr@t!pw", ":pw@", "EnvS3cretPw"}
	for _, url := range []string{
		"postgres://admin:S3cr%40t%21pw@127.0.0.1:1/db?sslmode=disable",
		"postgres://admin:pw@127.0.0.1:1/db?sslmode=disable",
	} {
		for _, args := range [][]string{
			{"--db", url, "doctor"},
			{"--db", url, "doctor", "--json"},
			{"--db", url, "status"},
		} {
			code, out, errOut := spelunk(t, args...)
			all := out + errOut
			if code != 1 {
				t.Errorf("spelunk %v: exit %d, want 1: %s", args, code, all)
			}
			for _, s := range secrets {
				if strings.Contains(all, s) {
					t.Errorf("spelunk %v prints the password (%q): %s", args, s, all)
				}
			}
			if !strings.Contains(all, "postgres://admin:xxxxx@127.0.0.1:1/db") {
				t.Errorf("spelunk %v does not name the server readably: %s", args, all)
			}
		}
	}
}
