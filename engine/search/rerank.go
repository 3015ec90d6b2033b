package search

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spelunkhq/spelunk/engine/symbols"
)

// rerank is the second stage, over the fused top only: load the candidates, demote
// tests, apply recency decay, prune near-duplicates and pack under the budget.
//
// The top starts at three times the limit and grows until no candidate left
// out could rank among the results: a candidate's final score is at most its
// fused score plus boost (the factors are at most 1), and the candidates come
// in that order, so once the limit-th result scores above the first one left
// out, none after it can reach the results. A fixed cut at 3×limit, taken
// before the ×0.5 test and prose factor, let --limit change the order: two
// tests ranked 2-3 at --limit 3 and below the code they test at --limit 60
// (issue 36, 7).
func (s *Searcher) rerank(ctx context.Context, cands []candidate, opts Options, resp *Response, now time.Time) error {
	limit := opts.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	files := opts.Granularity == Files
	for m := limit * 3; ; m *= 2 {
		top := cands[:min(m, len(cands))]
		if len(top) == 0 {
			resp.Results = []Result{}
			resp.Pruned = []Pruned{}
			return nil
		}
		results, err := s.score(ctx, top, opts, now)
		if err != nil {
			return err
		}
		resp.Pruned = []Pruned{}
		var kept []Result
		if files {
			kept = results[:min(len(results), limit)]
		} else {
			kept = prune(results, limit, resp)
		}
		if len(top) < len(cands) && (len(kept) < limit || kept[limit-1].Score <= cands[len(top)].fused+cands[len(top)].boost) {
			continue // a candidate left out may still rank among the results
		}
		if opts.Budget > 0 {
			kept = pack(kept, opts.Budget, resp)
		}
		for i := range kept {
			kept[i].Rank = i + 1
			if opts.Budget == 0 {
				kept[i].Tokens = tokens(kept[i].Content)
			}
		}
		resp.Results = kept
		return nil
	}
}

// score loads the candidates of top and ranks them by their final score: the
// fused score and boost, times the test factor and the recency decay.
func (s *Searcher) score(ctx context.Context, top []candidate, opts Options, now time.Time) ([]Result, error) {
	testFactor := opts.TestFactor
	if testFactor <= 0 {
		testFactor = defaultTestFactor
	}
	ids := make([]int64, len(top))
	for i, c := range top {
		ids[i] = c.id
	}
	// A file ranking needs no code, and a definition repeated in another file
	// is another file, not a duplicate: no content, no pruning.
	loaded, err := s.load(ctx, ids, opts.Granularity != Files)
	if err != nil {
		return nil, err
	}
	results := make([]Result, 0, len(top))
	for _, c := range top {
		l, ok := loaded[c.id]
		if !ok {
			continue // deleted by a concurrent re-index
		}
		ex := Explain{Channels: c.channels, Fused: c.fused, TestFactor: 1, Decay: 1, Boost: c.boost, Learned: c.learned,
			Expanded: c.expanded}
		if l.sym.IsTest || isProse(l.sym.Path) || isBuildOutput(l.sym.Path) {
			ex.TestFactor = testFactor
		}
		if opts.HalfLife > 0 && !l.updated.IsZero() {
			age := now.Sub(l.updated)
			ex.Decay = math.Pow(0.5, float64(age)/float64(opts.HalfLife))
		}
		ex.Final = (c.fused + c.boost) * ex.TestFactor * ex.Decay
		results = append(results, Result{Symbol: l.sym, Score: ex.Final, Explain: ex, Content: l.content})
	}
	// Ties break on location, not on ids (which depend on indexing order), so the
	// same index content always ranks the same way.
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.StartLine < b.StartLine
	})
	return results, nil
}

// fillContent loads the code of the definitions listed under each file (the
// ranking itself ran without it).
func (s *Searcher) fillContent(ctx context.Context, files []FileResult) error {
	var ids []int64
	for _, f := range files {
		for _, r := range f.Symbols {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT id, content FROM symbols WHERE repository_id = $1 AND id = ANY ($2)`, s.repoID, ids)
	if err != nil {
		return fmt.Errorf("load file results: %w", err)
	}
	content := make(map[int64]string, len(ids))
	var id int64
	var text string
	if _, err := pgx.ForEachRow(rows, []any{&id, &text}, func() error { content[id] = text; return nil }); err != nil {
		return fmt.Errorf("load file results: %w", err)
	}
	for i := range files {
		for j := range files[i].Symbols {
			r := &files[i].Symbols[j]
			r.Content = content[r.ID]
			r.Tokens = tokens(r.Content)
		}
	}
	return nil
}

type loadedSymbol struct {
	sym     symbols.Symbol
	content string
	updated time.Time
}

func (s *Searcher) load(ctx context.Context, ids []int64, content bool) (map[int64]loadedSymbol, error) {
	contentCol := "''"
	if content {
		contentCol = "s.content"
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT `+symbols.ColumnsFileJoined+`, `+contentCol+`, f.indexed_at
		FROM `+symbols.From+` JOIN files f ON f.repository_id = s.repository_id AND f.id = s.file_id
		WHERE s.repository_id = $1 AND s.id = ANY ($2)`, s.repoID, ids)
	if err != nil {
		return nil, fmt.Errorf("load results: %w", err)
	}
	out := make(map[int64]loadedSymbol, len(ids))
	for rows.Next() {
		var l loadedSymbol
		sy := &l.sym
		if err := rows.Scan(&sy.ID, &sy.Path, &sy.Name, &sy.QualifiedName, &sy.Aliases, &sy.Kind, &sy.StartLine, &sy.EndLine,
			&sy.Parent, &sy.ParentID, &sy.Receiver, &sy.Signature, &sy.Doc, &sy.Language, &sy.Revision, &sy.IsTest,
			&l.content, &l.updated); err != nil {
			rows.Close()
			return nil, fmt.Errorf("load results: %w", err)
		}
		out[sy.ID] = l
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load results: %w", err)
	}
	return out, nil
}

// prune keeps up to limit results, leaving out (into resp.Pruned, with the
// reason) other declarations of a kept definition and near-duplicates of a kept
// result.
func prune(results []Result, limit int, resp *Response) []Result {
	var kept []Result
	var keptTokens []map[string]struct{}
	for _, r := range results {
		if d, ok := sameDefinition(kept, r); ok {
			// Overload declarations, a getter and its setter: one definition,
			// listed once, at its best place.
			resp.Pruned = append(resp.Pruned, Pruned{Path: r.Path, Name: r.QualifiedName, StartLine: r.StartLine, Score: r.Score,
				DuplicateOf: d.ID, Reason: fmt.Sprintf("another declaration of %s (line %d)", d.QualifiedName, d.StartLine)})
			continue
		}
		toks := tokenSet(r.Content)
		dup := -1
		var sim float64
		for i, kt := range keptTokens {
			if j := jaccard(toks, kt); j >= jaccardDuplicate {
				dup, sim = i, j
				break
			}
		}
		if dup >= 0 {
			d := kept[dup]
			resp.Pruned = append(resp.Pruned, Pruned{Path: r.Path, Name: r.QualifiedName, StartLine: r.StartLine, Score: r.Score,
				DuplicateOf: d.ID, Reason: fmt.Sprintf("near-duplicate of %s:%s (token Jaccard %.2f)", d.Path, d.QualifiedName, sim)})
			continue
		}
		kept = append(kept, r)
		keptTokens = append(keptTokens, toks)
		if len(kept) == limit {
			break
		}
	}
	return kept
}

// pack keeps whole symbols under the token budget, in rank order, skipping any
// that does not fit; only an oversized first result is cut, and marked.
func pack(kept []Result, budget int, resp *Response) []Result {
	var packed []Result
	used := 0
	for i, r := range kept {
		t := tokens(r.Content)
		switch {
		case used+t <= budget:
			r.Tokens = t
			used += t
			packed = append(packed, r)
		case i == 0:
			r.Content = cutToTokens(r.Content, budget)
			r.Tokens = tokens(r.Content)
			r.Truncated = true
			used += r.Tokens
			packed = append(packed, r)
		default:
			resp.Pruned = append(resp.Pruned, Pruned{Path: r.Path, Name: r.QualifiedName, StartLine: r.StartLine, Score: r.Score,
				Reason: fmt.Sprintf("over budget (%d tokens, %d of %d left)", t, budget-used, budget)})
		}
	}
	return packed
}

// sameDefinition finds a kept result declaring the same name in the same file
// (and of the same kind) as r.
func sameDefinition(kept []Result, r Result) (Result, bool) {
	for _, k := range kept {
		if k.Path == r.Path && k.QualifiedName == r.QualifiedName && k.Kind == r.Kind {
			return k, true
		}
	}
	return Result{}, false
}

func tokens(s string) int { return int(math.Ceil(float64(len(s)) / CharsPerToken)) }

// cutToTokens cuts s at a line boundary to fit the budget.
func cutToTokens(s string, budget int) string {
	max := int(float64(budget) * CharsPerToken)
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], '\n')
	if cut <= 0 {
		cut = max
	}
	return s[:cut+1]
}

// tokenSet is the set of words of s, for near-duplicate detection; the first
// 8 KiB are enough to tell copies apart and keep the cost bounded.
func tokenSet(s string) map[string]struct{} {
	if len(s) > 8<<10 {
		s = s[:8<<10]
	}
	set := map[string]struct{}{}
	start := -1
	for i := 0; i <= len(s); i++ {
		word := i < len(s) && (s[i] == '_' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 0x80)
		if word && start < 0 {
			start = i
		} else if !word && start >= 0 {
			set[s[start:i]] = struct{}{}
			start = -1
		}
	}
	return set
}

func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	inter := 0
	for t := range small {
		if _, ok := large[t]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
