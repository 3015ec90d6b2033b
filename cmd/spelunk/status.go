package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

func newStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show indexed repositories: last commit, counts, skipped files by reason, staleness",
		Args:  noArgs,
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
				if g.json {
					if err := json.NewEncoder(os.Stdout).Encode(st); err != nil {
						return err
					}
					continue
				}
				printStatus(st)
			}
			return nil
		},
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
}

func notIndexed(root string, err error) error {
	if errors.Is(err, pg.ErrNotFound) {
		return fmt.Errorf("%s is not indexed yet: run `spelunk index %s`", root, root)
	}
	return err
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
			enc := json.NewEncoder(os.Stdout)
			for _, s := range syms {
				if g.json {
					if err := enc.Encode(s); err != nil {
						return err
					}
					continue
				}
				fmt.Printf("%s:%d-%d\t%s\t%s\n", s.Path, s.StartLine, s.EndLine, s.Kind, s.QualifiedName)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.Path, "path", "", "only this file (or directory, with a trailing /)")
	cmd.Flags().StringVar(&f.Kind, "kind", "", "only this kind ("+strings.Join(symbolKinds, ", ")+")")
	cmd.Flags().StringVar(&f.Name, "name", "", "only this name or qualified name")
	return cmd
}

// openRepo opens the database and the registered repository of --repo / the current
// directory, failing with the fix when it was never indexed.
func openRepo(cmd *cobra.Command, g *globals) (*pg.DB, pg.Repository, error) {
	ctx := cmd.Context()
	root, err := repoRoot(ctx, g)
	if err != nil {
		return nil, pg.Repository{}, err
	}
	db, err := openDB(ctx, g)
	if err != nil {
		return nil, pg.Repository{}, err
	}
	rec, err := db.RepositoryByRoot(ctx, root)
	if err != nil {
		db.Close()
		return nil, rec, notIndexed(root, err)
	}
	return db, rec, nil
}
