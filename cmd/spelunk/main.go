// Command spelunk indexes a git repository into PostgreSQL + pgvector, searches it, keeps
// agents' memory beside it and opens a terminal UI over all of it. The commands here
// parse flags and print; the work happens in engine/.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/internal/memlimit"
)

// usageError marks bad usage: exit code 2 instead of 1.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// globals are the flags every command shares.
type globals struct {
	db     string
	repo   string   // the first --repo
	repos  []string // every --repo, in order (spelunk mcp and search take several)
	tenant string
	json   bool
	embed  embedFlags
	judge  judgeFlags
	// cache is --cache (a file, "off", or "" for the default); offline serves
	// memory from the cache only.
	cache   string
	offline bool
}

func main() {
	memlimit.Apply()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

func run(ctx context.Context, args []string) int {
	stopProfile, err := startCPUProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "spelunk:", err)
		return 1
	}
	root := newRoot()
	root.SetArgs(args)
	err = root.ExecuteContext(ctx)
	stopProfile()
	if err == nil {
		return 0
	}
	// Errors are built to carry no password; masking here too costs nothing.
	fmt.Fprintln(os.Stderr, "spelunk:", pg.RedactText(err.Error()))
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
		return 2
	}
	return 1
}

func newRoot() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "spelunk",
		Short:         "Explore a codebase and its agents' memory",
		Long:          "spelunk indexes a git repository into PostgreSQL + pgvector (symbols, a code graph, embeddings),\nsearches it with hybrid retrieval that explains every score, and keeps coding agents' memories.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&g.db, "db", "", "PostgreSQL URL (default $SPELUNK_DATABASE_URL, else the embedded cluster)")
	pf.Var(repoFlag{g}, "repo", "repository directory (default: the git top level of the current directory); spelunk mcp, spelunk search and the UI take several")
	pf.StringVar(&g.tenant, "tenant", envOr("SPELUNK_TENANT", "default"), "tenant (row-level security scope)")
	pf.BoolVar(&g.json, "json", false, "machine-readable output (from an index whose last run did not finish, a first line {\"index_incomplete\": WHY})")
	pf.StringVar(&g.cache, "cache", os.Getenv("SPELUNK_CACHE"), "memory cache file, or off (default $SPELUNK_CACHE, else one under $XDG_CACHE_HOME/spelunk/ for a --db URL)")
	pf.BoolVar(&g.offline, "offline", false, "serve memory from the local cache only (no database round trip)")
	g.embed.register(pf)
	g.judge.register(pf)
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := g.embed.check(); err != nil {
			return err
		}
		return g.judge.check()
	}
	root.AddCommand(newDBCmd(g), newDoctorCmd(g), newIndexCmd(g), newStatusCmd(g), newSymbolsCmd(g),
		newSearchCmd(g), newShowCmd(g), newWalkCmd(g, walkVerbs[0]), newWalkCmd(g, walkVerbs[1]),
		newWalkCmd(g, walkVerbs[2]), newWalkCmd(g, walkVerbs[3]),
		newImportsCmd(g, false), newImportsCmd(g, true), newEvalCmd(g), newEmbedCmd(), newModelCmd())
	root.AddCommand(newMemoryCmds(g)...)
	root.AddCommand(newMCPCmd(g), newSyncCmd(g))
	root.AddCommand(newServeCmd(g), newHooksCmd(g), newWatchCmd(g))
	// spelunk with no subcommand opens the TUI on the repository.
	root.RunE = func(c *cobra.Command, _ []string) error { return runTUI(c, g) }
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown command %q (see spelunk --help)", args[0])
		}
		return nil
	}
	addTUIFlags(root)
	return root
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// noArgs and exactArgs report wrong argument counts as usage errors.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			if lo == hi {
				return usagef("%s takes %d argument(s), got %d (see --help)", cmd.CommandPath(), lo, len(args))
			}
			return usagef("%s takes %d to %d arguments, got %d (see --help)", cmd.CommandPath(), lo, hi, len(args))
		}
		return nil
	}
}
