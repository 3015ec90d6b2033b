// Package search answers a query with hybrid retrieval: four channels (symbol,
// lexical, dense, graph), each a ranked list with raw scores, fused by Reciprocal Rank
// Fusion, then re-ranked (test files lower, recency decay on the fused top only),
// pruned of near-duplicates and packed under a token budget. Every result carries an
// Explain that says exactly where its score came from.
package search

import (
	"time"

	"github.com/spelunkhq/spelunk/engine/symbols"
)

// Channel names a retrieval channel.
type Channel string

// The channels.
const (
	Dense   Channel = "dense"
	Lexical Channel = "lexical"
	// Literal matches exact phrases and substrings of the code: a pasted error
	// message, a quoted string, a struct tag, an environment variable.
	Literal Channel = "literal"
	Symbol  Channel = "symbol"
	Graph   Channel = "graph"
)

// AllChannels in display order.
var AllChannels = []Channel{Dense, Lexical, Literal, Symbol, Graph}

// QueryKind is what the query looks like; it picks the default channel weights.
type QueryKind string

// Query kinds.
const (
	Identifier QueryKind = "identifier" // one or two code-like tokens: isEligibleForRefund, Engine.Run
	Semantic   QueryKind = "semantic"   // a question or description in words
)

// Options tune one search. The zero value is the default hybrid search.
type Options struct {
	Channels []Channel           // nil = all four
	K        float64             // RRF constant; 0 = 60
	Weights  map[Channel]float64 // per-channel RRF weights; missing = the query kind's default
	Limit    int                 // results; 0 = 20
	Budget   int                 // token budget for packing; 0 = none
	EfSearch int                 // HNSW ef_search; 0 = 100
	// TestFactor multiplies the fused score of tests, examples, prose (Markdown,
	// text, YAML, ...) and dist/ bundles; 0 = 0.5, 1 disables the demotion.
	TestFactor float64
	// HalfLife of the recency decay applied to the fused top results by file age
	// (indexed_at for working-tree files, else the repository's last index time);
	// 0 = no decay.
	HalfLife time.Duration
	// Anchor names a symbol (plain or qualified) to seed the graph channel; empty =
	// the top results of the other channels.
	Anchor string
	// Kind forces the query kind instead of detecting it.
	Kind QueryKind
	// Lexical picks the lexical scorer: "bm25" (BM25F over the postings table) or
	// "" = DefaultLexical. ("cd", cover density over a tsvector, went with
	// migration 0018.)
	Lexical string
	// Granularity is Symbols (""), or Files: Response.Files then ranks files by
	// their definitions' evidence, Limit files, with the best definitions under each.
	Granularity Granularity
	// Filter narrows the search (added to the filters typed in the query).
	Filter Filter
	// Fusion is FusionLearned (the built-in ranker for questions), FusionRRF
	// (the per-kind weights for every query) or "" (the ranker where it is
	// the default, RankModel.Default).
	Fusion string
	// Features keeps the ranker's inputs in each question's Explain.Learned
	// even when RRF fused it (the ranker's training data, `eval history --features`).
	Features bool
	// Expand is ExpandOn (a question's words also look for the code tokens
	// learned for them, expand.go), ExpandOff, or "" (DefaultExpand).
	Expand string
}

// ChannelScore is one channel's view of a result.
type ChannelScore struct {
	Rank         int     `json:"rank"`         // 1-based rank within the channel
	Score        float64 `json:"score"`        // the channel's raw score
	Contribution float64 `json:"contribution"` // weight / (k + rank)
}

// Explain says where a result's score came from.
type Explain struct {
	Channels map[Channel]ChannelScore `json:"channels"`
	Fused    float64                  `json:"fused"` // sum of contributions
	// Boost lifts exact name matches of an identifier query above every fuzzy
	// match (0 when none); Final includes it.
	Boost      float64 `json:"boost,omitempty"`
	TestFactor float64 `json:"test_factor"` // 1 unless a test, example, prose or dist/ file
	Decay      float64 `json:"decay"`       // recency factor, 1 = none
	Final      float64 `json:"final"`       // (fused + boost) * test factor * decay
	// Learned is the ranker's account of Fused when it fused this result.
	Learned *Learned `json:"learned,omitempty"`
	// Expanded lists the learned expansions of the question's words
	// (Response.Expanded) this result matched in the lexical channel.
	Expanded []Expansion `json:"expanded,omitempty"`
}

// Result is one ranked symbol.
type Result struct {
	Rank int `json:"rank"`
	symbols.Symbol
	Score   float64 `json:"score"`
	Explain Explain `json:"explain"`
	// Content is the symbol's source; Truncated marks an oversized first result
	// that was cut to fit the budget (the only symbol ever cut).
	Content   string `json:"content,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Tokens    int    `json:"tokens,omitempty"`
}

// Pruned is a candidate left out, with the reason.
type Pruned struct {
	Path        string  `json:"path"`
	Name        string  `json:"name"`
	StartLine   int     `json:"start_line"`
	Reason      string  `json:"reason"` // "near-duplicate of PATH:NAME (jaccard 0.93)", "over budget"
	Score       float64 `json:"score"`
	DuplicateOf int64   `json:"duplicate_of,omitempty"`
}

// Response is a whole answer.
type Response struct {
	Query   string              `json:"query"`
	Kind    QueryKind           `json:"kind"`
	K       float64             `json:"k"`
	Weights map[Channel]float64 `json:"weights"`
	// Fusion is how the channels were combined: "rrf" (K and Weights), or
	// "learned:MODEL" (the ranker; Weights then only say which channels ran).
	Fusion  string   `json:"fusion"`
	Results []Result `json:"results"`
	// Files is set for Granularity Files; Results then holds the definitions the
	// files were ranked from, without their code (only Files' listed ones have it).
	Files  []FileResult `json:"files,omitempty"`
	Pruned []Pruned     `json:"pruned"`
	// Unavailable lists channels that could not answer (embedder down, say) with
	// the reason; the other channels still did.
	Unavailable map[Channel]string `json:"unavailable,omitempty"`
	// Notes say what was done to the query itself (a long input cut, say).
	Notes []string `json:"notes,omitempty"`
	// Expanded are the learned terms the lexical channel scored the question
	// with (Options.Expand), from the table Translation names.
	Expanded    []Expansion `json:"expanded,omitempty"`
	Translation string      `json:"translation,omitempty"`
	// Filter is what the search was narrowed to: the query's filters (path:,
	// lang:, test:no, ...) and Options.Filter; Query is the rest of the query.
	Filter  *Filter                   `json:"filter,omitempty"`
	Timings map[Channel]time.Duration `json:"-"`
	Took    time.Duration             `json:"-"`
}

// Symbols points at the symbol of every result, those listed under Files
// included, so that a caller can annotate them in place (engine/fresh marks the
// stale ones).
func (r *Response) Symbols() []*symbols.Symbol {
	out := make([]*symbols.Symbol, 0, len(r.Results))
	for i := range r.Results {
		out = append(out, &r.Results[i].Symbol)
	}
	for i := range r.Files {
		for j := range r.Files[i].Symbols {
			out = append(out, &r.Files[i].Symbols[j].Symbol)
		}
	}
	return out
}
