package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/search"
	"github.com/spelunkhq/spelunk/engine/symbols"
	"github.com/spelunkhq/spelunk/tui/render"
)

const searchLong = "Search the repository with five channels (dense, lexical, literal, symbol, graph) fused by Reciprocal\n" +
	"Rank Fusion, or a question by the built-in learned ranker (--fusion). A query may be a name, a\n" +
	"question, a pasted error message, or a whole issue or stack\n" +
	"trace (frames and path:line mentions are resolved to the definitions they name). --files ranks files.\n" +
	"--explain prints each result's per-channel rank, raw score and contribution (and the ranker's terms).\n" +
	"Several --repo, or --all (every indexed repository of the tenant), search those repositories in one\n" +
	"ranking: each is searched on its own and the rankings interleaved by rank, so a large repository\n" +
	"does not drown a small one; every result names its repository.\n\n" +
	"Filters go in the query, as in other code search tools:\n" +
	"  path:engine/ or file:index/   only paths containing it (a glob with * and ?: path:*.py)\n" +
	"  -path:vendor/ or -file:x      leave those paths out\n" +
	"  lang:go  -lang:python         only, or not, that language\n" +
	"  kind:function                 only that kind of symbol (method, class, type, ...)\n" +
	"  test:no (or -test)            leave tests out; test:only for tests alone\n" +
	"  repo:flask  -repo:vendored    the indexed repositories whose name or directory holds it (or not);\n" +
	"                                without --repo, chosen among every indexed repository of the tenant\n" +
	"  path:\"my dir/\"                a value with spaces, quoted\n" +
	"Several path: filters match any of them; the rest of the query is searched as usual, inside the\n" +
	"filter (a filtered search still fills its page). --explain and --json show the filters applied."

func newSearchCmd(g *globals) *cobra.Command {
	var (
		opts     search.Options
		channels string
		files    bool
		weights  string
		explain  bool
		all      bool
		kind     string
	)
	cmd := &cobra.Command{
		Use:   "search QUERY | -",
		Short: "Hybrid search: ranked symbols with path:lines and where each score came from",
		Long:  searchLong,
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			query, err := queryArg(cmd, args[0])
			if err != nil {
				return err
			}
			_, typed, err := search.ParseFilters(query)
			if err != nil {
				return usageError{err} // before the database: a typo is the user's to fix
			}
			if channels != "" {
				for _, c := range strings.Split(channels, ",") {
					ch := search.Channel(strings.TrimSpace(c))
					if !validChannel(ch) {
						return usagef("unknown channel %q (%s)", c, channelNames())
					}
					opts.Channels = append(opts.Channels, ch)
				}
			}
			if weights != "" {
				w, err := parseWeights(weights)
				if err != nil {
					return err
				}
				opts.Weights = w
			}
			if err := oneOf("kind", kind, string(search.Identifier), string(search.Semantic)); err != nil {
				return err
			}
			opts.Kind = search.QueryKind(kind)
			if err := checkSearchOptions(opts); err != nil {
				return err
			}
			if files {
				opts.Granularity = search.Files
			}
			if all || len(g.repos) > 1 || typed.HasRepos() {
				return searchRepos(cmd, g, query, opts, searchScope{all: all, filter: typed}, explain)
			}
			return searchOne(cmd, g, query, opts, explain)
		},
	}
	f := cmd.Flags()
	f.StringVar(&channels, "channels", "", "comma-separated channels to use (default all: "+channelNames()+")")
	f.StringVar(&weights, "weights", "", "RRF weights, e.g. dense=1,lexical=0.8 (default: by query kind)")
	f.Float64Var(&opts.K, "k", 0, "RRF constant k (0 = the default, 20)")
	f.StringVar(&opts.Fusion, "fusion", "", "how a question is fused: learned (the built-in ranker) or rrf; default rrf unless the ranker is marked default (--weights or --k mean rrf)")
	f.StringVar(&opts.Expand, "expand", "", expandHelp)
	f.IntVar(&opts.Limit, "limit", 20, "number of results")
	f.IntVar(&opts.Budget, "budget", 0, "token budget: pack whole symbols under it (0 = no packing)")
	f.IntVar(&opts.EfSearch, "ef-search", 100, "HNSW ef_search for the dense channel")
	f.Float64Var(&opts.TestFactor, "test-factor", 0.5, "score multiplier for tests, examples, prose and dist/ bundles (1 = no demotion)")
	f.DurationVar(&opts.HalfLife, "half-life", 0, "recency decay half-life on the fused top results (0 = off)")
	f.StringVar(&opts.Anchor, "anchor", "", "seed the graph channel from this symbol")
	f.StringVar(&kind, "kind", "", "force the query kind: identifier or semantic (default: detected)")
	f.StringVar(&opts.Lexical, "lexical", "", "lexical scorer: "+search.DefaultLexical+" (the default and, since migration 0018, the only one)")
	f.BoolVar(&files, "files", false, "rank files by their definitions' evidence, the best definitions listed under each")
	f.BoolVar(&explain, "explain", false, "show each result's per-channel ranks, scores and contributions")
	f.BoolVar(&all, "all", false, "search every indexed repository of the tenant (or give --repo several times)")
	return cmd
}

// searchOne searches the one repository of --repo (or the current directory)
// and prints the answer.
func searchOne(cmd *cobra.Command, g *globals, query string, opts search.Options, explain bool) error {
	ctx := cmd.Context()
	embedder := g.embed.embedderAsync() // loads while the database is reached
	db, rec, err := openRepo(cmd, g)
	if err != nil {
		return err
	}
	defer db.Close()
	return searchIn(ctx, g, db, rec, embedder, query, opts, explain)
}

// searchIn searches one repository and prints the answer.
func searchIn(ctx context.Context, g *globals, db *pg.DB, rec pg.Repository, embedder func() (embed.Embedder, string, error),
	query string, opts search.Options, explain bool) error {
	searcher := search.NewLazy(db, rec.ID, func() (search.Embedder, error) {
		emb, _, err := embedder()
		return emb, err
	})
	resp, err := searcher.Search(ctx, query, opts)
	if errors.Is(err, search.ErrEmptyQuery) || errors.Is(err, search.ErrFilter) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if _, _, err := embedder(); err != nil {
		return err // a broken embedder setting fails the command, as before
	}
	if err := markStale(ctx, db, rec, resp.Symbols()...); err != nil {
		return err
	}
	if g.json {
		return json.NewEncoder(os.Stdout).Encode(resp)
	}
	if opts.Granularity == search.Files {
		printFiles(resp, explain)
	} else {
		printSearch(resp, explain)
	}
	printStaleNote(os.Stdout, resp.Symbols())
	return nil
}

// maxStdinQuery bounds a query read from standard input; the engine cuts what
// it uses further (search.Response.Notes says so).
const maxStdinQuery = 4 << 20

// queryArg is the query: the argument, or standard input for "-" (an issue or a
// log is too long for a command line).
func queryArg(cmd *cobra.Command, arg string) (string, error) {
	if arg == "-" {
		data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxStdinQuery))
		if err != nil {
			return "", fmt.Errorf("read the query from standard input: %w", err)
		}
		arg = string(data)
	}
	if strings.TrimSpace(arg) == "" {
		return "", usagef("empty query: type a name or a question (or pass - to read it from standard input)")
	}
	return arg, nil
}

// parseWeights reads channel=weight,... (--weights).
func parseWeights(s string) (map[search.Channel]float64, error) {
	out := map[search.Channel]float64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		w, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !validChannel(search.Channel(k)) || w < 0 {
			return nil, usagef("bad --weights %q: want channel=weight,... e.g. dense=1,lexical=0.5", kv)
		}
		out[search.Channel(k)] = w
	}
	return out, nil
}

func channelNames() string {
	names := make([]string, len(search.AllChannels))
	for i, c := range search.AllChannels {
		names[i] = string(c)
	}
	return strings.Join(names, ",")
}

func validChannel(c search.Channel) bool {
	for _, a := range search.AllChannels {
		if a == c {
			return true
		}
	}
	return false
}

func printSearch(resp *search.Response, explain bool) {
	fmt.Printf("%d results for %s (%s query, k=%g) in %s\n", len(resp.Results), queryLabel(resp), resp.Kind, resp.K, resp.Took.Round(100_000))
	printHeader(resp, explain)
	for _, r := range resp.Results {
		printResult(r, explain, "", "")
	}
	if explain && len(resp.Pruned) > 0 {
		fmt.Println("pruned:")
		for _, p := range resp.Pruned {
			fmt.Printf("       %s  %s:%d  %s\n", p.Name, p.Path, p.StartLine, p.Reason)
		}
	}
}

// printFiles prints a files-granularity answer: each file with its best
// definitions indented under it.
func printFiles(resp *search.Response, explain bool) {
	fmt.Printf("%d files for %s (%s query, k=%g) in %s\n", len(resp.Files), queryLabel(resp), resp.Kind, resp.K, resp.Took.Round(100_000))
	printHeader(resp, explain)
	for _, f := range resp.Files {
		fmt.Printf("%3d  %.4f  %s\n", f.Rank, f.Score, f.Path)
		for _, r := range f.Symbols {
			printResult(r, explain, "       ", "")
		}
	}
}

// shortQuery quotes a query for a heading, long inputs cut to their start.
// queryLabel is the query searched, with the filters it was narrowed to.
func queryLabel(resp *search.Response) string {
	if resp.Filter == nil {
		return shortQuery(resp.Query)
	}
	return shortQuery(resp.Query) + " [" + resp.Filter.String() + "]"
}

func shortQuery(q string) string {
	if len(q) > 100 {
		q = strings.Join(strings.Fields(q[:100]), " ") + "…"
	}
	return fmt.Sprintf("%q", q)
}

func printHeader(resp *search.Response, explain bool) {
	for _, n := range resp.Notes {
		fmt.Printf("  note: %s\n", n)
	}
	for c, why := range resp.Unavailable {
		fmt.Printf("  channel %s unavailable: %s\n", c, why)
	}
	if explain {
		var parts []string
		for _, c := range search.AllChannels {
			if d, ok := resp.Timings[c]; ok {
				parts = append(parts, fmt.Sprintf("%s %s", c, d.Round(10_000)))
			}
		}
		fmt.Printf("  channel times: %s\n", strings.Join(parts, ", "))
		if len(resp.Expanded) > 0 {
			terms := make([]string, 0, len(resp.Expanded))
			for _, e := range resp.Expanded {
				terms = append(terms, fmt.Sprintf("%s ← %s %.2f", e.Term, e.From, e.Weight))
			}
			fmt.Printf("  learned expansion (%s): %s\n", resp.Translation, strings.Join(terms, ", "))
		}
	}
}

// printResult prints one result line (and its explain line); repo, when not
// empty, names the repository before the path.
func printResult(r search.Result, explain bool, indent, repo string) {
	mark := "  " + revMark(r.Symbol)
	if r.Truncated {
		mark += " [cut to budget]"
	}
	if repo != "" {
		repo = "[" + repo + "] "
	}
	fmt.Printf("%s%3d  %.4f  %-8s %s  %s%s:%d-%d%s\n", indent, r.Rank, r.Score, r.Kind, r.QualifiedName, repo, r.Path, r.StartLine, r.EndLine, mark)
	if !explain {
		return
	}
	var parts []string
	for _, c := range search.AllChannels {
		if cs, ok := r.Explain.Channels[c]; ok {
			parts = append(parts, fmt.Sprintf("%s #%d (%.3f) +%.4f", c, cs.Rank, cs.Score, cs.Contribution))
		}
	}
	line := indent + "       " + strings.Join(parts, "  ")
	if l := r.Explain.Learned; l != nil && l.Model != "" {
		line += fmt.Sprintf("  ranker %.2f (%s)", l.Score, topTerms(l.Terms, 3))
	}
	if r.Explain.Boost > 0 {
		line += fmt.Sprintf("  boost +%.2f", r.Explain.Boost)
	}
	if r.Explain.TestFactor != 1 {
		line += fmt.Sprintf("  demoted x%.2f", r.Explain.TestFactor)
	}
	if r.Explain.Decay != 1 {
		line += fmt.Sprintf("  decay x%.3f", r.Explain.Decay)
	}
	fmt.Println(line)
	for _, e := range r.Explain.Expanded {
		fmt.Printf("%s       %s\n", indent, e)
	}
}

// topTerms lists the n terms of a learned score that moved it most.
func topTerms(terms []search.LearnedTerm, n int) string {
	ts := slices.Clone(terms)
	slices.SortStableFunc(ts, func(a, b search.LearnedTerm) int {
		return cmp.Compare(math.Abs(b.Contribution), math.Abs(a.Contribution))
	})
	parts := make([]string, 0, n)
	for _, t := range ts[:min(n, len(ts))] {
		parts = append(parts, fmt.Sprintf("%s %+.2f", t.Feature, t.Contribution))
	}
	return strings.Join(parts, ", ")
}

func newShowCmd(g *globals) *cobra.Command {
	var path string
	var pick int
	cmd := &cobra.Command{
		Use:   "show PATH:LINE | NAME",
		Short: "Print a symbol's source (highlighted on a terminal)",
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, rec, err := openRepo(cmd, g)
			if err != nil {
				return err
			}
			defer db.Close()
			sym, err := lookupSymbol(cmd, db, rec, args[0], pickOf(path, pick))
			if err != nil {
				return err
			}
			full, err := symbols.Get(ctx, db, rec.ID, sym.ID)
			if err != nil {
				return err
			}
			if err := markStale(ctx, db, rec, &full); err != nil {
				return err
			}
			if g.json {
				return json.NewEncoder(os.Stdout).Encode(struct {
					symbols.Symbol
					Content string `json:"content"`
				}{full, full.Content})
			}
			fmt.Printf("%s %s  %s:%d-%d  %s\n", full.Kind, full.QualifiedName, full.Path, full.StartLine, full.EndLine, revMark(full))
			if full.Stale {
				fmt.Fprintf(os.Stderr, "note: %s changed on disk since indexed: this is the indexed source (spelunk index --working-tree)\n", full.Path)
			}
			if isatty.IsTerminal(os.Stdout.Fd()) && os.Getenv("NO_COLOR") == "" {
				// Dark, as before: asking the terminal for its background costs a round
				// trip to it with a timeout, more than the rest of the command.
				hl := render.NewHighlighter(termenv.NewOutput(os.Stdout).EnvColorProfile(), true)
				fmt.Println(strings.Join(hl.Lines(full.Path, full.Language, full.Content), "\n"))
				return nil
			}
			fmt.Print(full.Content)
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "pick among same-named symbols by path")
	cmd.Flags().IntVar(&pick, "pick", 0, "the Nth of several definitions of NAME (as listed when NAME is ambiguous)")
	return cmd
}
