package search

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// longIssue is an issue's text: a backticked and a called lower-case name, a
// pasted route table, a REPL's `_`, single letters and capitalised words.
const longIssue = "Deduplication drops the last record\n\n" +
	"When I call `dedupe` on a list whose last two records are equal, the last one is lost. " +
	"In the REPL `_` holds the result, and x is shorter than y afterwards.\n\n" +
	"| method | path | handler |\n|---|---|---|\n| GET | /records | list |\n| POST | /records | create |\n\n" +
	"NOTE: calling dedupe(records) twice gives the same result, so it is not about state. " +
	"The records come from the importer; I expected every distinct record to survive.\n"

func TestLongInputNames(t *testing.T) {
	p := analyze(longIssue, "")
	if !p.long || !slices.Contains(p.identifiers, "dedupe") {
		t.Fatalf("identifiers of the issue = %v (long %v), want dedupe among them", p.identifiers, p.long)
	}
	for _, not := range []string{"_", "x", "y", "GET", "POST", "NOTE"} {
		if slices.Contains(p.identifiers, not) {
			t.Errorf("identifiers of the issue = %v: %q is no name", p.identifiers, not)
		}
	}
	if got := analyze("what does `parse` return for an empty line", "").identifiers; fmt.Sprint(got) != "[parse]" {
		t.Errorf("a backticked name in a question: identifiers %v, want [parse]", got)
	}
}

// A long input finds the lower-case function it names (not every get method,
// not the function named _), and a snake_case spelling of a camelCase name
// finds that definition above its siblings sharing its prefix (issue 37).
func TestLongInputFindsMarkedNames(t *testing.T) {
	dir := t.TempDir()
	writeRepoFile(t, dir, "records.js", "function dedupe(records) {\n  return records.filter((r, i) => records.indexOf(r) === i);\n}\n\n"+
		"function dedupeItems(items) {\n  return dedupe(items);\n}\n\n"+
		"// Dedupe items by key: dedupe the items, keep the first of the dedupe items.\nfunction dedupeItemsBy(items, key) {\n  return dedupeItems(items.map((i) => i[key]));\n}\n\n"+
		"// Dedupe items later: the dedupe items promise.\nfunction dedupeItemsAsync(items) {\n  return Promise.resolve(dedupeItems(items));\n}\n\n"+
		"function _(v) {\n  return v;\n}\n\nmodule.exports = { dedupe, dedupeItems, dedupeItemsBy, dedupeItemsAsync, _ };\n")
	writeRepoFile(t, dir, "routes.js", "class Users {\n  get(id) {\n    return this.rows[id];\n  }\n}\n\n"+
		"class Orders {\n  get(id) {\n    return this.cache[id];\n  }\n}\n\nmodule.exports = { Users, Orders };\n")
	db, emb, sum := commitAndIndex(t, dir)
	s := New(db, sum.RepositoryID, emb)
	res, err := s.Search(context.Background(), longIssue, Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].QualifiedName != "dedupe" {
		t.Errorf("the issue ranks %s first, want dedupe", names(res.Results))
	}
	for _, r := range res.Results {
		if r.Name == "get" || r.Name == "_" {
			t.Errorf("the issue ranks %s: %s is named by no word of it", names(res.Results), r.QualifiedName)
		}
	}
	for _, q := range []string{"dedupe_items", "why does dedupe_items keep the last record of a list"} {
		res, err := s.Search(context.Background(), q, Options{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].QualifiedName != "dedupeItems" {
			t.Errorf("%q ranks %s first, want dedupeItems", q, names(res.Results))
		}
	}
}
