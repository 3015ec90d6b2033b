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
		{[]string{"search", "x", "--lexical", "tfidf"}, "--lexical must be one of bm25"},
		{[]string{"search", "x", "--kind", "fuzzy"}, "--kind must be one of identifier, semantic"},
		{[]string{"search", "x", "--channels", "dense,magic"}, "unknown channel"},
		{[]string{"search", "x", "--expand", "yes"}, "--expand must be one of on, off"},
		{[]string{"eval", "--queries", "q.jsonl", "--expand", "maybe"}, "--expand must be one of on, off"},
		{[]string{"symbols", "--kind", "funtion"}, "--kind must be one of function, method"},
		{[]string{"callers", "X", "--depth", "0"}, "--depth must be between 1 and"},
		{[]string{"imports", "x.go", "--depth", "-1"}, "--depth must be between 1 and"},
		{[]string{"importers", "x.go", "--tests", "some"}, "--tests must be one of include, exclude, only"},
		{[]string{"importers", "x.go", "--limit", "-1"}, "--limit must be 0 (no limit) or more"},
		{[]string{"eval", "--queries", "q.jsonl", "--tests", "all"}, "--tests must be one of include, exclude, only"},
		{[]string{"memory", "search", "x", "--limit", "-2"}, "--limit must be between 1 and 40"},
		{[]string{"memory", "list", "--limit", "0"}, "--limit must be between 1 and"},
		{[]string{"eval", "--queries", "q.jsonl", "--k", "-1"}, "--k must be between 0 and"},
		{[]string{"eval", "--queries", "q.jsonl", "--lexical", "x"}, "--lexical must be one of"},
		{[]string{"index", "--workers", "-1"}, "--workers must be between 0 and"},
		{[]string{"hooks", "status", "--repo", ".", "--repo", ".."}, "spelunk hooks works on one repository"},
		{[]string{"index", "--max-file-bytes", "0"}, "--max-file-bytes must be positive"},
		{[]string{"embed", "import-wink", "--from", "x.tgz", "--words", "-1"}, "--words must not be negative"},
		{[]string{"eval", "history", "--commits", "0"}, "--commits and --max-files must be at least 1"},
		{[]string{"eval", "history", "--max-files", "0"}, "--commits and --max-files must be at least 1"},
		{[]string{"search", "x", "--embedder", "word2vec"}, "--embedder (or $SPELUNK_EMBEDDER) must be one of auto, code, glove, hash, openai"},
		{[]string{"index", "--embed-dims", "-4"}, "--embed-dims (or $SPELUNK_EMBED_DIMS) must be between 0 and"},
		{[]string{"memory", "search", "x", "--embed-dims", "20000"}, "--embed-dims (or $SPELUNK_EMBED_DIMS) must be between 0 and"},
		{[]string{"briefing", "--limit", "0"}, "--limit must be between 1 and 100"},
		{[]string{"memory", "add", "x", "--kind", "fact", "--author", "me", "--threshold", "2"}, "--threshold must be between 0 and 1"},
		{[]string{"conflicts", "list", "--status", "closed"}, "--status must be open, resolved or all"},
		{[]string{"callers", "X", "--min-confidence", "sure"}, "--min-confidence must be one of exact, inferred, ambiguous"},
		{[]string{"readers", "X", "--depth", "9"}, "--depth must be between 1 and 5"},
		{[]string{"importers", "x.go", "--depth", "0"}, "--depth must be between 1 and 5"},
		{[]string{"memory", "list", "--status", "gone"}, "--status must be one of"},
		{[]string{"watch", "--max-paths", "0"}, "--max-paths must be between 1 and"},
		{[]string{"serve", "--webhook", ":0", "--job-timeout", "0s"}, "--job-timeout must be positive"},
	}
	for _, c := range cases {
		code, _, errOut := spelunk(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("spelunk %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// A number of dimensions in the environment that is not a number was read as 0
// (the default) without a word.
func TestEmbedDimsEnvIsChecked(t *testing.T) {
	t.Setenv("SPELUNK_DATABASE_URL", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	t.Setenv("SPELUNK_EMBED_DIMS", "384d")
	code, _, errOut := spelunk(t, "search", "x")
	if code != 2 || !strings.Contains(errOut, `$SPELUNK_EMBED_DIMS must be a number of dimensions (got "384d")`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
