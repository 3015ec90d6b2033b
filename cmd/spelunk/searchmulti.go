package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/search"
)

// spelunk search over several repositories (--repo A --repo B, or --all): each
// repository is searched on its own, at once, and the rankings are interleaved by
// rank (search.Interleave says why scores are not compared across repositories).

// repoAnswer is one repository's answer.
type repoAnswer struct {
	rec  pg.Repository
	resp *search.Response
}

// multiResult is one result of a search over several repositories.
type multiResult struct {
	Repository string `json:"repository"`
	search.Result
}

// multiFile is one ranked file of a search over several repositories.
type multiFile struct {
	Repository string `json:"repository"`
	search.FileResult
}

// multiResponse is the --json answer over several repositories.
type multiResponse struct {
	Query        string        `json:"query"`
	Kind         string        `json:"kind"`
	Repositories []string      `json:"repositories"`
	Results      []multiResult `json:"results"`
	Files        []multiFile   `json:"files,omitempty"`
	// Unavailable lists channels that could not answer in some repository.
	Unavailable map[string]string `json:"unavailable,omitempty"`
}

// searchScope is what chooses the repositories of a search: --all, every
// --repo, and the query's repo: filters among them.
type searchScope struct {
	all    bool
	filter search.Filter
}

// searchRepos is spelunk search over several repositories (one, when repo:
// chose a single repository: it answers as a search of that one does).
func searchRepos(cmd *cobra.Command, g *globals, query string, opts search.Options, scope searchScope, explain bool) error {
	ctx := cmd.Context()
	embedder := g.embed.embedderAsync()
	db, err := openDB(ctx, g)
	if err != nil {
		return err
	}
	defer db.Close()
	recs, skipped, err := searchTargets(ctx, g, db, scope)
	if err != nil {
		return err
	}
	if err := warnIncompleteRepos(g, recs, skipped); err != nil {
		return err
	}
	if len(recs) == 1 && scope.filter.HasRepos() { // repo: chose one: answer as its own search
		return searchIn(ctx, g, db, recs[0], embedder, query, opts, explain)
	}
	emb, _, err := embedder()
	if err != nil {
		return err
	}
	answers, err := searchEach(ctx, db, recs, emb, query, opts)
	if err != nil {
		return err
	}
	out := mergeAnswers(answers, opts)
	if g.json {
		return json.NewEncoder(os.Stdout).Encode(out)
	}
	printMulti(out, explain)
	return nil
}

// searchTargets are the repositories to search: every --repo (each must be
// indexed), or with --all (or repo: filters and no --repo) every indexed
// repository of the tenant; then those the query's repo: filters let through.
// skipped are those --all leaves out because no run of theirs has finished.
func searchTargets(ctx context.Context, g *globals, db *pg.DB, scope searchScope) (out, skipped []pg.Repository, err error) {
	out, skipped, err = scopeRepos(ctx, g, db, scope.all || (scope.filter.HasRepos() && len(g.repos) == 0))
	if err != nil {
		return nil, nil, err
	}
	name := func(r pg.Repository) string { return r.Name }
	root := func(r pg.Repository) string { return r.Root }
	if out, err = search.SelectRepos(scope.filter, out, name, root); err != nil {
		return nil, nil, usageError{err}
	}
	skipped = slices.DeleteFunc(skipped, func(r pg.Repository) bool { return !scope.filter.MatchesRepo(r.Name, r.Root) })
	return out, skipped, nil
}

// scopeRepos are every --repo (each must be indexed), or with all every
// indexed repository of the tenant; skipped are those all leaves out because
// no run of theirs has finished.
func scopeRepos(ctx context.Context, g *globals, db *pg.DB, all bool) (out, skipped []pg.Repository, err error) {
	if all {
		if len(g.repos) > 0 {
			return nil, nil, usagef("--all searches every indexed repository: give it or --repo, not both")
		}
		repos, err := db.Repositories(ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range repos {
			if r.LastIndexedAt != nil {
				out = append(out, r)
			} else {
				skipped = append(skipped, r)
			}
		}
		if len(out) == 0 {
			return nil, nil, fmt.Errorf("no repository of tenant %s is indexed: run `spelunk index DIR`", g.tenant)
		}
		return out, skipped, nil
	}
	roots, err := repoRoots(ctx, g, "")
	if err != nil {
		return nil, nil, err
	}
	out = make([]pg.Repository, 0, len(roots))
	for _, root := range roots {
		rec, err := db.RepositoryByRoot(ctx, root)
		if err != nil {
			return nil, nil, notIndexed(root, err)
		}
		out = append(out, rec)
	}
	return out, nil, nil
}

// warnIncompleteRepos names every repository searched whose index is
// incomplete (pg.Repository.Incomplete), and every one --all left out, as
// the MCP server's search_code does: "NAME: WHY; ..." (issue 36).
func warnIncompleteRepos(g *globals, recs, skipped []pg.Repository) error {
	var lines, whys []string
	add := func(r pg.Repository, why string) {
		lines = append(lines, fmt.Sprintf("%s (%s): %s", r.Name, r.Root, why))
		whys = append(whys, r.Name+": "+why)
	}
	for _, r := range recs {
		if w := r.Incomplete(); w != "" {
			add(r, w)
		}
	}
	for _, r := range skipped {
		add(r, "not searched: "+r.Incomplete())
	}
	if len(lines) == 0 {
		return nil
	}
	return giveWarning(g, lines, strings.Join(whys, "; "))
}

// searchEach runs the search in every repository at once.
func searchEach(ctx context.Context, db *pg.DB, recs []pg.Repository, emb search.Embedder, query string, opts search.Options) ([]repoAnswer, error) {
	answers := make([]repoAnswer, len(recs))
	errs := make([]error, len(recs))
	var wg sync.WaitGroup
	for i, rec := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := search.New(db, rec.ID, emb).Search(ctx, query, opts)
			if err == nil {
				err = markStale(ctx, db, rec, resp.Symbols()...)
			}
			answers[i], errs[i] = repoAnswer{rec, resp}, err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if errors.Is(err, search.ErrEmptyQuery) || errors.Is(err, search.ErrFilter) {
			return nil, usageError{err}
		}
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", recs[i].Root, err)
		}
	}
	return answers, nil
}

// mergeAnswers interleaves the repositories' rankings, renumbering the ranks.
func mergeAnswers(answers []repoAnswer, opts search.Options) multiResponse {
	out := multiResponse{Query: answers[0].resp.Query, Kind: string(answers[0].resp.Kind), Results: []multiResult{}}
	limit := opts.Limit
	if limit <= 0 {
		limit = 20
	}
	lists := make([][]search.Result, len(answers))
	files := make([][]search.FileResult, len(answers))
	for i, a := range answers {
		out.Repositories = append(out.Repositories, a.rec.Name)
		lists[i], files[i] = a.resp.Results, a.resp.Files
		for c, why := range a.resp.Unavailable {
			if out.Unavailable == nil {
				out.Unavailable = map[string]string{}
			}
			out.Unavailable[string(c)] = why
		}
	}
	if opts.Granularity == search.Files {
		for n, p := range search.Interleave(files, func(f search.FileResult) float64 { return f.Score }, limit) {
			f := files[p.List][p.Index]
			f.Rank = n + 1
			out.Files = append(out.Files, multiFile{answers[p.List].rec.Name, f})
		}
		return out
	}
	for n, p := range search.Interleave(lists, func(r search.Result) float64 { return r.Score }, limit) {
		r := lists[p.List][p.Index]
		r.Rank = n + 1
		out.Results = append(out.Results, multiResult{answers[p.List].rec.Name, r})
	}
	return out
}

func printMulti(out multiResponse, explain bool) {
	n, what := len(out.Results), "results"
	if out.Files != nil {
		n, what = len(out.Files), "files"
	}
	fmt.Printf("%d %s for %s (%s query) across %d repositories\n", n, what, shortQuery(out.Query), out.Kind, len(out.Repositories))
	for c, why := range out.Unavailable {
		fmt.Printf("  channel %s unavailable: %s\n", c, why)
	}
	for _, r := range out.Results {
		printResult(r.Result, explain, "", r.Repository)
	}
	for _, f := range out.Files {
		fmt.Printf("%3d  %.4f  [%s] %s\n", f.Rank, f.Score, f.Repository, f.Path)
		for _, r := range f.Symbols {
			printResult(r, explain, "       ", "")
		}
	}
}
