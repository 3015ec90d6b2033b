package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

func newStatusCmd(g *globals) *cobra.Command {
	var withGraph, withSizes bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show indexed repositories: last commit, counts, skipped files by reason, staleness",
		Long: "Show indexed repositories: last commit, counts, skipped files by reason, staleness.\n\n" +
			"--graph adds, per language, how the call sites resolved: exact (by scope or type), inferred\n" +
			"(by import or a unique name), ambiguous (several candidates), unresolved (no target known)\n" +
			"and external (no target, known to leave the repository); the five add up to the calls.\n\n" +
			"--sizes adds the disk use of each table (rows and indexes; the tables are shared by every\n" +
			"repository in the database).",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			db, err := openDB(ctx, g)
			if err != nil {
				return err
			}
			defer db.Close()
			repos, err := db.Repositories(ctx)
			if err != nil {
				return err
			}
			if g.repo != "" {
				root, err := repoRoot(ctx, g)
				if err != nil {
					return err
				}
				r, err := db.RepositoryByRoot(ctx, root)
				if err != nil {
					return notIndexed(root, err)
				}
				repos = []pg.Repository{r}
			}
			if len(repos) == 0 && !g.json {
				fmt.Println("no repositories indexed yet: spelunk index [DIR]")
				return nil
			}
			for _, r := range repos {
				st, err := index.RepoStatus(ctx, db, r)
				if err != nil {
					return err
				}
				var cov []index.LangCoverage
				if withGraph {
					if cov, err = index.GraphCoverage(ctx, db, r.ID); err != nil {
						return fmt.Errorf("status of %s: %w", r.Name, err)
					}
				}
				if g.json {
					if err := json.NewEncoder(os.Stdout).Encode(statusJSON{Status: st, Graph: coverageLines(cov, withGraph)}); err != nil {
						return err
					}
					continue
				}
				printStatus(st)
				if withGraph {
					printCoverage(cov)
				}
			}
			if withSizes {
				return printSizes(cmd, db, g.json)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&withGraph, "graph", false, "also count each language's call sites by how they resolved")
	cmd.Flags().BoolVar(&withSizes, "sizes", false, "also print each table's size on disk")
	return cmd
}

// statusJSON is one repository of status --json; graph only with --graph.
type statusJSON struct {
	index.Status
	Graph []coverageLine `json:"graph,omitempty"`
}

// coverageLine is one language of status --graph --json. Unresolved excludes
// External, so the five counts add up to Calls.
type coverageLine struct {
	Language   string `json:"language"`
	Calls      int    `json:"calls"`
	Exact      int    `json:"exact"`
	Inferred   int    `json:"inferred"`
	Ambiguous  int    `json:"ambiguous"`
	Unresolved int    `json:"unresolved"`
	External   int    `json:"external"`
}

func coverageLines(cov []index.LangCoverage, want bool) []coverageLine {
	if !want {
		return nil
	}
	out := make([]coverageLine, 0, len(cov))
	for _, c := range cov {
		out = append(out, coverageLine{Language: c.Language, Calls: c.Calls, Exact: c.Exact, Inferred: c.Inferred,
			Ambiguous: c.Ambiguous, Unresolved: c.Unresolved - c.External, External: c.External})
	}
	return out
}

// printCoverage draws status --graph: one row per language, the share of exact
// call sites after the count.
func printCoverage(cov []index.LangCoverage) {
	if len(cov) == 0 {
		fmt.Println("  graph     no call sites")
		return
	}
	fmt.Printf("  graph     %-12s %7s %14s %9s %10s %11s %9s\n", "language", "calls", "exact", "inferred", "ambiguous", "unresolved", "external")
	for _, c := range coverageLines(cov, true) {
		lang := c.Language
		if lang == "" {
			lang = "(unknown)"
		}
		exact := fmt.Sprintf("%d (%.0f%%)", c.Exact, 100*float64(c.Exact)/float64(max(c.Calls, 1)))
		fmt.Printf("            %-12s %7d %14s %9d %10d %11d %9d\n", lang, c.Calls, exact, c.Inferred, c.Ambiguous, c.Unresolved, c.External)
	}
}

func printStatus(st index.Status) {
	fresh := "fresh"
	if st.Stale {
		fresh = "STALE: " + st.StaleReason
	}
	last := "never"
	if st.LastIndexedAt != nil {
		last = st.LastIndexedAt.Local().Format("2006-01-02 15:04:05")
	}
	rev := shortRev(st.LastCommit)
	if st.WorkingTree {
		rev += " + working-tree"
	}
	fmt.Printf("%s (%s)\n  revision  %s, indexed %s, %s\n  files     %d (%d partial)\n  symbols   %d (%d pending embedding, model %s)\n  edges     %d (%d resolved)\n",
		st.Name, st.Root, rev, last, fresh, st.Files, st.Partial, st.Symbols, st.PendingEmbedding, st.EmbeddingModel, st.Edges, st.ResolvedEdges)
	if len(st.Languages) > 0 {
		parts := make([]string, 0, len(st.Languages))
		for _, l := range st.Languages {
			parts = append(parts, fmt.Sprintf("%s %d", l.Language, l.Files))
		}
		fmt.Printf("  languages %s\n", strings.Join(parts, ", "))
	}
	if len(st.Skipped) > 0 {
		var parts []string
		for reason, n := range st.Skipped {
			parts = append(parts, fmt.Sprintf("%s %d", reason, n))
		}
		sort.Strings(parts)
		fmt.Printf("  skipped   %s\n", strings.Join(parts, ", "))
	}
	for _, s := range st.Secrets {
		fmt.Printf("  redacted  %d secret(s) in %s\n", s.Count, s.Path)
	}
	for _, f := range st.Unreadable {
		fmt.Printf("  unreadable %s: %s\n", f.Path, strings.Join(f.Notes, "; "))
	}
}

func notIndexed(root string, err error) error {
	if !errors.Is(err, pg.ErrNotFound) {
		return err
	}
	if _, statErr := os.Stat(filepath.Join(root, ".git")); statErr != nil {
		// Outside any repository the root is the current directory: advising to
		// index it (/tmp, $HOME) would be wrong.
		return fmt.Errorf("%s is not a git repository: run spelunk inside one, or pass --repo DIR", root)
	}
	return fmt.Errorf("%s is not indexed yet: run `spelunk index %s`", root, root)
}

func newSymbolsCmd(g *globals) *cobra.Command {
	var f symbols.Filter
	cmd := &cobra.Command{
		Use:   "symbols",
		Short: "List the symbols extracted from the repository",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := oneOf("kind", f.Kind, symbolKinds...); err != nil {
				return err
			}
			db, rec, err := openRepo(cmd, g)
			if err != nil {
				return err
			}
			defer db.Close()
			syms, err := symbols.List(ctx, db, rec.ID, f)
			if err != nil {
				return err
			}
			return printEach(cmd, g, syms, func(s symbols.Symbol) string {
				return fmt.Sprintf("%s:%d-%d\t%s\t%s", s.Path, s.StartLine, s.EndLine, s.Kind, s.QualifiedName)
			}, "")
		},
	}
	cmd.Flags().StringVar(&f.Path, "path", "", "only this file (or directory, with a trailing /)")
	cmd.Flags().StringVar(&f.Kind, "kind", "", "only this kind ("+strings.Join(symbolKinds, ", ")+")")
	cmd.Flags().StringVar(&f.Name, "name", "", "only this name or qualified name")
	return cmd
}

// openRepo opens the database and the registered repository of --repo / the current
// directory, failing with the fix when it was never indexed. Its callers are
// one-shot commands (search, show, the graph walks), hence the small pool.
func openRepo(cmd *cobra.Command, g *globals) (*pg.DB, pg.Repository, error) {
	ctx := cmd.Context()
	root, err := repoRoot(ctx, g)
	if err != nil {
		return nil, pg.Repository{}, err
	}
	db, err := openDBConns(ctx, g, oneShotConns)
	if err != nil {
		return nil, pg.Repository{}, err
	}
	rec, err := db.RepositoryByRoot(ctx, root)
	if err != nil {
		db.Close()
		return nil, rec, notIndexed(root, err)
	}
	if err := warnIncomplete(g, rec); err != nil {
		db.Close()
		return nil, rec, err
	}
	return db, rec, nil
}

// warnIncomplete gives pg.Repository.Incomplete's warning, when there is one,
// on standard error for a person and, with --json, as the first line of
// standard output, {"index_incomplete": WHY}, a document of its own before
// the command's usual output, for a script (issue 36, 5): the same key an MCP
// answer opens with.
func warnIncomplete(g *globals, rec pg.Repository) error {
	w := rec.Incomplete()
	if w == "" {
		return nil
	}
	return giveWarning(g, []string{w}, w)
}

// giveWarning writes each line on standard error and, with --json, what as
// the first line of standard output, {"index_incomplete": WHAT}.
func giveWarning(g *globals, lines []string, what string) error {
	for _, l := range lines {
		fmt.Fprintln(os.Stderr, "warning: "+l)
	}
	if !g.json {
		return nil
	}
	return json.NewEncoder(os.Stdout).Encode(struct {
		IndexIncomplete string `json:"index_incomplete"`
	}{what})
}

// printSizes prints the tables' disk use, largest first, then the database's
// and the WAL's (status --sizes); with --json one line {"table_sizes": [...],
// "database_bytes", "wal_bytes"} (wal_bytes -1 when it may not be read).
func printSizes(cmd *cobra.Command, db *pg.DB, asJSON bool) error {
	sizes, err := db.TableSizes(cmd.Context())
	if err != nil {
		return err
	}
	server, err := db.ServerSizes(cmd.Context())
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(struct {
			TableSizes []pg.TableSize `json:"table_sizes"`
			pg.ServerSizes
		}{sizes, server})
	}
	var total int64
	fmt.Println("disk use by table (all repositories):")
	for _, s := range sizes {
		total += s.Total
		fmt.Printf("  %-26s %9s  (rows %s of which TOAST %s, indexes %s)\n", s.Table, humanBytes(s.Total),
			humanBytes(s.Data), humanBytes(s.Toast), humanBytes(s.Indexes))
	}
	fmt.Printf("  %-26s %9s\n", "total", humanBytes(total))
	fmt.Printf("  %-26s %9s\n", "database (with catalogs)", humanBytes(server.Database))
	if server.WAL >= 0 {
		fmt.Printf("  %-26s %9s  (the server's, all databases)\n", "write-ahead log", humanBytes(server.WAL))
	} else {
		fmt.Printf("  %-26s %9s  (not readable: needs a superuser or pg_monitor)\n", "write-ahead log", "?")
	}
	return nil
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
