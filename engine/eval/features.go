package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/search"
)

// The ranker's training data (internal/train/ranker): for each history query,
// the fused candidates of an RRF search with the ranker's inputs and a label,
// once as the commit message and once with every word that the changed files
// use taken out: what a question looks like when its words are not the code's.

// featureDepth is how many fused candidates a query keeps.
const featureDepth = 100

// FeatureQuery is one line of a features file.
type FeatureQuery struct {
	Repository string             `json:"repository"`
	Commit     string             `json:"commit"`
	Query      string             `json:"query"`
	Masked     bool               `json:"masked"`         // the code's own words taken out
	Tags       []string           `json:"tags,omitempty"` // a hand-written query's tags
	Candidates []FeatureCandidate `json:"candidates"`
}

// FeatureCandidate is one fused candidate: 2 a definition the commit changed, 1
// another definition of a changed file, 0 the rest.
type FeatureCandidate struct {
	Path     string    `json:"path"`
	Name     string    `json:"name"`
	Label    int       `json:"label"`
	Test     bool      `json:"test,omitempty"`
	Boost    float64   `json:"boost,omitempty"` // the exact-match boost added to the fused score
	Features []float64 `json:"f"`               // the ranker's inputs (search.ExpandLearned makes its features)
}

// writeFeatures writes the query's lines (plain and masked) to w.
func (r *historyRun) writeFeatures(ctx context.Context, s *search.Searcher, c historyCommit, gold []string, defs []defKey) error {
	code, err := r.goldTokens(ctx, c.Parent, gold)
	if err != nil {
		return err
	}
	texts := []string{c.Query}
	if m := maskWords(c.Query, code); m != "" && m != c.Query {
		texts = append(texts, m) // the second line is the masked one
	}
	for i, text := range texts {
		resp, err := s.Search(ctx, text, search.Options{Limit: featureDepth, Fusion: search.FusionRRF, Features: true})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue // a query no channel answers teaches nothing
		}
		line := FeatureQuery{Repository: r.root, Commit: c.SHA, Query: text, Masked: i == 1}
		for _, res := range resp.Results {
			fc, ok := featureCandidate(res)
			if !ok {
				continue
			}
			if contains(gold, res.Path) {
				fc.Label = 1
				if contains(defs, defKey{res.Path, res.QualifiedName}) {
					fc.Label = 2
				}
			}
			line.Candidates = append(line.Candidates, fc)
		}
		if len(line.Candidates) == 0 {
			continue // searched as an identifier: the ranker never sees it
		}
		if err := writeJSONLine(r.opts.Features, line); err != nil {
			return err
		}
	}
	return nil
}

// featureCandidate is a result with the ranker's inputs, unlabelled; false
// when the search kept none (an identifier query).
func featureCandidate(res search.Result) (FeatureCandidate, bool) {
	l := res.Explain.Learned
	if l == nil {
		return FeatureCandidate{}, false
	}
	fc := FeatureCandidate{Path: res.Path, Name: res.QualifiedName, Test: res.Explain.TestFactor < 1, Boost: res.Explain.Boost}
	for _, t := range l.Terms[:search.LearnedInputCount()] {
		fc.Features = append(fc.Features, t.Value) // the inputs; the trainer expands them
	}
	return fc, true
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write features: %w", err)
	}
	return nil
}

// goldTokens are the tokens (embed.Tokenize) of the changed files at the parent.
func (r *historyRun) goldTokens(ctx context.Context, parent string, gold []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, p := range gold {
		b, err := runGit(ctx, r.root, "show", parent+":"+p)
		if err != nil {
			return nil, fmt.Errorf("features: read %s at %s: %w", p, shortSHA(parent), err)
		}
		for _, t := range embed.Tokenize(string(b)) {
			out[t] = true
		}
	}
	return out, nil
}

var maskWordRe = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// maskWords drops from text every word whose tokens the code holds, keeping
// the rest in order; "" when nothing but such words was left.
func maskWords(text string, code map[string]bool) string {
	var kept []string
	for _, w := range maskWordRe.FindAllString(text, -1) {
		toks := embed.Tokenize(w)
		shared := len(toks) == 0
		for _, t := range toks {
			if code[t] {
				shared = true
				break
			}
		}
		if !shared {
			kept = append(kept, w)
		}
	}
	if len(kept) < 2 {
		return ""
	}
	return strings.Join(kept, " ")
}

// writeQueryFeatures writes a hand-written question's line (Runner.Features):
// its RRF candidates with the ranker's inputs, labelled 2 where they answer it.
func (r *Runner) writeQueryFeatures(ctx context.Context, q Query) error {
	if r.Features == nil || q.Kind == "graph" || len(q.Expect) == 0 {
		return nil
	}
	resp, err := r.Searcher.Search(ctx, q.Query, search.Options{Limit: featureDepth, Lexical: r.Lexical, Fusion: search.FusionRRF, Features: true})
	if err != nil {
		return nil // a query no channel answers teaches nothing
	}
	line := FeatureQuery{Repository: q.ID, Query: q.Query, Tags: q.Tags}
	for _, res := range resp.Results {
		fc, ok := featureCandidate(res)
		if !ok {
			return nil // searched as an identifier: the ranker never sees it
		}
		it := Ranked{path: res.Path, name: res.Name, receiver: res.Receiver, aliases: res.Aliases}
		for _, e := range q.Expect {
			if matches(it, e) {
				fc.Label = 2
			}
		}
		line.Candidates = append(line.Candidates, fc)
	}
	return writeJSONLine(r.Features, line)
}
