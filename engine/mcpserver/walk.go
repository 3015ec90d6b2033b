package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// find_callers, find_callees

// WalkIn is the input of find_callers and find_callees.
type WalkIn struct {
	RepoArg
	Name          string `json:"name,omitempty" jsonschema:"plain or qualified"`
	Path          string `json:"path,omitempty" jsonschema:"narrows name"`
	ID            int64  `json:"id,omitempty" jsonschema:"instead of name"`
	Depth         int    `json:"depth,omitempty" jsonschema:"1-5, default 1"`
	Limit         int    `json:"limit,omitempty" jsonschema:"1-100, default 50"`
	MinConfidence string `json:"min_confidence,omitempty" jsonschema:"drop less sure"`
	Relation      string `json:"relation,omitempty" jsonschema:"default calls; reads/writes: a field (Type.field)"`
}

// GraphNode is a symbol reached by a walk.
type GraphNode struct {
	SymbolRef
	Depth      int    `json:"depth"`
	Edge       string `json:"edge" jsonschema:"calls, inherits, implements, references, reads or writes"`
	Line       int    `json:"line" jsonschema:"where the edge is written"`
	Confidence string `json:"confidence" jsonschema:"how the link was resolved: exact (by scope or type), inferred (by import or a unique name) or ambiguous (one of several candidates)"`
	Candidates int    `json:"candidates,omitempty" jsonschema:"an ambiguous link's number of candidate symbols"`
}

// ExternalRef is a call to something not defined in the repository.
type ExternalRef struct {
	Name      string `json:"name"`
	Qualifier string `json:"qualifier,omitempty"`
	Line      int    `json:"line"`
	Depth     int    `json:"depth"`
}

// WalkOut is the output of find_callers and find_callees.
type WalkOut struct {
	Symbol    SymbolRef     `json:"symbol"`
	Matches   int           `json:"matches" jsonschema:"symbols with that name; the first was walked (narrow with path or id)"`
	Nodes     []GraphNode   `json:"nodes"`
	External  []ExternalRef `json:"external,omitempty"`
	Truncated bool          `json:"truncated,omitempty"`
}

// walkConfidences are the values of min_confidence.
var walkConfidences = []graph.Confidence{graph.Exact, graph.Inferred, graph.Ambiguous}

func minConfidence(v string) (graph.Confidence, error) {
	if v == "" {
		return "", nil
	}
	for _, c := range walkConfidences {
		if string(c) == v {
			return c, nil
		}
	}
	return "", argError("min_confidence must be exact, inferred or ambiguous (got %q)", v)
}

func (s *Server) walker(dir graph.Direction) func(context.Context, *mcp.CallToolRequest, WalkIn) (WalkOut, error) {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in WalkIn) (WalkOut, error) {
		var out WalkOut
		if in.Depth < 0 || in.Depth > graph.MaxDepth {
			return out, argError("depth must be between 1 and %d (got %d)", graph.MaxDepth, in.Depth)
		}
		limit, err := limitArg("limit", in.Limit, 50, maxLimit)
		if err != nil {
			return out, err
		}
		minConf, err := minConfidence(in.MinConfidence)
		if err != nil {
			return out, err
		}
		rel, err := graph.ParseRelation(in.Relation)
		if err != nil {
			return out, argError("%v", err)
		}
		// Readers and writers start from a field; a definition's reads and writes from it.
		sym, matches, err := s.walkAnchor(ctx, in, rel != graph.CallsRel && dir == graph.Callers)
		if err != nil {
			return out, err
		}
		w, err := graph.SymbolsWith(ctx, s.cfg.DB, s.repo(ctx).ID, []int64{sym.ID}, dir,
			graph.Options{Depth: max(in.Depth, 1), MinConfidence: minConf, Relation: rel})
		if err != nil {
			return out, err
		}
		if len(w.Nodes) > limit {
			w.Nodes = w.Nodes[:limit+1] // one more tells Truncated below
		}
		if err := s.markStale(ctx, append(w.Symbols(), &sym)...); err != nil {
			return out, err
		}
		out.Symbol, out.Matches = ref(sym), matches
		out.Nodes = make([]GraphNode, 0, min(len(w.Nodes), limit))
		for i, n := range w.Nodes {
			if i == limit {
				out.Truncated = true
				break
			}
			out.Nodes = append(out.Nodes, GraphNode{SymbolRef: ref(n.Symbol), Depth: n.Depth, Edge: n.Kind, Line: n.Line,
				Confidence: string(n.Confidence), Candidates: n.Candidates})
		}
		for i, u := range w.Unresolved {
			if i == limit {
				out.Truncated = true
				break
			}
			out.External = append(out.External, ExternalRef{Name: u.Name, Qualifier: u.Qual, Line: u.Line, Depth: u.Depth})
		}
		return out, nil
	}
}

// walkAnchor finds the symbol a walk starts from, by id or by name (and path),
// with the number of symbols the name matched; field: the name is a field's.
func (s *Server) walkAnchor(ctx context.Context, in WalkIn, field bool) (symbols.Symbol, int, error) {
	switch {
	case in.ID < 0:
		return symbols.Symbol{}, 0, argError("id must be positive (got %d)", in.ID)
	case in.ID > 0:
		sym, err := symbols.Get(ctx, s.cfg.DB, s.repo(ctx).ID, in.ID)
		if errors.Is(err, symbols.ErrNotFound) {
			return sym, 0, fmt.Errorf("unknown symbol id %d in this repository", in.ID)
		}
		return sym, 1, err
	case in.Name != "":
		name, err := text("name", strings.TrimSpace(in.Name), maxNameBytes, true)
		if err != nil {
			return symbols.Symbol{}, 0, err
		}
		var p string
		if in.Path != "" {
			if p, err = s.relPath(ctx, "path", in.Path); err != nil {
				return symbols.Symbol{}, 0, err
			}
		}
		find, what := symbols.Find, "symbol"
		if field {
			find, what = symbols.FindFields, "field"
		}
		syms, err := find(ctx, s.cfg.DB, s.repo(ctx).ID, name, p)
		if errors.Is(err, symbols.ErrNotFound) {
			return symbols.Symbol{}, 0, fmt.Errorf("unknown %s %q%s: try search_symbols", what, name, inPath(p))
		}
		if err != nil {
			return symbols.Symbol{}, 0, err
		}
		return syms[0], len(syms), nil
	}
	return symbols.Symbol{}, 0, argError("give name (plain or qualified) or id")
}
