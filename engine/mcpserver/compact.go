package mcpserver

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/spelunkhq/spelunk/engine/search"
)

// search_code's results: compact by default, because an agent pays for every
// byte of them and acts on where a definition is, what it is and why it ranked;
// the per-channel numbers are for someone tuning the search (detail explain).

// CodeHit is one search result.
type CodeHit struct {
	Repository string  `json:"repository,omitempty"` // set when the server serves several
	ID         int64   `json:"id"`                   // for read_symbol, find_callers, ...
	Lines      string  `json:"lines"`                // path:start-end
	Kind       string  `json:"kind"`
	Name       string  `json:"name"` // qualified name
	Sig        string  `json:"sig,omitempty"`
	Score      float64 `json:"score"`
	Why        string  `json:"why"`           // exact name · symbol#1 · lexical#2 ...
	Rev        string  `json:"rev,omitempty"` // when not the response's revision
	Stale      bool    `json:"stale,omitempty"`
	// Explain is the full breakdown, with detail explain.
	Explain *Explain `json:"explain,omitempty"`
}

// ChannelScore is one channel's view of a result.
type ChannelScore struct {
	Rank         int     `json:"rank"`
	Score        float64 `json:"score"`        // the channel's raw score
	Contribution float64 `json:"contribution"` // RRF: weight / (k + rank); ranker: its terms on this channel
}

// Explain says where a result's score came from.
type Explain struct {
	Channels   map[string]ChannelScore `json:"channels"`
	Fused      float64                 `json:"fused"`
	Boost      float64                 `json:"boost,omitempty"` // lift of an exact name match
	TestFactor float64                 `json:"test_factor"`     // below 1 for tests, examples, prose
	Decay      float64                 `json:"decay"`
	Final      float64                 `json:"final"`
	Parent     string                  `json:"parent,omitempty"`
	IsTest     bool                    `json:"is_test,omitempty"`
	// Ranker is the learned fusion's score before its sigmoid, when it fused.
	Ranker *float64 `json:"ranker,omitempty"`
	// Expanded says which learned expansions of the question's words matched:
	// "matched `dedupe` ← learned from `twice`, 0.31".
	Expanded []string `json:"expanded,omitempty"`
}

// PrunedHit is a candidate left out of the results, with the reason.
type PrunedHit struct {
	Repository string `json:"repository,omitempty"`
	Path       string `json:"path"`
	Name       string `json:"name"`
	StartLine  int    `json:"start_line"`
	Reason     string `json:"reason"`
}

// FileDef is one of a ranked file's definitions: where, what, how good.
type FileDef struct {
	ID    int64   `json:"id"`
	Lines string  `json:"lines"`
	Kind  string  `json:"kind"`
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// FileHit is one ranked file.
type FileHit struct {
	Repository  string    `json:"repository,omitempty"`
	Path        string    `json:"path"`
	Score       float64   `json:"score"` // the best definition's plus a share of the next ones'
	IsTest      bool      `json:"is_test,omitempty"`
	Rev         string    `json:"rev,omitempty"`
	Stale       bool      `json:"stale,omitempty"`
	Definitions []FileDef `json:"definitions"` // best first
}

// searchCodeOut merges the repositories' answers into one (search.Interleave
// says why by rank) and renders it.
func (s *Server) searchCodeOut(answers []repoSearch, c searchCall) SearchCodeOut {
	first := answers[0].resp
	out := SearchCodeOut{Query: oneLine(first.Query, maxEchoChars), Kind: string(first.Kind), Granularity: string(c.opts.Granularity), Results: []CodeHit{}}
	if first.Filter != nil {
		out.Filter = first.Filter.String()
	}
	lists := make([][]search.Result, len(answers))
	files := make([][]search.FileResult, len(answers))
	for i, a := range answers {
		lists[i], files[i] = a.resp.Results, a.resp.Files
		for ch, why := range a.resp.Unavailable {
			if out.Unavailable == nil {
				out.Unavailable = map[string]string{}
			}
			out.Unavailable[string(ch)] = why
		}
		if c.explain {
			for j, p := range a.resp.Pruned {
				if j == maxOmitted {
					break
				}
				out.Pruned = append(out.Pruned, PrunedHit{Repository: s.repoName(a.b), Path: p.Path, Name: p.Name, StartLine: p.StartLine, Reason: p.Reason})
			}
		}
	}
	var revs []string
	if out.Granularity == string(search.Files) {
		for _, p := range search.Interleave(files, func(f search.FileResult) float64 { return f.Score }, c.opts.Limit) {
			h := fileHit(files[p.List][p.Index])
			h.Repository = s.repoName(answers[p.List].b)
			out.Files, revs = append(out.Files, h), append(revs, h.Rev)
		}
	} else {
		for _, p := range search.Interleave(lists, func(r search.Result) float64 { return r.Score }, c.opts.Limit) {
			h := codeHit(lists[p.List][p.Index], c.explain)
			h.Repository = s.repoName(answers[p.List].b)
			out.Results, revs = append(out.Results, h), append(revs, h.Rev)
		}
	}
	out.Revision = commonest(revs)
	for i := range out.Results {
		if out.Results[i].Rev == out.Revision {
			out.Results[i].Rev = ""
		}
	}
	for i := range out.Files {
		if out.Files[i].Rev == out.Revision {
			out.Files[i].Rev = ""
		}
	}
	return out
}

func codeHit(r search.Result, explain bool) CodeHit {
	h := CodeHit{ID: r.ID, Lines: fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine), Kind: r.Kind,
		Name: cmp.Or(r.QualifiedName, r.Name), Sig: oneLine(r.Signature, maxSigChars), Score: round3(r.Score),
		Why: why(r.Explain), Rev: shortRev(r.Revision), Stale: r.Stale}
	if explain {
		ex := &Explain{Channels: map[string]ChannelScore{}, Fused: r.Explain.Fused, Boost: r.Explain.Boost,
			TestFactor: r.Explain.TestFactor, Decay: r.Explain.Decay, Final: r.Explain.Final, Parent: r.Parent, IsTest: r.IsTest}
		for c, cs := range r.Explain.Channels {
			ex.Channels[string(c)] = ChannelScore(cs)
		}
		if l := r.Explain.Learned; l != nil && l.Model != "" {
			ex.Ranker = &l.Score
		}
		for _, e := range r.Explain.Expanded {
			ex.Expanded = append(ex.Expanded, e.String())
		}
		h.Explain = ex
	}
	return h
}

func fileHit(f search.FileResult) FileHit {
	h := FileHit{Path: f.Path, Score: round3(f.Score), IsTest: f.IsTest, Definitions: make([]FileDef, 0, len(f.Symbols))}
	for _, r := range f.Symbols {
		h.Rev, h.Stale = shortRev(r.Revision), h.Stale || r.Stale
		h.Definitions = append(h.Definitions, FileDef{ID: r.ID, Lines: fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine),
			Kind: r.Kind, Name: cmp.Or(r.QualifiedName, r.Name), Score: round3(r.Score)})
	}
	return h
}

// maxSigChars bounds a compact result's signature: one line, enough to tell
// overloads and receivers apart.
const maxSigChars = 100

// why says in a few words why a result ranked: an exact name match, then each
// channel that found it with its rank there (best first), then any demotion.
func why(ex search.Explain) string {
	var parts []string
	if ex.Boost > 0 {
		parts = append(parts, "exact name")
	}
	chans := make([]search.Channel, 0, len(ex.Channels))
	for c := range ex.Channels {
		chans = append(chans, c)
	}
	sort.Slice(chans, func(i, j int) bool {
		ri, rj := ex.Channels[chans[i]].Rank, ex.Channels[chans[j]].Rank
		return ri < rj || ri == rj && chans[i] < chans[j]
	})
	for _, c := range chans {
		parts = append(parts, fmt.Sprintf("%s#%d", c, ex.Channels[c].Rank))
	}
	if ex.TestFactor > 0 && ex.TestFactor < 1 {
		parts = append(parts, fmt.Sprintf("test/docs x%g", round3(ex.TestFactor)))
	}
	if ex.Decay > 0 && ex.Decay < 1 {
		parts = append(parts, fmt.Sprintf("age x%g", round3(ex.Decay)))
	}
	return strings.Join(parts, " · ")
}

// oneLine collapses whitespace and cuts to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// shortRev abbreviates a commit to 12 hex digits (as git does on large
// repositories); working-tree stays as it is.
func shortRev(rev string) string {
	if len(rev) == 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		return rev[:12]
	}
	return rev
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// commonest is the most frequent value (the first of a tie).
func commonest(vs []string) string {
	n := map[string]int{}
	best := ""
	for _, v := range vs {
		n[v]++
		if n[v] > n[best] {
			best = v
		}
	}
	return best
}
