package main

import (
	"strings"
	"testing"
)

// Flags that make no sense exit 2 with the valid values, before any database
// work: the URL points at a closed port, so reaching the database would exit 1.
func TestNonsenseFlagsAreUsageErrors(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"search", "x", "--limit", "-1"}, "--limit must be between 1 and"},
		{[]string{"search", "x", "--limit", "0"}, "--limit must be between 1 and"},
		{[]string{"search", "x", "--budget", "-5"}, "--budget must be between 0 and"},
		{[]string{"search", "x", "--ef-search", "0"}, "--ef-search must be between 1 and"},
		{[]string{"search", "x", "--k", "-3"}, "--k must be between 0 and"},
		{[]string{"search", "x", "--test-factor", "2"}, "--test-factor must be between 0 and 1"},
		{[]string{"search", "x", "--half-life", "-1h"}, "--half-life must not be negative"},
		{[]string{"search", "x", "--lexical", "tfidf"}, "--lexical must be one of cd, bm25"},
		{[]string{"search", "x", "--kind", "fuzzy"}, "--kind must be one of identifier, semantic"},
		{[]string{"search", "x", "--channels", "dense,magic"}, "unknown channel"},
		{[]string{"symbols", "--kind", "funtion"}, "--kind must be one of function, method"},
		{[]string{"callers", "X", "--depth", "0"}, "--depth must be between 1 and"},
		{[]string{"imports", "x.go", "--depth", "-1"}, "--depth must be between 1 and"},
		{[]string{"memory", "search", "x", "--limit", "-2"}, "--limit must be between 1 and 40"},
		{[]string{"memory", "list", "--limit", "0"}, "--limit must be between 1 and"},
		{[]string{"eval", "--queries", "q.jsonl", "--k", "-1"}, "--k must be between 0 and"},
		{[]string{"eval", "--queries", "q.jsonl", "--lexical", "x"}, "--lexical must be one of"},
		{[]string{"index", "--workers", "-1"}, "--workers must be between 0 and"},
		{[]string{"index", "--max-file-bytes", "0"}, "--max-file-bytes must be positive"},
		{[]string{"embed", "import-wink", "--from", "x.tgz", "--words", "-1"}, "--words must not be negative"},
	}
	for _, c := range cases {
		code, _, errOut := spelunk(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("spelunk %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}
