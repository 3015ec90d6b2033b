package eval

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/source"
)

// HistoryKeySuffix is appended to a repository's root to form the key its history
// index is stored under, so the user's own index is never replaced.
const HistoryKeySuffix = "#eval-history"

// HistoryOptions configure RunHistory. The zero value is the default benchmark.
type HistoryOptions struct {
	Commits  int    // queries wanted, newest qualifying commits; 0 = 150
	Since    string // only commits after this revision; "" = the whole history
	MaxFiles int    // a commit may change at most this many files; 0 = 5
	Baseline string // "" or "bm25": also score a plain BM25 over whole files
	PerQuery bool   // keep each query's outcome in the report
	// Fusion is passed to every hybrid search (search.Options.Fusion).
	Fusion string
	// Features, when set, receives the ranker's training lines (features.go).
	Features io.Writer
	// Progress, when set, receives a snapshot at each phase of each commit and
	// while a commit's parent is being indexed.
	Progress func(HistoryProgress)
}

// HistoryProgress is where a history run is.
type HistoryProgress struct {
	Step, Total int    // 1-based commit being processed, of Total
	Phase       string // "selecting", "indexing", "querying"
	Commit      string
	Index       *index.Progress // during "indexing": the indexer's own progress
	Elapsed     time.Duration
	ETA         time.Duration // 0 = unknown
}

// HistoryMetrics is one configuration's row. A query is a hit at k when all
// min(k, |gold|) gold items are in the top k (the strict rule of the
// localisation literature). Function metrics count only queries with a gold
// definition (FunctionN of them) and are nil for a configuration that ranks files only.
type HistoryMetrics struct {
	Config     string   `json:"config"`
	N          int      `json:"n"`
	File1      float64  `json:"file@1"`
	File3      float64  `json:"file@3"`
	File5      float64  `json:"file@5"`
	File10     float64  `json:"file@10"`
	FunctionN  int      `json:"function_n"`
	Function5  *float64 `json:"function@5"`
	Function10 *float64 `json:"function@10"`
	MRR        float64  `json:"mrr"` // of the first gold file, over the top 10
	P50MS      float64  `json:"p50_ms"`
	P95MS      float64  `json:"p95_ms"`
}

// HistoryOutcome is one query: its commit, gold and where each config ranked the
// first gold file (0 = not in the top 10).
type HistoryOutcome struct {
	ID              string         `json:"id"`
	Query           string         `json:"query"` // the first 80 characters
	GoldFiles       []string       `json:"gold_files"`
	GoldDefinitions []string       `json:"gold_definitions,omitempty"` // path:qualified_name
	Ranks           map[string]int `json:"ranks"`
	// Top is each config's first files, so a miss shows what ranked instead.
	Top map[string][]string `json:"top"`
}

// HistoryReport is a whole history benchmark.
type HistoryReport struct {
	Repository        string           `json:"repository"`
	CommitsConsidered int              `json:"commits_considered"`
	Queries           int              `json:"queries"`
	Skipped           map[string]int   `json:"skipped"`
	Results           []HistoryMetrics `json:"results"`
	PerQuery          []HistoryOutcome `json:"per_query,omitempty"`
}

// HistoryConfigs are the configurations every history run scores, in report order.
var HistoryConfigs = []string{"hybrid", "lexical", "dense"}

// HybridRRFConfig is hybrid fused by RRF, scored beside hybrid when hybrid
// uses the learned ranker, so the two are compared on the same index.
const HybridRRFConfig = "hybrid-rrf"

// BM25FilesConfig names the plain file-level BM25 baseline.
const BM25FilesConfig = "bm25-files"

// NoQualifyingError says that no commit made a query, and why.
type NoQualifyingError struct {
	Considered int
	Skipped    map[string]int
}

func (e *NoQualifyingError) Error() string {
	return fmt.Sprintf("no qualifying commits: looked at %d (%s); try --since with an older revision or a larger --max-files",
		e.Considered, skipSummary(e.Skipped))
}

// skipSummary lists skip counts, largest first: "12 merge, 3 too-many-files".
func skipSummary(skipped map[string]int) string {
	if len(skipped) == 0 {
		return "none skipped"
	}
	keys := make([]string, 0, len(skipped))
	for k := range skipped {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if skipped[keys[i]] != skipped[keys[j]] {
			return skipped[keys[i]] > skipped[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", skipped[k], k)
	}
	return strings.Join(parts, ", ")
}

// defKey identifies a definition across revisions: path and qualified name.
type defKey struct{ path, name string }

// historyRun is the state of one RunHistory call.
type historyRun struct {
	db      *pg.DB
	emb     Embedder
	root    string
	opts    HistoryOptions
	configs []string
	bm25    *bm25Files
	blobs   *source.BlobReader
	start   time.Time
	stepDur []time.Duration
}

// RunHistory turns the repository's own history into localisation queries: each
// qualifying commit's message is a query, the files and definitions it changed are
// the answers, and the index is built at the commit's parent (under root +
// HistoryKeySuffix, commits oldest first so each step is incremental).
func RunHistory(ctx context.Context, db *pg.DB, emb Embedder, root string, opts HistoryOptions) (*HistoryReport, error) {
	if opts.Commits <= 0 {
		opts.Commits = 150
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = 5
	}
	if opts.Baseline != "" && opts.Baseline != "bm25" {
		return nil, fmt.Errorf("unknown baseline %q (bm25)", opts.Baseline)
	}
	repo, err := source.Open(ctx, root)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	if !repo.IsGit {
		return nil, fmt.Errorf("%s: %w", repo.Root, errNotGit)
	}
	if repo.Head == "" {
		return nil, fmt.Errorf("%s has no commits yet: nothing to evaluate", repo.Root)
	}
	since := ""
	if opts.Since != "" {
		if since, err = resolveSince(ctx, repo.Root, opts.Since); err != nil {
			return nil, err
		}
	}
	r := &historyRun{db: db, emb: emb, root: repo.Root, opts: opts, start: time.Now(),
		configs: append([]string{}, HistoryConfigs...)}
	if opts.Fusion == search.FusionLearned || opts.Fusion == "" && search.DefaultFusion() == search.FusionLearned {
		r.configs = append(r.configs, HybridRRFConfig)
	}
	r.report(HistoryProgress{Phase: "selecting"})
	commits, considered, skipped, err := selectCommits(ctx, repo, since, opts.Commits, opts.MaxFiles)
	if err != nil {
		return nil, err
	}
	if len(commits) == 0 {
		return nil, &NoQualifyingError{Considered: considered, Skipped: skipped}
	}
	if opts.Baseline == "bm25" {
		r.configs = append(r.configs, BM25FilesConfig)
		r.bm25 = newBM25Files()
		r.blobs = repo.NewBlobReader()
		defer r.blobs.Close()
	}
	rep := &HistoryReport{Repository: repo.Root, CommitsConsidered: considered, Skipped: skipped}
	var samples []querySample
	for i, c := range commits {
		s, reason, err := r.step(ctx, i, len(commits), c)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted at commit %d of %d: %w", i+1, len(commits), ctx.Err())
			}
			return nil, err
		}
		if reason != "" {
			rep.Skipped[reason]++
			continue
		}
		samples = append(samples, s)
	}
	rep.Queries = len(samples)
	if len(samples) == 0 {
		return nil, &NoQualifyingError{Considered: considered, Skipped: rep.Skipped}
	}
	for _, cfg := range r.configs {
		rep.Results = append(rep.Results, aggregateHistory(cfg, samples))
	}
	if opts.PerQuery {
		for _, s := range samples {
			rep.PerQuery = append(rep.PerQuery, s.outcome(r.configs))
		}
	}
	return rep, nil
}

func (r *historyRun) report(p HistoryProgress) {
	if r.opts.Progress == nil {
		return
	}
	p.Elapsed = time.Since(r.start)
	// The first step indexes the whole repository; later ones are incremental, so
	// they alone predict the rest once there are any.
	if d := r.stepDur; len(d) > 0 && p.Total > 0 {
		recent := d
		if len(d) > 1 {
			recent = d[1:]
		}
		var sum time.Duration
		for _, x := range recent {
			sum += x
		}
		p.ETA = sum / time.Duration(len(recent)) * time.Duration(p.Total-len(d))
	}
	r.opts.Progress(p)
}

// querySample is one query's outcome under every configuration.
type querySample struct {
	commit historyCommit
	gold   []string
	defs   []defKey
	scores map[string]historyScore
}

// step indexes one commit's parent and scores its query under every config.
func (r *historyRun) step(ctx context.Context, i, total int, c historyCommit) (querySample, string, error) {
	t0 := time.Now()
	defer func() { r.stepDur = append(r.stepDur, time.Since(t0)) }()
	base := HistoryProgress{Step: i + 1, Total: total, Commit: c.SHA}
	p := base
	p.Phase = "indexing"
	r.report(p)
	opts := index.Options{Revision: c.Parent, StoreAs: r.root + HistoryKeySuffix}
	if r.opts.Progress != nil {
		opts.ProgressEvery = 200 * time.Millisecond
		opts.Progress = func(ip index.Progress) {
			p := base
			p.Phase, p.Index = "indexing", &ip
			r.report(p)
		}
	}
	sum, err := index.New(r.db, r.emb).Index(ctx, r.root, opts)
	if err != nil {
		return querySample{}, "", fmt.Errorf("index parent of %s: %w", shortSHA(c.SHA), err)
	}
	gold, err := indexedPaths(ctx, r.db, sum.RepositoryID, c.Gold)
	if err != nil {
		return querySample{}, "", err
	}
	if len(gold) == 0 {
		return querySample{}, SkipNotIndexed, nil
	}
	defs, err := goldDefinitions(ctx, r.db, sum.RepositoryID, r.root, c, gold)
	if err != nil {
		return querySample{}, "", err
	}
	if r.bm25 != nil {
		if err := r.bm25.sync(ctx, r.db, sum.RepositoryID, r.blobs); err != nil {
			return querySample{}, "", err
		}
	}
	p = base
	p.Phase = "querying"
	r.report(p)
	s := querySample{commit: c, gold: gold, defs: defs, scores: map[string]historyScore{}}
	searcher := search.New(r.db, sum.RepositoryID, r.emb) // fresh: no term statistics cached from the last parent
	for _, cfg := range r.configs {
		got, err := r.retrieve(ctx, searcher, cfg, c.Query)
		if err != nil {
			return querySample{}, "", err
		}
		s.scores[cfg] = scoreHistory(got, gold, defs)
	}
	if r.opts.Features != nil {
		if err := r.writeFeatures(ctx, searcher, c, gold, defs); err != nil {
			return querySample{}, "", err
		}
	}
	return s, "", nil
}

// retrieved is one configuration's answer to one query.
type retrieved struct {
	files   []string
	defs    []defKey
	hasDefs bool // the configuration ranks definitions (the file baseline does not)
	dur     time.Duration
}

func (r *historyRun) retrieve(ctx context.Context, s *search.Searcher, cfg, query string) (retrieved, error) {
	if cfg == BM25FilesConfig {
		t := time.Now()
		files := r.bm25.search(query, 10)
		return retrieved{files: files, dur: time.Since(t)}, nil
	}
	opts := search.Options{Granularity: search.Files, Limit: 10, Fusion: r.opts.Fusion}
	if cfg == HybridRRFConfig {
		opts.Fusion, cfg = search.FusionRRF, "hybrid"
	}
	if cfg != "hybrid" {
		opts.Channels = []search.Channel{search.Channel(cfg)}
	}
	t := time.Now()
	resp, err := s.Search(ctx, query, opts)
	out := retrieved{hasDefs: true, dur: time.Since(t)}
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, nil // a channel that cannot answer scores zero, as a user would see it
	}
	if _, down := resp.Unavailable[search.Channel(cfg)]; down && cfg != "hybrid" {
		return out, nil
	}
	for _, f := range resp.Files {
		out.files = append(out.files, f.Path)
	}
	seen := map[defKey]bool{}
	for _, res := range resp.Results {
		k := defKey{res.Path, res.QualifiedName}
		if !seen[k] {
			seen[k] = true
			out.defs = append(out.defs, k)
		}
		if len(out.defs) == 10 {
			break
		}
	}
	return out, nil
}

// indexedPaths keeps the paths the index holds (not skipped) for repoID.
func indexedPaths(ctx context.Context, db *pg.DB, repoID int64, paths []string) ([]string, error) {
	rows, err := db.Pool.Query(ctx, `SELECT path FROM files WHERE repository_id = $1 AND path = ANY($2)
		AND status <> 'skipped' ORDER BY path`, repoID, paths)
	if err != nil {
		return nil, fmt.Errorf("look up gold files: %w", err)
	}
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return nil, fmt.Errorf("look up gold files: %w", err)
		}
		out = append(out, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up gold files: %w", err)
	}
	return out, nil
}

// goldDefinitions are the definitions of the parent index in the gold files whose
// lines overlap an old-side hunk of the commit, sorted.
func goldDefinitions(ctx context.Context, db *pg.DB, repoID int64, root string, c historyCommit, gold []string) ([]defKey, error) {
	hunks, err := oldHunks(ctx, root, c.Parent, c.SHA)
	if err != nil {
		return nil, err
	}
	rows, err := db.Pool.Query(ctx, `SELECT path, qualified_name, start_line, end_line FROM symbols
		WHERE repository_id = $1 AND path = ANY($2) AND kind NOT IN ('module', 'part', 'block', 'field')`, repoID, gold)
	if err != nil {
		return nil, fmt.Errorf("gold definitions of %s: %w", shortSHA(c.SHA), err)
	}
	defer rows.Close()
	seen := map[defKey]bool{}
	var out []defKey
	for rows.Next() {
		var k defKey
		var lo, hi int
		if err := rows.Scan(&k.path, &k.name, &lo, &hi); err != nil {
			return nil, fmt.Errorf("gold definitions of %s: %w", shortSHA(c.SHA), err)
		}
		for _, h := range hunks[k.path] {
			if lo <= h.hi && hi >= h.lo && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("gold definitions of %s: %w", shortSHA(c.SHA), err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].path != out[j].path {
			return out[i].path < out[j].path
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

// historyScore is one query under one configuration.
type historyScore struct {
	file      [4]bool // @1, @3, @5, @10
	fn        [2]bool // @5, @10
	fnScored  bool
	firstRank int // first gold file, 1-based; 0 = not in the top 10
	top       []string
	dur       time.Duration
}

var fileKs = [4]int{1, 3, 5, 10}

// historyTopFiles is how many of each config's files a per-query outcome lists.
const historyTopFiles = 3

func scoreHistory(got retrieved, gold []string, defs []defKey) historyScore {
	s := historyScore{dur: got.dur, top: got.files[:min(historyTopFiles, len(got.files))]}
	for i, k := range fileKs {
		s.file[i] = strictHit(got.files, gold, k)
	}
	for i, p := range got.files[:min(10, len(got.files))] {
		if contains(gold, p) {
			s.firstRank = i + 1
			break
		}
	}
	if got.hasDefs && len(defs) > 0 {
		s.fnScored = true
		s.fn[0] = strictHit(got.defs, defs, 5)
		s.fn[1] = strictHit(got.defs, defs, 10)
	}
	return s
}

// strictHit applies the strict rule: all min(k, |gold|) gold items are in the top k
// of ranked (whose items are distinct).
func strictHit[T comparable](ranked, gold []T, k int) bool {
	if len(gold) == 0 {
		return false
	}
	found := 0
	for _, it := range ranked[:min(k, len(ranked))] {
		if contains(gold, it) {
			found++
		}
	}
	return found >= min(k, len(gold))
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func aggregateHistory(cfg string, samples []querySample) HistoryMetrics {
	m := HistoryMetrics{Config: cfg, N: len(samples)}
	var fileHits [4]int
	var fnHits [2]int
	var mrr float64
	durs := make([]time.Duration, 0, len(samples))
	ranksDefs := false
	for _, smp := range samples {
		s := smp.scores[cfg]
		for i, hit := range s.file {
			if hit {
				fileHits[i]++
			}
		}
		if s.firstRank > 0 {
			mrr += 1 / float64(s.firstRank)
		}
		if s.fnScored {
			m.FunctionN++
			for i, hit := range s.fn {
				if hit {
					fnHits[i]++
				}
			}
		}
		ranksDefs = ranksDefs || cfg != BM25FilesConfig
		durs = append(durs, s.dur)
	}
	ratio := func(hits, n int) float64 {
		if n == 0 {
			return 0
		}
		return math.Round(float64(hits)/float64(n)*1000) / 1000
	}
	m.File1, m.File3, m.File5, m.File10 = ratio(fileHits[0], m.N), ratio(fileHits[1], m.N), ratio(fileHits[2], m.N), ratio(fileHits[3], m.N)
	m.MRR = math.Round(mrr/float64(m.N)*1000) / 1000
	if ranksDefs && m.FunctionN > 0 {
		f5, f10 := ratio(fnHits[0], m.FunctionN), ratio(fnHits[1], m.FunctionN)
		m.Function5, m.Function10 = &f5, &f10
	}
	m.P50MS, m.P95MS = percentile(durs, 0.50), percentile(durs, 0.95)
	return m
}

func (s querySample) outcome(configs []string) HistoryOutcome {
	q := s.commit.Query
	if r := []rune(q); len(r) > 80 {
		q = string(r[:80])
	}
	o := HistoryOutcome{ID: s.commit.SHA, Query: q, GoldFiles: s.gold, Ranks: map[string]int{}, Top: map[string][]string{}}
	for _, d := range s.defs {
		o.GoldDefinitions = append(o.GoldDefinitions, d.path+":"+d.name)
	}
	for _, cfg := range configs {
		o.Ranks[cfg] = s.scores[cfg].firstRank
		o.Top[cfg] = s.scores[cfg].top
	}
	return o
}
