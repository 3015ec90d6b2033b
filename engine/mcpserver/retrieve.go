package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spelunkhq/spelunk/engine/search"
)

// retrieve_context: the budget holds for the whole answer as the client
// receives it (the text block of JSON: context, sources, omitted list and all),
// at the engine's estimate of search.CharsPerToken characters a token.

// RetrieveContextIn is the input of retrieve_context.
type RetrieveContextIn struct {
	RepoArg
	Query  string `json:"query" jsonschema:"as search_code's: up to 16 KiB"`
	Budget int    `json:"budget,omitempty" jsonschema:"tokens, 100-32000, default 4000"`
	Limit  int    `json:"limit,omitempty" jsonschema:"symbols, 1-100, default 20"`
}

// ContextSource is one symbol packed into the context, whose source is there
// under a header line naming its lines.
type ContextSource struct {
	Lines     string  `json:"lines"` // path:start-end
	Name      string  `json:"name"`  // qualified
	Score     float64 `json:"score"`
	Tokens    int     `json:"tokens"`
	Rev       string  `json:"rev,omitempty"`       // when not the answer's revision
	Stale     bool    `json:"stale,omitempty"`     // the file changed on disk since: this is the indexed source
	Truncated bool    `json:"truncated,omitempty"` // cut to fit the budget
}

// OmittedHit is a candidate left out of the context, with the reason.
type OmittedHit struct {
	Lines  string `json:"lines"` // path:start line
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// RetrieveContextOut is the output of retrieve_context.
type RetrieveContextOut struct {
	Query      string          `json:"query"` // clipped
	Budget     int             `json:"budget"`
	TokensUsed int             `json:"tokens_used"` // of the context's source
	Revision   string          `json:"revision,omitempty"`
	Context    string          `json:"context"`
	Sources    []ContextSource `json:"sources"`
	Omitted    []OmittedHit    `json:"omitted,omitempty"`
	// MoreOmitted counts candidates left out of omitted (and sources dropped
	// for the answer to fit).
	MoreOmitted int `json:"more_omitted,omitempty"`
}

// packShare is the part of the budget the engine packs source into; the rest is
// for the headers, the lists and JSON's escapes (the fitting loop makes sure).
const packShare = 0.85

// maxEchoChars bounds a query repeated in a result: a pasted issue is the
// client's own, and 16 KiB of it back would cost more than the answer.
const maxEchoChars = 120

func (s *Server) retrieveContext(ctx context.Context, _ *mcp.CallToolRequest, in RetrieveContextIn) (RetrieveContextOut, error) {
	budget := cmp.Or(in.Budget, 4000)
	if budget < 100 || budget > maxBudget {
		return RetrieveContextOut{}, argError("budget must be between 100 and %d tokens (got %d)", maxBudget, in.Budget)
	}
	limit, err := limitArg("limit", in.Limit, 20, maxLimit)
	if err != nil {
		return RetrieveContextOut{}, err
	}
	resp, err := s.runSearch(ctx, in.Query, search.Options{Budget: max(int(float64(budget)*packShare), 50), Limit: limit})
	if err != nil {
		return RetrieveContextOut{}, err
	}
	p := packing{out: RetrieveContextOut{Query: oneLine(resp.Query, maxEchoChars), Budget: budget}}
	var revs []string
	for _, r := range resp.Results {
		p.pieces = append(p.pieces, newPiece(r))
		revs = append(revs, shortRev(r.Revision))
	}
	p.out.Revision = commonest(revs)
	for i, o := range resp.Pruned {
		if i == maxOmitted {
			p.out.MoreOmitted = len(resp.Pruned) - i
			break
		}
		reason, _, _ := strings.Cut(o.Reason, " (") // the figures are the engine's, not the answer's
		p.out.Omitted = append(p.out.Omitted, OmittedHit{Lines: fmt.Sprintf("%s:%d", o.Path, o.StartLine), Name: o.Name, Reason: reason})
	}
	return p.fit(int(float64(budget) * search.CharsPerToken))
}

// piece is one packed symbol: its header line and source, and its source entry.
type piece struct {
	src    ContextSource
	rev    string
	header func(truncated bool) string
	body   string
}

func newPiece(r search.Result) piece {
	lines := fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine)
	name := cmp.Or(r.QualifiedName, r.Name)
	header := func(truncated bool) string {
		var b strings.Builder
		fmt.Fprintf(&b, "=== %s %s (%s", lines, name, r.Kind)
		if r.WorkingTree() {
			b.WriteString(", working tree")
		}
		if r.Stale {
			b.WriteString(", stale: changed on disk since indexed")
		}
		if truncated {
			b.WriteString(", truncated")
		}
		b.WriteString(")\n")
		return b.String()
	}
	return piece{src: ContextSource{Lines: lines, Name: name, Score: round3(r.Score), Tokens: r.Tokens, Stale: r.Stale, Truncated: r.Truncated},
		rev: shortRev(r.Revision), header: header, body: strings.TrimRight(r.Content, "\n")}
}

// packing fits an answer to its character ceiling.
type packing struct {
	out    RetrieveContextOut
	pieces []piece
}

// fit renders the answer, and while it is over maxChars takes away what matters
// least: the omitted list's tail, then the last source, the query's echo, then
// the end of the one source left (cut at a line, marked truncated).
func (p *packing) fit(maxChars int) (RetrieveContextOut, error) {
	for {
		out := p.render()
		n, err := encodedLen(out)
		if err != nil || n <= maxChars {
			return out, err
		}
		over := n - maxChars
		switch {
		case len(p.out.Omitted) > 0:
			p.out.Omitted = p.out.Omitted[:len(p.out.Omitted)-1]
			p.out.MoreOmitted++
		case len(p.pieces) > 1:
			p.pieces = p.pieces[:len(p.pieces)-1]
			p.out.MoreOmitted++
		case len([]rune(p.out.Query)) > 24:
			p.out.Query = oneLine(p.out.Query, 24)
		case len(p.pieces) == 1 && p.pieces[0].body != "":
			pc := &p.pieces[0]
			pc.body = cutAtLine(pc.body, len(pc.body)-over-16)
			pc.src.Truncated = true
			pc.src.Tokens = tokensOf(pc.body)
		default:
			return out, nil // nothing left to take: the fixed fields alone
		}
	}
}

func (p *packing) render() RetrieveContextOut {
	out := p.out
	out.Sources, out.TokensUsed = make([]ContextSource, 0, len(p.pieces)), 0
	var b strings.Builder
	for _, pc := range p.pieces {
		src := pc.src
		if pc.rev != out.Revision {
			src.Rev = pc.rev
		}
		out.Sources = append(out.Sources, src)
		out.TokensUsed += src.Tokens
		b.WriteString(pc.header(src.Truncated))
		b.WriteString(pc.body)
		b.WriteString("\n\n")
	}
	out.Context = b.String()
	return out
}

// cutAtLine cuts s to at most n bytes, at the end of a line when there is one.
func cutAtLine(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i > 0 {
		return s[:i]
	}
	return clip(s, n-len("…"))
}

func tokensOf(s string) int { return int(float64(len(s))/search.CharsPerToken + 0.999) }
