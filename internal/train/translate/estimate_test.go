package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// synthetic builds a corpus of many repositories where "twice" goes with
// dedupe code everywhere, and one repository where "editor" always goes with
// code using "beans" (its own vocabulary, an artefact).
func synthetic() *corpus {
	c := newCorpus()
	for r := range 8 {
		repo := fmt.Sprintf("repo%d", r)
		for i := range 20 {
			c.add(repo, "skip the message sent twice", fmt.Sprintf("func dedupeOutbox%d(items) { seen := map(); mark(items) }", i))
			c.add(repo, "parse the header line", fmt.Sprintf("func parseHeader%d(line) { split(line); trim(line) }", i))
			c.add(repo, "open the editor window", fmt.Sprintf("func openWindow%d(pane) { draw(pane) }", i))
			c.add(repo, "close the socket", fmt.Sprintf("func closeConn%d(conn) { release(conn) }", i))
		}
	}
	for i := range 40 {
		c.add("beansrepo", "the editor shows beans", fmt.Sprintf("func beansEditor%d(beans) { render(beans) }", i))
	}
	return c
}

// small is DefaultSettings for a corpus of a few pairs a repository, where
// every token is in more than MaxShare of the code.
func small() Settings {
	s := DefaultSettings
	s.MaxShare = 0
	return s
}

func TestEstimateKeepsWhatManyRepositoriesAgreeOn(t *testing.T) {
	table := estimate(synthetic(), small())
	got := map[string]float64{}
	for _, tr := range table["twice"] {
		got[tr.Token] = tr.Weight
	}
	if got["dedupe"] < 0.2 {
		t.Errorf("twice → dedupe: weight %.2f, want ≥ 0.2 (in %v)", got["dedupe"], table["twice"])
	}
	for _, tr := range table["editor"] {
		if tr.Token == "beans" {
			t.Errorf("editor → beans kept (%.2f, %d repos): one repository's vocabulary", tr.Weight, tr.Repos)
		}
	}
	// Identity and stems are the lexical channel's already.
	for word, ts := range table {
		for _, tr := range ts {
			if sameWord(word, tr.Token) {
				t.Errorf("%s → %s: the word itself", word, tr.Token)
			}
		}
	}
	if _, ok := table["parse"]; ok && len(table["parse"]) > 0 {
		for _, tr := range table["parse"] {
			if tr.Token == "parse" || tr.Token == "header" {
				t.Errorf("parse → %s: a word of the text itself", tr.Token)
			}
		}
	}
}

func TestEstimateNeedsRepositories(t *testing.T) {
	c := newCorpus()
	for i := range 50 {
		c.add("one", "send it twice", fmt.Sprintf("func dedupe%d() { x() }", i))
		c.add("one", "close the socket", fmt.Sprintf("func closeConn%d() { y() }", i))
	}
	if ts := estimate(c, small())["twice"]; len(ts) != 0 {
		t.Errorf("one repository gave %v, want nothing (MinRepos %d)", ts, DefaultSettings.MinRepos)
	}
}

// A token in much of every repository's code (get, value) is no translation.
func TestEstimateDropsCommonTokens(t *testing.T) {
	c := synthetic()
	s := small()
	s.Top = 10
	if !hasToken(estimate(c, s)["twice"], "outbox") {
		t.Fatal("twice → outbox missing without MaxShare")
	}
	s.MaxShare = 0.2 // outbox is in a quarter of each repository's code
	if hasToken(estimate(c, s)["twice"], "outbox") {
		t.Error("twice → outbox kept above MaxShare")
	}
}

func hasToken(ts []Translation, tok string) bool {
	for _, t := range ts {
		if t.Token == tok {
			return true
		}
	}
	return false
}

func TestSameWord(t *testing.T) {
	for _, tc := range []struct {
		w, t string
		same bool
	}{
		{"parse", "parse", true}, {"parsing", "parser", true}, {"dedupes", "dedupe", true},
		{"config", "configuration", true}, {"retries", "retry", true}, {"lazily", "lazy", true},
		{"twice", "dedupe", false}, {"remove", "delete", false},
	} {
		if got := sameWord(tc.w, tc.t); got != tc.same {
			t.Errorf("sameWord(%q, %q) = %v, want %v", tc.w, tc.t, got, tc.same)
		}
	}
}

func TestWithoutImports(t *testing.T) {
	got := withoutImports("package foo\nimport com.acme.Beans;\nfrom x import y\nfunc run() { important() }")
	if got != "func run() { important() }" {
		t.Errorf("withoutImports = %q", got)
	}
}

func TestWriteSortedHundredths(t *testing.T) {
	var b bytes.Buffer
	err := write(&b, map[string][]Translation{
		"twice":  {{Token: "dedupe", Weight: 0.314}, {Token: "seen", Weight: 0.001}},
		"delete": {{Token: "remove", Weight: 0.5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Header + "\ndelete\tremove:50\ntwice\tdedupe:31,seen:1\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if !strings.HasPrefix(Header, "# ") {
		t.Error("the header must be a comment line")
	}
}

// -inflections: a word meets the code tokens of its stem, first.
func TestInflections(t *testing.T) {
	c := newCorpus()
	for r := range 5 {
		repo := fmt.Sprintf("repo%d", r)
		c.add(repo, "updates are batched", "func flush() { send(batch) }")
		c.add(repo, "sends each batch", "func sendBatches() { post() }")
	}
	got := merge(inflections(c, 4, 2), map[string][]Translation{"batched": {{Token: "flush", Weight: 0.3}}}, 3)
	var toks []string
	for _, tr := range got["batched"] {
		toks = append(toks, tr.Token)
	}
	if strings.Join(toks, ",") != "batch,batches,flush" {
		t.Errorf("batched → %v, want batch, batches, then flush", toks)
	}
}
