// Package eval measures retrieval on a query set (docs/ARCHITECTURE.md §7): hit@1, hit@5,
// recall@5, recall@10, MRR@10, nDCG@10 and latency, per channel configuration and
// query kind. It works on any repository and any query file in that format.
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spelunkhq/spelunk/engine/graph"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// Expect is one expected answer.
type Expect struct {
	Path     string   `json:"path"`
	Symbol   string   `json:"symbol,omitempty"`   // empty: the file itself
	Receiver string   `json:"receiver,omitempty"` // Go receiver type
	Class    string   `json:"class,omitempty"`    // Python/JS/TS/Java class
	Aliases  []string `json:"aliases,omitempty"`
	Module   string   `json:"module,omitempty"` // an external module (imports relation)
}

// Anchor names the symbol or module a graph query starts from.
type Anchor struct {
	Path   string `json:"path,omitempty"`
	Symbol string `json:"symbol,omitempty"`
	Module string `json:"module,omitempty"`
}

// Query is one line of a query file. Unknown fields are ignored.
type Query struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"` // semantic | identifier | graph
	Query    string   `json:"query"`
	Expect   []Expect `json:"expect"`
	Anchor   *Anchor  `json:"anchor,omitempty"`
	Relation string   `json:"relation,omitempty"` // callers | callees | imports | importers
	// Tags refine the kind for reporting: an identifier query tagged "literal" (a
	// pasted message, a config key) is also reported in the literal row.
	Tags []string `json:"tags,omitempty"`
}

// Load reads a JSONL query file; blank lines and lines starting with // are skipped.
func Load(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open queries: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// Read parses JSONL queries from r; name is used in error messages.
func Read(r io.Reader, name string) ([]Query, error) {
	var qs []Query
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		var q Query
		if err := json.Unmarshal([]byte(text), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		switch q.Kind {
		case "semantic", "identifier":
		case "graph":
			if q.Anchor == nil || q.Relation == "" {
				return nil, fmt.Errorf("%s:%d: graph query %q needs anchor and relation", name, line, q.ID)
			}
			switch q.Relation {
			case "callers", "callees", "imports", "importers":
			default:
				return nil, fmt.Errorf("%s:%d: unknown relation %q (callers, callees, imports, importers)", name, line, q.Relation)
			}
		default:
			return nil, fmt.Errorf("%s:%d: unknown kind %q (semantic, identifier, graph)", name, line, q.Kind)
		}
		if q.ID == "" {
			q.ID = fmt.Sprintf("line-%d", line)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return qs, nil
}

// Metrics is one row of the report.
type Metrics struct {
	Config   string  `json:"config"`
	Kind     string  `json:"kind"`
	N        int     `json:"n"`
	Hit1     float64 `json:"hit@1"`
	Hit5     float64 `json:"hit@5"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR10    float64 `json:"mrr@10"`
	NDCG10   float64 `json:"ndcg@10"`
	P50MS    float64 `json:"p50_ms"`
	P95MS    float64 `json:"p95_ms"`
	// Precision and Recall judge graph answers (callers, callees, imports) as
	// whole sets against complete expected lists, micro-averaged; absent on
	// rows with no graph question.
	Precision *float64 `json:"precision,omitempty"`
	Recall    *float64 `json:"recall,omitempty"`
}

// Report is the whole evaluation.
type Report struct {
	Queries int       `json:"queries"`
	Results []Metrics `json:"results"`
	// PerQuery holds each query's first matching rank per config (0 = not in the top
	// 10), for regression goldens and debugging.
	PerQuery []QueryOutcome `json:"per_query,omitempty"`
}

// QueryOutcome is where one query's first correct answer Ranked per config, and
// where each expected answer did.
type QueryOutcome struct {
	ID      string         `json:"id"`
	Kind    string         `json:"kind"`
	Query   string         `json:"query"`
	Ranks   map[string]int `json:"ranks"`
	Answers []AnswerRanks  `json:"answers,omitempty"`
}

// AnswerRanks is where one expected answer ranked per config (0 = not in the
// top 10).
type AnswerRanks struct {
	Expect Expect         `json:"expect"`
	Ranks  map[string]int `json:"ranks"`
}

// Configs evaluated, in report order.
var Configs = []string{"hybrid", "lexical", "dense", "literal", "symbol", "graph"}

// Kinds reported, in order.
// "literal" is the identifier queries tagged literal; a row with no query is left out.
var Kinds = []string{"all", "semantic", "identifier", "literal", "graph"}

// Ranked is one retrieved item, for matching against the expectations.
type Ranked struct {
	path, name, receiver, module string
	aliases                      []string
	window                       map[string]bool // baseline windows: the definitions they overlap
}

// Runner evaluates queries against an indexed repository.
type Runner struct {
	DB       *pg.DB
	RepoID   int64
	Searcher *search.Searcher
	// Lexical picks the lexical scorer for every configuration ("bm25"; "" = the
	// default).
	Lexical string
	// Tune overrides fusion settings (K, Weights, TestFactor) for every search,
	// to compare settings on a query set.
	Tune search.Options
	// Extra configurations beyond Configs, e.g. the fixed-window baseline.
	Extra map[string]func(ctx context.Context, q Query) ([]Ranked, error)
	// Tests says which answers in test code a graph question's walk lists
	// (graph.Tests; "" = all): with exclude, precision and recall are those of
	// `callers --tests exclude` against labels that leave tests out.
	Tests graph.Tests
	// Features, when set, receives each question's ranker inputs (features.go).
	Features io.Writer
}

// Run evaluates every query under every configuration.
func (r *Runner) Run(ctx context.Context, qs []Query) (*Report, error) {
	configs := r.configs()

	type sample struct {
		kind string
		tags []string
		m    queryMetrics
		set  *setCounts // graph questions answered by the walk
		dur  time.Duration
	}
	samples := map[string][]sample{}
	rep := &Report{Queries: len(qs)}
	for _, q := range qs {
		out := newOutcome(q)
		for _, cfg := range configs {
			start := time.Now()
			items, err := r.retrieve(ctx, cfg, q)
			dur := time.Since(start)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				items = nil // a channel that cannot answer scores zero, as a user would see it
			}
			m := score(items, q.Expect)
			s := sample{kind: q.Kind, tags: q.Tags, m: m, dur: dur}
			if q.Kind == "graph" && len(q.Expect) > 0 && (cfg == "hybrid" || cfg == "graph") {
				c := scoreSet(items, q.Expect)
				s.set = &c
			}
			samples[cfg] = append(samples[cfg], s)
			out.record(cfg, m.firstRank, items, q.Expect)
		}
		if err := r.graphAtConfidence(ctx, q, samplesAdder(func(cfg string, c setCounts) {
			samples[cfg] = append(samples[cfg], sample{kind: q.Kind, tags: q.Tags, set: &c})
		})); err != nil {
			return nil, err
		}
		rep.PerQuery = append(rep.PerQuery, out)
		if err := r.writeQueryFeatures(ctx, q); err != nil {
			return nil, err
		}
	}
	for _, cfg := range append(configs, GraphConfidenceConfigs...) {
		for _, kind := range Kinds {
			var ms []queryMetrics
			var sets []setCounts
			var durs []time.Duration
			for _, s := range samples[cfg] {
				if kind != "all" && s.kind != kind && !slices.Contains(s.tags, kind) {
					continue
				}
				durs = append(durs, s.dur)
				if s.m.scored {
					ms = append(ms, s.m)
				}
				if s.set != nil {
					sets = append(sets, *s.set)
				}
			}
			if len(durs) == 0 {
				continue
			}
			row := aggregate(ms)
			row.Precision, row.Recall = setMetrics(sets)
			if len(ms) == 0 && len(sets) > 0 {
				row.N = len(sets) // a set-only row (graph>=inferred, graph=exact)
			}
			row.Config, row.Kind = cfg, kind
			row.P50MS, row.P95MS = percentile(durs, 0.50), percentile(durs, 0.95)
			rep.Results = append(rep.Results, row)
		}
	}
	return rep, nil
}

// configs are Configs and then the extra ones by name.
func (r *Runner) configs() []string {
	extra := slices.Sorted(maps.Keys(r.Extra))
	return append(append([]string{}, Configs...), extra...)
}

// retrieve runs one query under one configuration.
func (r *Runner) retrieve(ctx context.Context, cfg string, q Query) ([]Ranked, error) {
	if f, ok := r.Extra[cfg]; ok {
		return f(ctx, q)
	}
	if q.Kind == "graph" && (cfg == "hybrid" || cfg == "graph") {
		return r.walk(ctx, q, "")
	}
	opts := search.Options{Limit: 10, Lexical: r.Lexical, K: r.Tune.K, Weights: r.Tune.Weights, TestFactor: r.Tune.TestFactor, Fusion: r.Tune.Fusion,
		Expand: r.Tune.Expand}
	if cfg != "hybrid" {
		opts.Channels = []search.Channel{search.Channel(cfg)}
	}
	resp, err := r.Searcher.Search(ctx, q.Query, opts)
	if err != nil {
		return nil, err
	}
	if cfg != "hybrid" {
		if reason, down := resp.Unavailable[search.Channel(cfg)]; down {
			return nil, errors.New(reason)
		}
	}
	items := make([]Ranked, 0, len(resp.Results))
	for _, res := range resp.Results {
		items = append(items, Ranked{path: res.Path, name: res.Name, receiver: res.Receiver, aliases: res.Aliases})
	}
	return items, nil
}

// walk answers a graph query with the relation walk itself.
func (r *Runner) walk(ctx context.Context, q Query, min graph.Confidence) ([]Ranked, error) {
	a := q.Anchor
	switch q.Relation {
	case "imports":
		links, err := graph.Imports(ctx, r.DB, r.RepoID, a.Path, 1)
		return fileItems(links), err
	case "importers":
		target := a.Path
		if a.Module != "" {
			target = a.Module
		}
		links, err := graph.Importers(ctx, r.DB, r.RepoID, target, 1, r.Tests)
		return fileItems(links), err
	}
	syms, err := symbols.Find(ctx, r.DB, r.RepoID, a.Symbol, a.Path)
	if err != nil {
		return nil, err
	}
	// The anchor is the definition at that path with that name; methods of the same
	// name on other types are different anchors.
	ids := []int64{syms[0].ID}
	dir := graph.Callers
	if q.Relation == "callees" {
		dir = graph.Callees
	}
	w, err := graph.SymbolsWith(ctx, r.DB, r.RepoID, ids, dir, graph.Options{Depth: 1, MinConfidence: min, Tests: r.Tests})
	if err != nil {
		return nil, err
	}
	items := make([]Ranked, 0, len(w.Nodes))
	for _, n := range w.Nodes {
		items = append(items, Ranked{path: n.Path, name: n.Name, receiver: n.Receiver, aliases: n.Aliases})
	}
	return items, nil
}

func fileItems(links []graph.FileLink) []Ranked {
	items := make([]Ranked, 0, len(links))
	for _, l := range links {
		items = append(items, Ranked{path: l.Path, module: l.Module})
	}
	return items
}

// matches applies the rule of docs/ARCHITECTURE.md §7: the path is equal and the name is the
// symbol or one of its aliases (and the receiver/class, when given); no symbol means
// the file.
func matches(it Ranked, e Expect) bool {
	if e.Module != "" {
		return it.module == e.Module
	}
	if it.path != e.Path {
		return false
	}
	if e.Symbol == "" {
		return true
	}
	if it.window != nil {
		for _, n := range append([]string{e.Symbol}, e.Aliases...) {
			if it.window[n] {
				return true
			}
		}
		return false
	}
	if owner := e.Receiver + e.Class; owner != "" && !strings.EqualFold(strings.TrimLeft(it.receiver, "*"), owner) {
		return false
	}
	names := append([]string{e.Symbol}, e.Aliases...)
	for _, n := range names {
		if it.name == n {
			return true
		}
		for _, a := range it.aliases {
			if a == n {
				return true
			}
		}
	}
	return false
}

type queryMetrics struct {
	scored                                   bool
	hit1, hit5, recall5, recall10, mrr, ndcg float64
	firstRank                                int
}

func score(items []Ranked, expect []Expect) queryMetrics {
	if len(expect) == 0 {
		return queryMetrics{} // latency only
	}
	m := queryMetrics{scored: true}
	if len(items) > 10 {
		items = items[:10]
	}
	found := make([]bool, len(expect))
	dcg := 0.0
	for i, it := range items {
		rel := false
		for j, e := range expect {
			if matches(it, e) {
				if m.firstRank == 0 {
					m.firstRank = i + 1
				}
				if !found[j] {
					found[j] = true
					rel = true
				}
			}
		}
		if rel {
			dcg += 1 / math.Log2(float64(i+2))
		}
		if i == 4 {
			m.recall5 = fraction(found)
		}
	}
	if len(items) < 5 {
		m.recall5 = fraction(found)
	}
	m.recall10 = fraction(found)
	if m.firstRank == 1 {
		m.hit1 = 1
	}
	if m.firstRank >= 1 && m.firstRank <= 5 {
		m.hit5 = 1
	}
	if m.firstRank > 0 {
		m.mrr = 1 / float64(m.firstRank)
	}
	idcg := 0.0
	for i := 0; i < min(len(expect), 10); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	m.ndcg = dcg / idcg
	return m
}

func fraction(found []bool) float64 {
	n := 0
	for _, f := range found {
		if f {
			n++
		}
	}
	return float64(n) / float64(len(found))
}

func aggregate(ms []queryMetrics) Metrics {
	var out Metrics
	out.N = len(ms)
	if len(ms) == 0 {
		return out
	}
	for _, m := range ms {
		out.Hit1 += m.hit1
		out.Hit5 += m.hit5
		out.Recall5 += m.recall5
		out.Recall10 += m.recall10
		out.MRR10 += m.mrr
		out.NDCG10 += m.ndcg
	}
	n := float64(len(ms))
	round := func(x float64) float64 { return math.Round(x/n*1000) / 1000 }
	out.Hit1, out.Hit5, out.Recall5 = round(out.Hit1), round(out.Hit5), round(out.Recall5)
	out.Recall10, out.MRR10, out.NDCG10 = round(out.Recall10), round(out.MRR10), round(out.NDCG10)
	return out
}

func percentile(durs []time.Duration, p float64) float64 {
	s := append([]time.Duration{}, durs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	idx := int(math.Ceil(p*float64(len(s)))) - 1
	idx = min(max(idx, 0), len(s)-1)
	return math.Round(float64(s[idx].Microseconds())/10) / 100
}
