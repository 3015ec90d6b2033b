package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// Embedder is the one embedding contract (engine/embed).
type Embedder = embed.Embedder

// ErrEmptyQuery is returned for a query with nothing searchable in it.
var ErrEmptyQuery = errors.New("empty query: type a name or a question")

// Searcher answers queries over one repository.
type Searcher struct {
	db     *pg.DB
	repoID int64
	emb    Embedder // nil: no dense channel; set by loadEmb when built lazily

	loadEmb func() (Embedder, error) // NewLazy's loader, run once by the dense channel
	embOnce sync.Once
	embErr  error

	mu      sync.Mutex
	stats   pg.RepoStats // cached for a minute (repoStats)
	statsAt time.Time
	// indexedRows is the model's HNSW index size (denseExact), read at indexedAt.
	indexedRows float64
	indexedAt   time.Time
	// table replaces the built-in translation table (tests).
	table *translationTable
}

// New returns a searcher over the repository repoID. emb may be nil.
func New(db *pg.DB, repoID int64, emb Embedder) *Searcher {
	return &Searcher{db: db, repoID: repoID, emb: emb}
}

// NewLazy is New with the embedder still loading: load is called (once) by the
// dense channel, so the other channels run while it loads. A one-shot search
// process spent ~25 ms waiting for the GloVe data before it sent any query.
func NewLazy(db *pg.DB, repoID int64, load func() (Embedder, error)) *Searcher {
	return &Searcher{db: db, repoID: repoID, loadEmb: load}
}

// embedder resolves the query embedder (nil: none configured).
func (s *Searcher) embedder() (Embedder, error) {
	s.embOnce.Do(func() {
		if s.loadEmb != nil {
			s.emb, s.embErr = s.loadEmb()
		}
	})
	return s.emb, s.embErr
}

// DetectKind is the kind a query would be searched as (its filters left out):
// what a UI shows the weights of before the search runs.
func DetectKind(query string) QueryKind {
	if text, _, err := ParseFilters(query); err == nil {
		query = text
	}
	return analyze(query, "").kind
}

// DefaultK is the RRF constant a search uses when Options.K is 0.
const DefaultK = defaultK

// DefaultWeights are the RRF weights per query kind (docs/ARCHITECTURE.md §6): an identifier
// leans on the symbol, literal and lexical channels (a dense channel at equal weight
// lowers identifier MRR); a question leans on lexical and literal, with the dense
// channel below them. Chosen on the tuning half of the real-code dev set
// (testdata/eval/real, README "Evaluation"): with the trained code model, questions'
// hit@5 was 0.54 at dense 0.25, 0.56 at 0.4, 0.51 at 0.6, 0.46 at 0.8 (lexical alone
// 0.46); with GloVe word vectors 0.4 and 0.25 were within one question.
func DefaultWeights(kind QueryKind) map[Channel]float64 {
	if kind == Identifier {
		return map[Channel]float64{Symbol: 1.0, Lexical: 0.8, Literal: 1.0, Dense: 0.25, Graph: 0.2}
	}
	return map[Channel]float64{Dense: 0.4, Lexical: 1.0, Literal: 1.0, Symbol: 0.6, Graph: 0.15}
}

const (
	// defaultK is the RRF constant: small, so that the gap between a channel's
	// first and eighth result (1/21 - 1/28 = 0.012) outweighs one weak channel's
	// vote (graph at rank 4: 0.15/24 = 0.006); at 60 it did not (docs/ARCHITECTURE.md §6).
	defaultK          = 20
	defaultLimit      = 20
	defaultEfSearch   = 100
	defaultTestFactor = 0.5
	// exactBoost puts exact name matches of an identifier query first: it exceeds
	// any sum of RRF contributions (at most sum(w)/(k+1) < 0.05).
	exactBoost = 1.0
	// exactTierSpread scales the gaps between exact name tiers (0.95, 0.98, 1.0)
	// to at least 0.2, above the largest RRF sum (sum of weights / (k+1) ~ 0.155).
	exactTierSpread = 10.0
	// exactScore is the symbol channel's lowest score for an exact (case-insensitive) name.
	exactScore = 0.9
	// literalBoost lifts the few definitions holding a query's phrase verbatim
	// above fuzzy matches (but below an exact name, for an identifier query).
	literalBoost = 0.5
	// literalStrongScore is the lowest literal score that earns the boost: a
	// quoted span, three words or more, or a code-shaped key, found with or
	// without its case. One or two plain words ("refund window") found in a
	// string say less than the definition named by them, and only vote.
	literalStrongScore = 0.9
	// exactCaseScore is the symbol channel's lowest score for a name matching in
	// case too; case-insensitive name matches lose caseMissPenalty of their boost
	// and case-insensitive literals literalCasePenalty, so the order of evidence is:
	// exact name, exact-case phrase, name but for case, phrase but for case.
	exactCaseScore     = 0.95
	caseMissPenalty    = 0.5
	literalCasePenalty = 0.15
	// mentionScore is the symbol channel's lowest score for a place a traceback
	// frame or a path:line names (mentionHits); mentionBoost lifts such places.
	mentionScore = 0.93
	mentionBoost = 0.6
	// keyScore is the symbol channel's score for a key or class attribute
	// defined in a constant (keys.go); keyBoost lifts it above a phrase found
	// verbatim with every other channel's votes (the key is defined there, not
	// just used; a field has no postings or vector to vote with) and below a
	// definition of the name itself.
	keyScore = 0.92
	keyBoost = 0.75
	// graphAnchors is how many fused results seed the graph channel.
	graphAnchors = 3
	// jaccardDuplicate is the token Jaccard at or above which a result is a near-duplicate.
	jaccardDuplicate = 0.88
	// CharsPerToken estimates tokens for budget packing: a budget of n tokens
	// is n × CharsPerToken characters.
	CharsPerToken = 3.6
)

// Search runs the query through the enabled channels and fuses them.
func (s *Searcher) Search(ctx context.Context, query string, opts Options) (*Response, error) {
	start := time.Now()
	text, typed, err := ParseFilters(query)
	if err != nil {
		return nil, err
	}
	filter, err := opts.Filter.merge(typed)
	if err != nil {
		return nil, err
	}
	p := analyze(text, opts.Kind)
	p.filter = filter.rows()
	p.evidence = &queryEvidence{}
	table := s.table
	if table == nil {
		table = translations()
	}
	if expandOn(p, opts) {
		p.expand = table.expansions(p.words)
	}
	if len(p.words) == 0 && len(p.identifiers) == 0 && len(p.literals) == 0 {
		if !filter.Empty() {
			return nil, fmt.Errorf("%w: the filters %s need words to search for", ErrEmptyQuery, filter)
		}
		return nil, ErrEmptyQuery
	}
	k := opts.K
	if k <= 0 {
		k = defaultK
	}
	enabled, weights := channelSettings(p.kind, opts)
	resp := &Response{Query: p.text, Kind: p.kind, K: k, Weights: weights,
		Unavailable: map[Channel]string{}, Timings: map[Channel]time.Duration{}}
	if !filter.Empty() {
		resp.Filter = &filter
	}
	if p.cut {
		resp.Notes = append(resp.Notes, fmt.Sprintf("the query was cut to its first %d KiB", MaxQueryBytes>>10))
	}
	// The graph channel alone still needs anchors: find them with the cheap exact
	// channels, which then take no part in the fusion.
	anchorOnly := enabled[Graph] && opts.Anchor == "" && !enabled[Symbol] && !enabled[Lexical] && !enabled[Dense] && !enabled[Literal]
	lists, err := s.runChannels(ctx, p, opts, enabled, anchorOnly, resp)
	if err != nil {
		return nil, err
	}
	if enabled[Graph] {
		if err := s.runGraph(ctx, p, opts, lists, weights, k, anchorOnly, resp); err != nil {
			return nil, err
		}
	}
	if len(resp.Unavailable) > 0 && !anyAnswered(lists, resp.Unavailable) {
		return nil, fmt.Errorf("search: no channel could answer (%s)", describeUnavailable(resp.Unavailable))
	}
	if len(p.evidence.expandedTerms) > 0 {
		resp.Expanded, resp.Translation = p.evidence.expandedTerms, table.name
	}
	cands := fuse(lists, weights, k, p.kind)
	for i := range cands {
		if _, ok := cands[i].channels[Lexical]; ok {
			cands[i].expanded = p.evidence.expanded[cands[i].id]
		}
	}
	resp.Fusion = s.fuseLearned(cands, lists, p, opts, weights)
	if opts.Granularity == Files {
		err = s.rankFileResults(ctx, cands, opts, resp, start)
	} else {
		err = s.rerank(ctx, cands, opts, resp, start)
	}
	if err != nil {
		return nil, err
	}
	resp.Took = time.Since(start)
	return resp, nil
}

// channelSettings returns the enabled channels and the fusion weights: the
// query kind's defaults, overridden by opts, limited to the enabled channels.
func channelSettings(kind QueryKind, opts Options) (map[Channel]bool, map[Channel]float64) {
	weights := DefaultWeights(kind)
	for c, w := range opts.Weights {
		weights[c] = w
	}
	enabled := map[Channel]bool{}
	chans := opts.Channels
	if len(chans) == 0 {
		chans = AllChannels
	}
	for _, c := range chans {
		enabled[c] = true
	}
	for c := range weights {
		if !enabled[c] {
			delete(weights, c)
		}
	}
	return enabled, weights
}

// runChannels runs the enabled first-stage channels (all but graph)
// concurrently. A channel that fails is listed in resp.Unavailable; only a
// cancelled context fails the search.
func (s *Searcher) runChannels(ctx context.Context, p plan, opts Options, enabled map[Channel]bool, anchorOnly bool, resp *Response) (map[Channel][]hit, error) {
	lists := map[Channel][]hit{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var hardErr error
	run := func(c Channel, f func() ([]hit, error)) {
		if !enabled[c] && !(anchorOnly && (c == Symbol || c == Lexical || c == Literal)) {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.Now()
			hits, err := f()
			mu.Lock()
			defer mu.Unlock()
			resp.Timings[c] = time.Since(t)
			if err != nil {
				if ctx.Err() != nil {
					hardErr = ctx.Err()
				}
				resp.Unavailable[c] = err.Error()
				return
			}
			lists[c] = hits
		}()
	}
	run(Symbol, func() ([]hit, error) {
		named, err := s.symbolChannel(ctx, p)
		if err != nil || len(p.mentions) == 0 {
			return named, err
		}
		placed, err := s.mentionHits(ctx, p.mentions)
		if err == nil {
			placed, err = s.keepFiltered(ctx, p.filter, placed)
		}
		if err != nil {
			return nil, err
		}
		return mergeHits(placed, named), nil
	})
	run(Literal, func() ([]hit, error) { return s.literalChannel(ctx, p) })
	run(Lexical, func() ([]hit, error) {
		switch scorer := cmp.Or(opts.Lexical, DefaultLexical); scorer {
		case "bm25":
			return s.bm25Channel(ctx, p)
		case "cd":
			return nil, fmt.Errorf("the cover-density lexical scorer (cd) is gone since migration 0018: the BM25 postings are the one lexical structure; use bm25 (the default)")
		}
		return nil, fmt.Errorf("unknown lexical scorer %q (bm25)", opts.Lexical)
	})
	run(Dense, func() ([]hit, error) {
		if err := s.denseUsable(ctx); err != nil {
			return nil, err
		}
		ef := opts.EfSearch
		if ef <= 0 {
			ef = defaultEfSearch
		}
		return s.denseChannel(ctx, p, ef)
	})
	wg.Wait()
	return lists, hardErr
}

// runGraph adds the graph channel: the neighbours of a named anchor or of the
// best fused results so far.
func (s *Searcher) runGraph(ctx context.Context, p plan, opts Options, lists map[Channel][]hit, weights map[Channel]float64,
	k float64, anchorOnly bool, resp *Response) error {
	t := time.Now()
	anchorWeights := weights
	if anchorOnly {
		anchorWeights = DefaultWeights(p.kind)
	}
	anchors, err := s.anchors(ctx, opts.Anchor, lists, anchorWeights, k)
	if anchorOnly {
		delete(lists, Symbol)
		delete(lists, Lexical)
		delete(lists, Literal)
	}
	if err == nil {
		lists[Graph], err = s.graphChannel(ctx, anchors, p.filter)
	}
	resp.Timings[Graph] = time.Since(t)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		resp.Unavailable[Graph] = err.Error()
	}
	return nil
}

// anyAnswered reports whether some channel that did not fail found something.
// With the database down the channels that need it fail and the rest (graph
// seeded by them, symbol with no identifiers) return empty lists without error:
// an empty answer then would read as "nothing matches".
func anyAnswered(lists map[Channel][]hit, unavailable map[Channel]string) bool {
	for c, hits := range lists {
		if _, down := unavailable[c]; !down && len(hits) > 0 {
			return true
		}
	}
	return false
}

// describeUnavailable lists the failed channels in a stable order.
func describeUnavailable(u map[Channel]string) string {
	parts := make([]string, 0, len(u))
	for _, c := range AllChannels {
		if why, ok := u[c]; ok {
			parts = append(parts, string(c)+": "+why)
		}
	}
	return strings.Join(parts, "; ")
}

// rankFileResults ranks definitions deep enough to see several per file, with
// no budget (a budget applies to code, and a file list has none), then groups
// them by file.
func (s *Searcher) rankFileResults(ctx context.Context, cands []candidate, opts Options, resp *Response, start time.Time) error {
	fileLimit := opts.Limit
	if fileLimit <= 0 {
		fileLimit = defaultLimit
	}
	symOpts := opts
	symOpts.Limit, symOpts.Budget = fileLimit*filesPool, 0
	if err := s.rerank(ctx, cands, symOpts, resp, start); err != nil {
		return err
	}
	resp.Files = rankFiles(resp.Results, fileLimit)
	return s.fillContent(ctx, resp.Files)
}

// denseUsable checks that the query embedder is the model the index was built
// with (read with the statistics, so a re-embed is seen within a minute). The
// rest of the dense channel may use s.emb once it has passed.
func (s *Searcher) denseUsable(ctx context.Context) error {
	if emb, err := s.embedder(); err != nil {
		return fmt.Errorf("query embedder: %w", err)
	} else if emb == nil {
		return errors.New("no embedder configured")
	}
	st, err := s.repoStats(ctx)
	if err != nil {
		return err
	}
	if st.Model != "" && st.Model != s.emb.Name() {
		return fmt.Errorf("the index was embedded with %s but the query embedder is %s: re-index, or pick that embedder", st.Model, s.emb.Name())
	}
	return nil
}

// chunkCount is the repository's chunk count, for term statistics and the
// choice of dense scan.
func (s *Searcher) chunkCount(ctx context.Context) (int, error) {
	st, err := s.repoStats(ctx)
	return st.Chunks, err
}

// repoStats returns the repository's statistics (stored by its index runs),
// read once a minute.
func (s *Searcher) repoStats(ctx context.Context) (pg.RepoStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.statsAt.IsZero() && time.Since(s.statsAt) < time.Minute {
		return s.stats, nil
	}
	st, err := s.db.ReadRepoStats(ctx, s.repoID)
	if err != nil {
		return pg.RepoStats{}, err
	}
	if st.AvgLength <= 0 {
		st.AvgLength = 1
	}
	s.stats, s.statsAt = st, time.Now()
	return st, nil
}

// denseExactMax is the most chunks a repository may have for the dense channel
// to compare the query with each of its vectors instead of walking the HNSW
// index: ~2 us a vector, 10 ms at 4.4k under load. The index is shared by every
// repository embedded with the model, and for a repository holding a small
// part of it the walk visits mostly other repositories' vectors before it has
// enough of this one's (136 ms for hono's 4.4k of 176k vectors; 52 ms against
// 30 ms exact for prometheus's 17k). A repository past it has an HNSW index of
// its own (pg.BuildRepoVectorIndex), which the planner prefers to the shared one.
const denseExactMax = pg.RepoVectorIndexMin

// denseExact reports whether the dense channel should scan the repository's
// vectors exactly: it is small, and less than half of the model's index.
func (s *Searcher) denseExact(ctx context.Context) (bool, error) {
	chunks, err := s.chunkCount(ctx)
	if err != nil || chunks > denseExactMax {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.indexedAt) > time.Minute || s.indexedAt.IsZero() {
		// The planner's row count of the model's partial index: what a walk of
		// it has to step over.
		err := s.db.Pool.QueryRow(ctx, `SELECT coalesce(max(c.reltuples), 0) FROM pg_class c WHERE c.relname = $1`,
			"symbol_embeddings_"+pg.ModelIndexName(s.emb.Name())).Scan(&s.indexedRows)
		if err != nil {
			return false, fmt.Errorf("size of the vector index: %w", err)
		}
		s.indexedAt = time.Now()
	}
	return float64(chunks) < 0.5*s.indexedRows, nil
}

// anchors seeds the graph channel: a named symbol, else the best fused results of
// the other channels.
func (s *Searcher) anchors(ctx context.Context, named string, lists map[Channel][]hit, weights map[Channel]float64, k float64) ([]int64, error) {
	if named != "" {
		syms, err := symbols.Find(ctx, s.db, s.repoID, named, "")
		if err != nil {
			return nil, err
		}
		ids := make([]int64, 0, len(syms))
		for _, sym := range syms {
			ids = append(ids, sym.ID)
		}
		return ids, nil
	}
	fused := fuse(lists, weights, k, "")
	var ids []int64
	for _, c := range fused {
		if len(ids) == graphAnchors {
			break
		}
		ids = append(ids, c.id)
	}
	return ids, nil
}

// candidate is a fused result before re-ranking.
type candidate struct {
	id       int64
	channels map[Channel]ChannelScore
	fused    float64
	boost    float64
	learned  *Learned    // the ranker's terms, when it fused (or Options.Features)
	expanded []Expansion // the learned expansions it matched (lexical channel)
}

// fuse combines ranked lists by Reciprocal Rank Fusion: sum over channels of
// weight / (k + rank). For identifier queries exact name matches are boosted above
// everything else, so an exact hit is never outranked by a fuzzy one.
func fuse(lists map[Channel][]hit, weights map[Channel]float64, k float64, kind QueryKind) []candidate {
	byID := map[int64]*candidate{}
	var order []*candidate
	for _, c := range AllChannels {
		w, ok := weights[c]
		if !ok {
			continue
		}
		atLeast := scoreTiers(lists[c])
		for i, h := range lists[c] {
			cand := byID[h.id]
			if cand == nil {
				cand = &candidate{id: h.id, channels: map[Channel]ChannelScore{}}
				byID[h.id] = cand
				order = append(order, cand)
			}
			contrib := w / (k + float64(i+1))
			cand.channels[c] = ChannelScore{Rank: i + 1, Score: h.score, Contribution: contrib}
			cand.fused += contrib
			if c == Symbol && kind == Identifier && h.score >= exactScore {
				cand.boost = max(cand.boost, nameBoost(h.score))
			}
			if c == Symbol && kind == Identifier && h.score == keyScore {
				cand.boost = max(cand.boost, keyBoost)
			}
			if c == Symbol && h.score >= mentionScore {
				cand.boost = max(cand.boost, mentionBoost*h.score)
			}
			if c == Literal && atLeast[i] <= literalSelective && h.score >= literalStrongScore {
				b := literalBoost * h.score
				if h.score < 1 {
					b -= literalCasePenalty
				}
				cand.boost = max(cand.boost, b)
			}
		}
	}
	out := make([]candidate, len(order))
	for i, c := range order {
		out[i] = *c
	}
	sortCandidates(out)
	return out
}

// sortCandidates orders candidates by fused score plus boost, ties by id.
func sortCandidates(cands []candidate) {
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i].fused+cands[i].boost, cands[j].fused+cands[j].boost
		if a != b {
			return a > b
		}
		return cands[i].id < cands[j].id
	})
}

// nameBoost is the boost of an exact name match of an identifier query by its
// symbol score. The tiers (qualified name, Type.name or a dotted suffix, the name
// in case, the name but for case) are strictly ordered: each gap exceeds any sum
// of RRF contributions, so "Session.merge" ranks Session.merge above
// AsyncSession.merge however much more the other channels agree on the latter.
// A name equal but for case (PAGER, pager) says less than the exact text found
// in the code and ranks below a literal phrase in case.
func nameBoost(score float64) float64 {
	if score < exactCaseScore {
		return max(exactBoost*score-caseMissPenalty, 0)
	}
	return exactBoost + (score-exactCaseScore)*exactTierSpread
}

// scoreTiers returns, for each hit of a list sorted by score, how many hits
// score at least as much: how selective the evidence at its level is.
func scoreTiers(hits []hit) []int {
	out := make([]int, len(hits))
	for i := len(hits) - 1; i >= 0; i-- {
		if i == len(hits)-1 || hits[i].score != hits[i+1].score {
			out[i] = i + 1
		} else {
			out[i] = out[i+1]
		}
	}
	return out
}
