package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/search"
)

// search_code: hybrid search over definitions, or over files.

// SearchCodeIn is the input of search_code.
type SearchCodeIn struct {
	Query    string   `json:"query" jsonschema:"an identifier (Cart.add, isEligibleForRefund) or a question in words"`
	Limit    int      `json:"limit,omitempty" jsonschema:"number of results, 1-100 (default 10)"`
	Channels []string `json:"channels,omitempty" jsonschema:"restrict to these channels: symbol, lexical, dense, graph (default all)"`
	// Granularity is validated by the handler rather than by a schema enum, so
	// a wrong value gets an error that says what to use.
	Granularity string `json:"granularity,omitempty" jsonschema:"symbols (default): rank definitions; files: rank files (limit of them), each with its best definitions"`
}

// ChannelScore is one channel's view of a result.
type ChannelScore struct {
	Rank         int     `json:"rank"`
	Score        float64 `json:"score" jsonschema:"the channel's raw score"`
	Contribution float64 `json:"contribution" jsonschema:"weight / (k + rank), the channel's share of the fused score"`
}

// Explain says where a result's score came from.
type Explain struct {
	Channels   map[string]ChannelScore `json:"channels"`
	Fused      float64                 `json:"fused"`
	Boost      float64                 `json:"boost,omitempty" jsonschema:"lift of an exact name match"`
	TestFactor float64                 `json:"test_factor" jsonschema:"below 1 for test and example files"`
	Decay      float64                 `json:"decay"`
	Final      float64                 `json:"final"`
}

// CodeHit is one search result.
type CodeHit struct {
	Rank int `json:"rank"`
	SymbolRef
	Score   float64 `json:"score"`
	Explain Explain `json:"explain"`
}

// PrunedHit is a candidate left out of the results, with the reason.
type PrunedHit struct {
	Path      string `json:"path"`
	Name      string `json:"name"`
	StartLine int    `json:"start_line"`
	Reason    string `json:"reason"`
}

// FileDef is one of a ranked file's definitions, compact: where, what, how good.
type FileDef struct {
	ID            int64   `json:"id" jsonschema:"symbol id (pass to read_symbol)"`
	Lines         string  `json:"lines" jsonschema:"path:start-end"`
	Kind          string  `json:"kind"`
	QualifiedName string  `json:"qualified_name"`
	Score         float64 `json:"score"`
}

// FileHit is one ranked file.
type FileHit struct {
	Rank        int       `json:"rank"`
	Path        string    `json:"path"`
	Score       float64   `json:"score" jsonschema:"the best definition's score plus a share of the next ones'"`
	IsTest      bool      `json:"is_test,omitempty"`
	Revision    string    `json:"revision" jsonschema:"commit the file was indexed at, or working-tree for uncommitted changes"`
	Stale       bool      `json:"stale,omitempty" jsonschema:"the file changed on disk since it was indexed: lines may have moved (index_file it)"`
	Definitions []FileDef `json:"definitions" jsonschema:"the file's best definitions, best first"`
}

// SearchCodeOut is the output of search_code.
type SearchCodeOut struct {
	Query       string            `json:"query"`
	Kind        string            `json:"kind" jsonschema:"identifier or semantic: how the query was read"`
	Granularity string            `json:"granularity" jsonschema:"symbols or files: what was ranked"`
	Results     []CodeHit         `json:"results" jsonschema:"ranked definitions (empty when ranking files)"`
	Files       []FileHit         `json:"files,omitempty" jsonschema:"ranked files, with granularity files"`
	Pruned      []PrunedHit       `json:"pruned,omitempty"`
	Unavailable map[string]string `json:"unavailable,omitempty" jsonschema:"channels that could not answer, with the reason"`
}

func (s *Server) runSearch(ctx context.Context, query string, opts search.Options) (*search.Response, error) {
	q, err := text("query", query, maxQueryBytes, true)
	if err != nil {
		return nil, err
	}
	resp, err := s.search.Search(ctx, q, opts)
	if errors.Is(err, search.ErrEmptyQuery) {
		return nil, argError("query %q has nothing searchable in it: give a name or a question", query)
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

func (s *Server) searchCode(ctx context.Context, _ *mcp.CallToolRequest, in SearchCodeIn) (SearchCodeOut, error) {
	limit, err := limitArg("limit", in.Limit, 10, maxLimit)
	if err != nil {
		return SearchCodeOut{}, err
	}
	opts := search.Options{Limit: limit}
	if opts.Granularity, err = granularityArg(in.Granularity); err != nil {
		return SearchCodeOut{}, err
	}
	for _, c := range in.Channels {
		ch := search.Channel(strings.ToLower(c))
		if !containsChannel(ch) {
			return SearchCodeOut{}, argError("unknown channel %q: use symbol, lexical, dense or graph", c)
		}
		opts.Channels = append(opts.Channels, ch)
	}
	resp, err := s.runSearch(ctx, in.Query, opts)
	if err != nil {
		return SearchCodeOut{}, err
	}
	out := SearchCodeOut{Query: resp.Query, Kind: string(resp.Kind), Granularity: string(opts.Granularity), Results: []CodeHit{}}
	if opts.Granularity == search.Files {
		out.Files = fileHits(resp.Files)
	} else {
		out.Results = codeHits(resp.Results)
		for i, p := range resp.Pruned {
			if i == maxOmitted {
				break
			}
			out.Pruned = append(out.Pruned, PrunedHit{Path: p.Path, Name: p.Name, StartLine: p.StartLine, Reason: p.Reason})
		}
	}
	if len(resp.Unavailable) > 0 {
		out.Unavailable = map[string]string{}
		for c, why := range resp.Unavailable {
			out.Unavailable[string(c)] = why
		}
	}
	return out, nil
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

func codeHits(rs []search.Result) []CodeHit {
	out := make([]CodeHit, 0, len(rs))
	for _, r := range rs {
		ex := Explain{Channels: map[string]ChannelScore{}, Fused: r.Explain.Fused, Boost: r.Explain.Boost,
			TestFactor: r.Explain.TestFactor, Decay: r.Explain.Decay, Final: r.Explain.Final}
		for c, cs := range r.Explain.Channels {
			ex.Channels[string(c)] = ChannelScore(cs)
		}
		out = append(out, CodeHit{Rank: r.Rank, SymbolRef: ref(r.Symbol), Score: r.Score, Explain: ex})
	}
	return out
}

func fileHits(fs []search.FileResult) []FileHit {
	out := make([]FileHit, 0, len(fs))
	for _, f := range fs {
		h := FileHit{Rank: f.Rank, Path: f.Path, Score: f.Score, IsTest: f.IsTest, Definitions: make([]FileDef, 0, len(f.Symbols))}
		for _, r := range f.Symbols {
			h.Revision, h.Stale = r.Revision, h.Stale || r.Stale
			name := r.QualifiedName
			if name == "" {
				name = r.Name
			}
			h.Definitions = append(h.Definitions, FileDef{ID: r.ID, Lines: fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine),
				Kind: r.Kind, QualifiedName: name, Score: r.Score})
		}
		out = append(out, h)
	}
	return out
}

func containsChannel(c search.Channel) bool {
	for _, a := range search.AllChannels {
		if a == c {
			return true
		}
	}
	return false
}
