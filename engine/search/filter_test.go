package search

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index/indextest"
)

func TestParseFilters(t *testing.T) {
	tests := []struct {
		query, rest string
		want        Filter
	}{
		{"refund", "refund", Filter{}},
		{"file:index/ Searcher", "Searcher", Filter{Paths: []string{"index/"}}},
		{"Searcher path:engine/ -path:_test.go", "Searcher", Filter{Paths: []string{"engine/"}, NotPaths: []string{"_test.go"}}},
		{"-file:vendor/ retry lang:golang", "retry", Filter{NotPaths: []string{"vendor/"}, Langs: []string{"go"}}},
		{"retry -lang:py kind:function", "retry", Filter{NotLangs: []string{"python"}, Kinds: []string{"function"}}},
		{"retry -test", "retry", Filter{Tests: "no"}},
		{"retry test:no", "retry", Filter{Tests: "no"}},
		{"retry test:only", "retry", Filter{Tests: "only"}},
		{`path:"my dir/" "exact phrase" here`, `"exact phrase" here`, Filter{Paths: []string{"my dir/"}}},
		{"see http://example.com key:value", "see http://example.com key:value", Filter{}},
		{"open file://x", "open file://x", Filter{}},
		{"retry repo:flask -repo:vendor", "retry", Filter{Repos: []string{"flask"}, NotRepos: []string{"vendor"}}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rest, got, err := ParseFilters(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if rest != tt.rest || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q %+v, want %q %+v", rest, got, tt.rest, tt.want)
			}
		})
	}
}

func TestBadFiltersSayWhy(t *testing.T) {
	tests := []struct{ query, want string }{
		{"retry path:", "path: needs a value"},
		{"retry lang:klingon", "not a language spelunk indexes"},
		{"retry kind:gadget", "a kind is one of"},
		{"retry test:maybe", "test:no (or -test)"},
		{"retry test:only -test", "contradict"},
		{"retry repo:", "repo: needs a value"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, _, err := ParseFilters(tt.query)
			if !errors.Is(err, ErrFilter) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrFilter saying %q", err, tt.want)
			}
		})
	}
}

// TestFiltersNarrowEveryChannel checks each filter's behaviour against the
// indexed fixture: every result passes it, and a filtered search still fills
// its page (the filter is applied inside the channels, not after fusion).
func TestFiltersNarrowEveryChannel(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	ctx := context.Background()
	tests := []struct {
		query string
		ok    func(r Result) bool
	}{
		{"refund path:py/", func(r Result) bool { return strings.HasPrefix(r.Path, "py/") }},
		{"refund file:*.py", func(r Result) bool { return strings.HasSuffix(r.Path, ".py") }},
		{"refund -path:py/ -path:billing/", func(r Result) bool {
			return !strings.HasPrefix(r.Path, "py/") && !strings.HasPrefix(r.Path, "billing/")
		}},
		{"refund lang:go", func(r Result) bool { return strings.HasSuffix(r.Path, ".go") }},
		{"refund -lang:go", func(r Result) bool { return !strings.HasSuffix(r.Path, ".go") }},
		{"invoice total test:only", func(r Result) bool { return r.IsTest }},
		{"invoice total -test", func(r Result) bool { return !r.IsTest }},
		{"refund kind:function", func(r Result) bool { return r.Kind == "function" }},
		{"IsEligibleForRefund path:py/", func(r Result) bool { return strings.HasPrefix(r.Path, "py/") }},
		{`"refund" path:ts/`, func(r Result) bool { return strings.HasPrefix(r.Path, "ts/") }},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp, err := s.Search(ctx, tt.query, Options{Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Results) == 0 {
				t.Fatal("no results")
			}
			if resp.Filter == nil || resp.Filter.Empty() {
				t.Errorf("the response does not say what it was filtered to")
			}
			for _, r := range resp.Results {
				if !tt.ok(r) {
					t.Errorf("%s %s:%s (%s, test %v) passed the filter", tt.query, r.Path, r.Name, r.Kind, r.IsTest)
				}
			}
		})
	}
}

func TestFilteredSearchFillsItsPage(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	ctx := context.Background()
	const limit = 3
	all, err := s.Search(ctx, "refund", Options{Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Results {
		if strings.HasPrefix(r.Path, "py/") {
			t.Skipf("the unfiltered top %d already holds %s: no evidence either way", limit, r.Path)
		}
	}
	got, err := s.Search(ctx, "refund path:py/", Options{Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != limit {
		t.Fatalf("path:py/ gave %d results, want a full page of %d", len(got.Results), limit)
	}
	if got.Query != "refund" || got.Filter.String() != "path:py/" {
		t.Errorf("query %q filter %q, want refund and path:py/", got.Query, got.Filter)
	}
}

func TestFilterOnlyQueryIsEmpty(t *testing.T) {
	fx := indextest.Fixture(t)
	s := New(fx.DB, fx.RepoID, fx.Emb)
	_, err := s.Search(context.Background(), "path:py/ -test", Options{})
	if !errors.Is(err, ErrEmptyQuery) || !strings.Contains(err.Error(), "need words") {
		t.Errorf("error %v, want ErrEmptyQuery saying the filters need words", err)
	}
	_, err = s.Search(context.Background(), "refund lang:cobol", Options{})
	if !errors.Is(err, ErrFilter) {
		t.Errorf("error %v, want ErrFilter", err)
	}
}

func TestRepoFiltersChooseRepositories(t *testing.T) {
	type repo struct{ name, root string }
	repos := []repo{{"flask", "/src/pallets/flask"}, {"click", "/src/pallets/click"}, {"cli", "/work/urfave/cli"}}
	name := func(r repo) string { return r.name }
	root := func(r repo) string { return r.root }
	tests := []struct {
		query string
		want  []string
	}{
		{"x", []string{"flask", "click", "cli"}},
		{"x repo:FLASK", []string{"flask"}},
		{"x repo:pallets", []string{"flask", "click"}},    // a directory of the root
		{"x repo:cli", []string{"click", "cli"}},          // substrings, as zoekt's repo:
		{"x repo:cl??k", []string{"click"}},               // a glob matches whole
		{"x repo:*/urfave/*", []string{"cli"}},            // over the root too
		{"x repo:pallets -repo:click", []string{"flask"}}, // both
		{"x repo:flask repo:click", []string{"flask", "click"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, f, err := ParseFilters(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SelectRepos(f, repos, name, root)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range got {
				names = append(names, r.name)
			}
			if !reflect.DeepEqual(names, tt.want) {
				t.Errorf("chose %v, want %v", names, tt.want)
			}
		})
	}
	_, f, _ := ParseFilters("x repo:django")
	_, err := SelectRepos(f, repos, name, root)
	if !errors.Is(err, ErrFilter) || !strings.Contains(err.Error(), "repo:django matches none") || !strings.Contains(err.Error(), "flask, click, cli") {
		t.Errorf("error %v, want ErrFilter naming the repositories there are", err)
	}
}
