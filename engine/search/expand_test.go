package search

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func testTable(t *testing.T, tsv string) *translationTable {
	t.Helper()
	tab, err := parseTranslations([]byte(tsv))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// The built-in table reads, is named with its checksum, and holds no word
// translated into itself.
func TestBuiltInTranslationTable(t *testing.T) {
	name, err := TranslationModel()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "spelunk-translate-v1-") || len(name) != len("spelunk-translate-v1-")+8 {
		t.Errorf("name %q, want spelunk-translate-v1-<crc32c>", name)
	}
	tab := translations()
	if len(tab.byWord) < 1000 {
		t.Errorf("%d words translated, want a real table", len(tab.byWord))
	}
	for w, es := range tab.byWord {
		if len(es) > expandPerWord {
			t.Errorf("%s: %d translations, the engine reads %d", w, len(es), expandPerWord)
		}
		for _, e := range es {
			if e.Term == w || e.Weight <= 0 || e.Weight > 1 {
				t.Errorf("%s → %s %.2f", w, e.Term, e.Weight)
			}
		}
	}
}

func TestExpansionsDeduplicateAndCap(t *testing.T) {
	tab := testTable(t, "# spelunk-translate-v1: test\nduplicate\tdedupe:20,seen:10\ntwice\tdedupe:31,outbox:12,reminder:5,extra:4\n")
	got := tab.expansions([]string{"duplicate", "twice", "reminder"})
	want := []Expansion{{"dedupe", "twice", 0.31}, {"seen", "duplicate", 0.10}, {"outbox", "twice", 0.12}}
	if !slices.Equal(got, want) {
		t.Errorf("expansions = %v, want %v (the query's own word reminder left out, 3 a word)", got, want)
	}
	if s := want[0].String(); s != "matched `dedupe` ← learned from `twice`, 0.31" {
		t.Errorf("explain line %q", s)
	}
	for _, bad := range []string{"no header\n", "# x: y\nword\n", "# x: y\nword\ttok:0\n", "# x: y\nword\ttok:101\n"} {
		if _, err := parseTranslations([]byte(bad)); err == nil {
			t.Errorf("parseTranslations(%q) accepted", bad)
		}
	}
}

// A question whose words are not the code's finds the definition through a
// learned translation, the lexical channel says so in explain, and an
// identifier query or Expand off does not expand.
func TestLexicalChannelExpandsQuestions(t *testing.T) {
	dir := t.TempDir()
	writeRepoFile(t, dir, "outbox.go", "package mail\n\n// dedupeOutbox drops repeated entries.\nfunc dedupeOutbox(items []string) []string {\n\treturn items[:1]\n}\n")
	writeRepoFile(t, dir, "send.go", "package mail\n\n// sendReminder posts the reminder e-mail.\nfunc sendReminder(to string) error {\n\treturn post(to)\n}\n\nfunc post(to string) error { return nil }\n")
	db, emb, sum := commitAndIndex(t, dir)
	s := New(db, sum.RepositoryID, emb)
	// reminder is in the code: its translation does not count.
	s.table = testTable(t, "# spelunk-translate-v1: test\nreminder\toutbox:40\ntwice\tdedupe:31,absentword:50\n")
	ctx := context.Background()
	const q = "what stops the reminder going out twice"
	find := func(resp *Response, name string) *Result {
		for i := range resp.Results {
			if resp.Results[i].Name == name {
				return &resp.Results[i]
			}
		}
		return nil
	}

	on, err := s.Search(ctx, q, Options{Expand: ExpandOn, Channels: []Channel{Lexical}})
	if err != nil {
		t.Fatal(err)
	}
	want := Expansion{Term: "dedupe", From: "twice", Weight: 0.31}
	if !slices.Equal(on.Expanded, []Expansion{want}) || !strings.HasPrefix(on.Translation, "spelunk-translate-v1-") {
		t.Errorf("response expanded %v with %q, want only dedupe (absentword is not in the code, reminder is)", on.Expanded, on.Translation)
	}
	r := find(on, "dedupeOutbox")
	if r == nil {
		t.Fatalf("expanded: dedupeOutbox not found (%s)", names(on.Results))
	}
	if !slices.Equal(r.Explain.Expanded, []Expansion{want}) {
		t.Errorf("dedupeOutbox explain expanded %v, want %v", r.Explain.Expanded, want)
	}
	if rem := find(on, "sendReminder"); rem == nil || len(rem.Explain.Expanded) != 0 || rem.Rank != 1 {
		t.Errorf("sendReminder (the query's own word) should rank first without expansions: %+v", rem)
	}

	off, err := s.Search(ctx, q, Options{Expand: ExpandOff, Channels: []Channel{Lexical}})
	if err != nil {
		t.Fatal(err)
	}
	if find(off, "dedupeOutbox") != nil || len(off.Expanded) != 0 {
		t.Errorf("expand off: dedupeOutbox found or expansions listed (%v)", off.Expanded)
	}

	ident, err := s.Search(ctx, "sendReminder", Options{Expand: ExpandOn})
	if err != nil {
		t.Fatal(err)
	}
	if len(ident.Expanded) != 0 {
		t.Errorf("identifier query expanded: %v", ident.Expanded)
	}

	// An expansion the repository lacks is no missing word of the question:
	// the ranker's evidence is the same with and without expansions.
	evidence := func(expand bool) queryEvidence {
		p := analyze(q, "")
		if expand {
			p.expand = s.table.expansions(p.words)
		}
		var ev queryEvidence
		p.evidence = &ev
		if _, err := s.bm25Channel(ctx, p); err != nil {
			t.Fatal(err)
		}
		return ev
	}
	a, b := evidence(false), evidence(true)
	if a.lexicalTerms != b.lexicalTerms || a.lexicalMissing != b.lexicalMissing || len(a.lexicalIDF) != len(b.lexicalIDF) || a.lexicalMissing == 0 {
		t.Errorf("evidence without expansions %+v, with %+v", a, b)
	}
}
