package mcpserver

import (
	"cmp"
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
	MinConfidence string `json:"min_confidence,omitempty"`
	Relation      string `json:"relation,omitempty" jsonschema:"reads/writes: Type.field"`
	Tests         string `json:"tests,omitempty"`
}

// GraphNode is a symbol reached by a walk, listed under its file (WalkFile).
type GraphNode struct {
	ID            int64  `json:"id"`
	QualifiedName string `json:"name"`
	Kind          string `json:"kind"`
	Lines         string `json:"lines"` // start-end
	Depth         int    `json:"depth"`
	Edge          string `json:"edge"` // calls, inherits, implements, references, reads or writes
	Line          int    `json:"line"` // where the edge is written
	// Confidence is how the link was resolved: exact (by scope or type),
	// inferred (by import or a unique name) or ambiguous (one of Candidates).
	Confidence string `json:"confidence"`
	Candidates int    `json:"candidates,omitempty"`
	Rev        string `json:"rev,omitempty"`   // when not the answer's revision
	Stale      bool   `json:"stale,omitempty"` // the file changed on disk since indexed: lines may have moved
	IsTest     bool   `json:"is_test,omitempty"`
	Path       string `json:"-"` // the file's, set by WalkOut.AllNodes
}

// WalkFile is one file's nodes: the path said once, not on every node.
type WalkFile struct {
	Path  string      `json:"path"`
	Nodes []GraphNode `json:"nodes"`
}

// ExternalRef is a call to something not defined in the repository.
type ExternalRef struct {
	Name      string `json:"name"`
	Qualifier string `json:"qualifier,omitempty"`
	Line      int    `json:"line"`
	Depth     int    `json:"depth"`
}

// WalkAnchor is the symbol a walk started from.
type WalkAnchor struct {
	ID            int64  `json:"id"`
	QualifiedName string `json:"name"`
	Kind          string `json:"kind"`
	Lines         string `json:"lines"` // path:start-end
	Sig           string `json:"sig,omitempty"`
	Rev           string `json:"rev,omitempty"` // when not the answer's revision
	Stale         bool   `json:"stale,omitempty"`
}

// WalkOut is the output of find_callers and find_callees.
type WalkOut struct {
	Symbol  WalkAnchor `json:"symbol"`
	Matches int        `json:"matches"` // definitions with that name; several equally good: none walked, see candidates
	// Candidates are the definitions of an ambiguous name (nothing was walked).
	Candidates []SymbolRef   `json:"candidates,omitempty"`
	Note       string        `json:"note,omitempty"`
	Revision   string        `json:"revision,omitempty"`
	Files      []WalkFile    `json:"files"` // in walk order of their first node
	External   []ExternalRef `json:"external,omitempty"`
	Truncated  bool          `json:"truncated,omitempty"`
}

// AllNodes are the nodes of every file in order, each with its Path.
func (w WalkOut) AllNodes() []GraphNode {
	var out []GraphNode
	for _, f := range w.Files {
		for _, n := range f.Nodes {
			n.Path = f.Path
			out = append(out, n)
		}
	}
	return out
}

// groupNodes lists walk nodes under their files, the files in order of their
// first node, and hoists the commonest revision.
func groupNodes(out *WalkOut, nodes []graph.Node) {
	at := map[string]int{}
	var revs []string
	for _, n := range nodes {
		revs = append(revs, shortRev(n.Symbol.Revision))
	}
	out.Revision = commonest(revs)
	out.Files = []WalkFile{}
	for _, n := range nodes {
		i, ok := at[n.Symbol.Path]
		if !ok {
			i, at[n.Symbol.Path] = len(out.Files), len(out.Files)
			out.Files = append(out.Files, WalkFile{Path: n.Symbol.Path})
		}
		g := GraphNode{ID: n.Symbol.ID, QualifiedName: cmp.Or(n.Symbol.QualifiedName, n.Symbol.Name), Kind: n.Symbol.Kind,
			Lines: fmt.Sprintf("%d-%d", n.Symbol.StartLine, n.Symbol.EndLine), Depth: n.Depth, Edge: n.Kind, Line: n.Line,
			Confidence: string(n.Confidence), Candidates: n.Candidates, Stale: n.Symbol.Stale, IsTest: n.Symbol.IsTest}
		if rev := shortRev(n.Symbol.Revision); rev != out.Revision {
			g.Rev = rev
		}
		out.Files[i].Nodes = append(out.Files[i].Nodes, g)
	}
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
		tests, err := graph.ParseTests(in.Tests)
		if err != nil {
			return out, argError("%v", err)
		}
		// Readers and writers start from a field; a definition's reads and writes from it.
		sym, choice, err := s.walkAnchor(ctx, in, rel != graph.CallsRel && dir == graph.Callers)
		if err != nil {
			return out, err
		}
		matches := max(len(choice.Matches), 1)
		if choice.Chosen == nil && len(choice.Matches) > 1 {
			out.Matches, out.Candidates, out.Note = matches, candidates(choice.Matches), ambiguousNote(in.Name, matches)
			return out, s.markStale(ctx, pointers(choice.Matches)...)
		}
		if choice.Inherited(in.Name) {
			out.Note = fmt.Sprintf("%s is defined in %s", strings.TrimSpace(in.Name), sym.Parent)
		}
		w, err := graph.SymbolsWith(ctx, s.cfg.DB, s.repo(ctx).ID, []int64{sym.ID}, dir,
			graph.Options{Depth: max(in.Depth, 1), MinConfidence: minConf, Relation: rel, Tests: tests})
		if err != nil {
			return out, err
		}
		if len(w.Nodes) > limit {
			w.Nodes = w.Nodes[:limit+1] // one more tells Truncated below
		}
		if err := s.markStale(ctx, append(w.Symbols(), &sym)...); err != nil {
			return out, err
		}
		out.Matches = matches
		if len(w.Nodes) > limit {
			w.Nodes, out.Truncated = w.Nodes[:limit], true
		}
		groupNodes(&out, w.Nodes)
		out.Symbol = WalkAnchor{ID: sym.ID, QualifiedName: cmp.Or(sym.QualifiedName, sym.Name), Kind: sym.Kind,
			Lines: fmt.Sprintf("%s:%d-%d", sym.Path, sym.StartLine, sym.EndLine), Sig: oneLine(sym.Signature, maxSigChars), Stale: sym.Stale}
		if rev := shortRev(sym.Revision); rev != out.Revision {
			out.Symbol.Rev = rev
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
// with what the name matched (symbols.Choose: no symbol when several are
// equally good); field: the name is a field's. Type.member reaches a member
// the type inherits.
func (s *Server) walkAnchor(ctx context.Context, in WalkIn, field bool) (symbols.Symbol, symbols.Choice, error) {
	var none symbols.Choice
	switch {
	case in.ID < 0:
		return symbols.Symbol{}, none, argError("id must be positive (got %d)", in.ID)
	case in.ID > 0:
		sym, err := symbols.Get(ctx, s.cfg.DB, s.repo(ctx).ID, in.ID)
		if errors.Is(err, symbols.ErrNotFound) {
			return sym, none, fmt.Errorf("unknown symbol id %d in this repository", in.ID)
		}
		return sym, symbols.Choice{Matches: []symbols.Symbol{sym}, Chosen: &sym}, err
	case in.Name != "":
		name, err := text("name", strings.TrimSpace(in.Name), maxNameBytes, true)
		if err != nil {
			return symbols.Symbol{}, none, err
		}
		var p string
		if in.Path != "" {
			if p, err = s.relPath(ctx, "path", in.Path); err != nil {
				return symbols.Symbol{}, none, err
			}
		}
		what := "symbol"
		if field {
			what = "field"
		}
		syms, err := symbols.FindOrInherited(ctx, s.cfg.DB, s.repo(ctx).ID, name, p, field)
		if errors.Is(err, symbols.ErrNotFound) {
			return symbols.Symbol{}, none, fmt.Errorf("unknown %s %q%s: try search_symbols", what, name, inPath(p))
		}
		if err != nil {
			return symbols.Symbol{}, none, err
		}
		c := symbols.Choose(name, syms)
		if c.Chosen == nil {
			return symbols.Symbol{}, c, nil
		}
		return *c.Chosen, c, nil
	}
	return symbols.Symbol{}, none, argError("give name (plain or qualified) or id")
}

// maxCandidates bounds the definitions an ambiguous name lists.
const maxCandidates = 20

// candidates are the definitions an ambiguous name lists, for the agent to
// pass one's id or qualified name.
func candidates(syms []symbols.Symbol) []SymbolRef {
	out := make([]SymbolRef, 0, min(len(syms), maxCandidates))
	for _, sym := range syms[:min(len(syms), maxCandidates)] {
		r := ref(sym)
		r.Signature = ""
		out = append(out, r)
	}
	return out
}

// ambiguousNote says why nothing was done for a name with several definitions.
func ambiguousNote(name string, n int) string {
	return fmt.Sprintf("%d definitions match %q and none was chosen: pass one's id, or a qualified name (Type.name), or a path", n, strings.TrimSpace(name))
}
