package pg

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitStatementsKeepsQuotedSemicolons(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		want []string
	}{
		{"plain", "CREATE TABLE a (x int);\nALTER TABLE a ADD y int;", []string{"CREATE TABLE a (x int);", "ALTER TABLE a ADD y int;"}},
		{"no final semicolon", "SELECT 1; SELECT 2", []string{"SELECT 1;", "SELECT 2"}},
		{"comments only dropped", "-- a; b\n/* c; */\nSELECT 1;\n-- trailing; note\n", []string{"-- a; b\n/* c; */\nSELECT 1;"}},
		{"nested block comment", "/* a /* b; */ c; */ SELECT 1;", []string{"/* a /* b; */ c; */ SELECT 1;"}},
		{"string", "SELECT 'a;b', 'it''s;'; SELECT 2;", []string{"SELECT 'a;b', 'it''s;';", "SELECT 2;"}},
		{"escape string", `SELECT E'a\';b'; SELECT 2;`, []string{`SELECT E'a\';b';`, "SELECT 2;"}},
		{"E ending a word is no escape", `SELECT x FROM tablE'; '`, []string{`SELECT x FROM tablE'; '`}},
		{"quoted identifier", `SELECT "a;""b"; SELECT 2;`, []string{`SELECT "a;""b";`, "SELECT 2;"}},
		{"dollar body", "DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;\nSELECT 3;", []string{"DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;", "SELECT 3;"}},
		{"tagged dollar body", "CREATE FUNCTION f() RETURNS int AS $fn$ SELECT 1; $$ $fn$ LANGUAGE sql; SELECT 2;", []string{"CREATE FUNCTION f() RETURNS int AS $fn$ SELECT 1; $$ $fn$ LANGUAGE sql;", "SELECT 2;"}},
		{"parameters and dollar in names", "SELECT $1, a$b FROM t; SELECT 2;", []string{"SELECT $1, a$b FROM t;", "SELECT 2;"}},
		{"comment inside dollar body", "DO $$ BEGIN -- x; y\n PERFORM 1; END $$;", []string{"DO $$ BEGIN -- x; y\n PERFORM 1; END $$;"}},
	}
	for _, c := range cases {
		if got := splitStatements(c.sql); !slices.Equal(got, c.want) {
			t.Errorf("%s: splitStatements(%q)\n got %q\nwant %q", c.name, c.sql, got, c.want)
		}
	}
}

// TestSplitStatementsCoversEveryMigration: each embedded migration cuts into
// statements that, in order, leave only blanks and line comments between them.
func TestSplitStatementsCoversEveryMigration(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	onlyComments := func(gap string) bool {
		for _, line := range strings.Split(gap, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "--") {
				return false
			}
		}
		return true
	}
	for _, m := range ms {
		stmts := splitStatements(m.SQL)
		if len(stmts) == 0 {
			t.Errorf("migration %04d: no statements", m.Version)
		}
		pos := 0
		for _, st := range stmts {
			j := strings.Index(m.SQL[pos:], st)
			if j < 0 || !onlyComments(m.SQL[pos:pos+j]) {
				t.Fatalf("migration %04d: text left out before statement %q", m.Version, st)
			}
			pos += j + len(st)
		}
		if !onlyComments(m.SQL[pos:]) {
			t.Errorf("migration %04d: text left out at the end: %q", m.Version, m.SQL[pos:])
		}
	}
}
