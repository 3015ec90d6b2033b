package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/search"
)

// search_code: hybrid search over definitions, or over files.

// SearchCodeIn is the input of search_code.
type SearchCodeIn struct {
	Repository string   `json:"repository,omitempty" jsonschema:"name, path or id of a served repository (default: all; other tools: the first)"`
	Query      string   `json:"query" jsonschema:"a name (Cart.add), a question, or a pasted error or issue: up to 16 KiB; filters: path:DIR/ -path:X lang:go kind:method test:no|only repo:X"`
	Limit      int      `json:"limit,omitempty" jsonschema:"1-100, default 10"`
	Channels   []string `json:"channels,omitempty"`
	// Granularity, Detail and Channels are enums of the schema (groups.go).
	Granularity string `json:"granularity,omitempty" jsonschema:"default symbols"`
	Detail      string `json:"detail,omitempty" jsonschema:"explain: per-channel scores"`
}

func (in SearchCodeIn) repoArg() string { return in.Repository }

// SearchCodeOut is the output of search_code: compact by default (what an agent
// acts on), the per-channel breakdown with detail explain.
type SearchCodeOut struct {
	Query       string `json:"query"`
	Kind        string `json:"kind"`        // identifier or semantic: how the query was read
	Granularity string `json:"granularity"` // symbols or files: what was ranked
	// Revision is what most results were indexed at (a short commit, or
	// working-tree); a result indexed at another says so in its own rev.
	Revision string `json:"revision,omitempty"`
	// Filter is what the query's filters narrowed the search to (path:, lang:, ...).
	Filter      string            `json:"filter,omitempty"`
	Results     []CodeHit         `json:"results"`
	Files       []FileHit         `json:"files,omitempty"`
	Pruned      []PrunedHit       `json:"pruned,omitempty"`      // with detail explain
	Unavailable map[string]string `json:"unavailable,omitempty"` // channels that could not answer, why
	NotIndexed  []string          `json:"not_indexed,omitempty"` // served repositories skipped: never indexed
}

// searchCall is one search_code call's validated arguments.
type searchCall struct {
	opts    search.Options
	explain bool
}

func searchCodeArgs(in SearchCodeIn) (searchCall, error) {
	var c searchCall
	limit, err := limitArg("limit", in.Limit, 10, maxLimit)
	if err != nil {
		return c, err
	}
	c.opts.Limit = limit
	if c.opts.Granularity, err = granularityArg(in.Granularity); err != nil {
		return c, err
	}
	switch strings.ToLower(strings.TrimSpace(in.Detail)) {
	case "", "compact":
	case "explain":
		c.explain = true
	default:
		return c, argError("unknown detail %q: use explain (per-channel breakdown) or leave it out (compact)", clip(in.Detail, 40))
	}
	for _, ch := range in.Channels {
		ch := search.Channel(strings.ToLower(ch))
		if !containsChannel(ch) {
			return c, argError("unknown channel %q: use %s", clip(string(ch), 40), channelList())
		}
		c.opts.Channels = append(c.opts.Channels, ch)
	}
	return c, nil
}

func (s *Server) runSearch(ctx context.Context, query string, opts search.Options) (*search.Response, error) {
	q, err := text("query", query, maxCodeQueryBytes, true)
	if err != nil {
		return nil, err
	}
	resp, err := s.repo(ctx).search.Search(ctx, q, opts)
	if errors.Is(err, search.ErrEmptyQuery) {
		return nil, argError("query %q has nothing searchable in it: give a name or a question", query)
	}
	if errors.Is(err, search.ErrFilter) {
		return nil, argError("%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	// The search survives failed channels and lists them; when the database is the
	// reason, every channel failed and "no results" would be a lie.
	if len(resp.Unavailable) > 0 {
		if down := s.unavailable(ctx); down != nil {
			return nil, down
		}
	}
	if err := s.markStale(ctx, resp.Symbols()...); err != nil {
		return nil, err
	}
	return resp, nil
}

// repoSearch is one repository's answer within a search_code call.
type repoSearch struct {
	b    *binding
	resp *search.Response
}

func (s *Server) searchCode(ctx context.Context, _ *mcp.CallToolRequest, in SearchCodeIn) (SearchCodeOut, error) {
	c, err := searchCodeArgs(in)
	if err != nil {
		return SearchCodeOut{}, err
	}
	targets := s.repos
	if named(ctx) || len(s.repos) == 1 {
		targets = []*binding{s.repo(ctx)}
	}
	if _, f, err := search.ParseFilters(in.Query); err == nil {
		targets, err = search.SelectRepos(f, targets, func(b *binding) string { return b.Name },
			func(b *binding) string { return b.Root })
		if err != nil {
			return SearchCodeOut{}, argError("%s", err.Error())
		}
	}
	answers, notIndexed, err := s.fanOut(ctx, targets, in.Query, c.opts)
	if err != nil {
		return SearchCodeOut{}, err
	}
	out := s.searchCodeOut(answers, c)
	out.NotIndexed = notIndexed
	return out, nil
}

// fanOut runs the search on every target repository at once (a call costs the
// slowest repository, not their sum). Repositories never indexed are skipped and
// named; when none is indexed the call fails as a single-repository one does.
func (s *Server) fanOut(ctx context.Context, targets []*binding, query string, opts search.Options) ([]repoSearch, []string, error) {
	answers := make([]repoSearch, len(targets))
	errs := make([]error, len(targets))
	whys := make([]string, len(targets))
	var wg sync.WaitGroup
	for i, b := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bctx := context.WithValue(ctx, bindingKey{}, b)
			answers[i].b = b
			whys[i], errs[i] = s.readIndex(bctx, func() (err error) {
				answers[i].resp, err = s.runSearch(bctx, query, opts)
				return err
			})
		}()
	}
	wg.Wait()
	var kept []repoSearch
	var notIndexed, incomplete []string
	var firstNotIndexed error
	for i, err := range errs {
		var ni notIndexedError
		switch {
		case errors.As(err, &ni):
			notIndexed = append(notIndexed, targets[i].Name)
			firstNotIndexed = cmp.Or(firstNotIndexed, err)
		case err != nil:
			return nil, nil, err
		default:
			kept = append(kept, answers[i])
			if whys[i] != "" {
				incomplete = append(incomplete, targets[i].Name+": "+whys[i])
			}
		}
	}
	if len(targets) == 1 && len(incomplete) == 1 {
		incomplete[0] = whys[0]
	}
	warn(ctx, strings.Join(incomplete, "; "))
	if len(kept) == 0 {
		return nil, nil, firstNotIndexed
	}
	if len(targets) == 1 {
		notIndexed = nil
	}
	return kept, notIndexed, nil
}

// granularityArg reads search_code's granularity: symbols (the default) or files.
func granularityArg(v string) (search.Granularity, error) {
	switch g := search.Granularity(strings.ToLower(strings.TrimSpace(v))); g {
	case "", search.Symbols:
		return search.Symbols, nil
	case search.Files:
		return search.Files, nil
	}
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return "", argError("unknown granularity %q: use symbols (rank definitions, the default) or files (rank files)", v)
}

func containsChannel(c search.Channel) bool {
	for _, a := range search.AllChannels {
		if a == c {
			return true
		}
	}
	return false
}

func channelList() string { return strings.Join(channelNames(), ", ") }
