package main

// spelunk state and spelunk briefing: what the memory holds, compiled for a reader.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
)

func newStateCmd(g *globals) *cobra.Command {
	var summary, author string
	var blockers, priorities []string
	set := &cobra.Command{
		Use:   `set --summary "..." [--blockers "..."]... [--priorities "..."]...`,
		Short: "Record a state compilation (the latest one is the state)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(summary) == "" {
				return usagef("--summary is required")
			}
			in := memory.NewState{Summary: summary, Blockers: blockers, Priorities: priorities, Author: memAuthor(author)}
			return cacheShow(cmd, g, true, func(ctx context.Context, c *memcache.Cache) (memory.State, error) {
				return c.SetState(ctx, in)
			}, func(ctx context.Context, st *memory.Store) (memory.State, error) {
				return st.SetState(ctx, in)
			}, func(w io.Writer, st memory.State) {
				if st.ID == 0 {
					fmt.Fprintln(w, "state recorded (queued for the core)")
					return
				}
				fmt.Fprintf(w, "state %d recorded\n", st.ID)
			})
		},
	}
	f := set.Flags()
	f.StringVar(&summary, "summary", "", "where the project stands (required)")
	f.StringArrayVar(&blockers, "blockers", nil, "a blocker (repeat the flag for several)")
	f.StringArrayVar(&priorities, "priorities", nil, "a priority, most important first (repeat the flag for several)")
	authorFlag(set, &author, "who compiled it")
	show := &cobra.Command{
		Use:   "show",
		Short: "Show the latest state compilation",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cacheShow(cmd, g, false, func(ctx context.Context, c *memcache.Cache) (memory.State, error) {
				return c.LatestState(ctx)
			}, func(ctx context.Context, st *memory.Store) (memory.State, error) {
				return st.LatestState(ctx)
			}, func(w io.Writer, st memory.State) {
				memPrintState(w, st)
			})
		},
	}
	return cmdGroup(&cobra.Command{
		Use:   "state",
		Short: "The project's state compilation: summary, blockers, priorities",
	}, set, show)
}

func memPrintState(w io.Writer, st memory.State) {
	fmt.Fprintf(w, "%s\n(compiled by %s at %s)\n", st.Summary, st.Author, memTime(st.CompiledAt))
	for _, l := range []struct {
		title string
		items []string
	}{{"blockers", st.Blockers}, {"priorities", st.Priorities}} {
		if len(l.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", l.title)
		for i, it := range l.items {
			fmt.Fprintf(w, "  %d. %s\n", i+1, it)
		}
	}
}

func newBriefingCmd(g *globals) *cobra.Command {
	var query string
	var limit int
	cmd := &cobra.Command{
		Use:   `briefing [--query "..."]`,
		Short: "What an agent should know: top memories, nuggets, latest state, open conflicts (one round trip)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := intIn("limit", limit, 1, 100); err != nil {
				return err
			}
			b, err := briefing(cmd, g, memory.BriefingOptions{Query: query, Limit: limit})
			if err != nil {
				return err
			}
			if query != "" && b.Ranking != "similarity" && !g.json {
				fmt.Fprintln(cmd.ErrOrStderr(), "note: the embedder is unavailable; memories are the most recent, not the most similar")
			}
			return printOne(cmd, g, b, memPrintBriefing)
		},
	}
	cmd.Flags().StringVar(&query, "query", "", "rank memories by similarity to this (default: the most recent)")
	cmd.Flags().IntVar(&limit, "limit", 10, "number of memories (at most 100)")
	return cmd
}

func memPrintBriefing(out io.Writer, b memory.Briefing) {
	fmt.Fprintf(out, "memories (%s):\n", b.Ranking)
	for _, m := range b.Memories {
		sim := "   - "
		if m.Similarity != nil {
			sim = fmt.Sprintf("%.2f ", *m.Similarity)
		}
		fmt.Fprintf(out, "  %s %s  %-8s %-9s %s\n", sim, memShortID(m.ID), m.Kind, m.Status, memClip(m.Content, 90))
		if len(m.Anchors) > 0 {
			fmt.Fprintf(out, "        anchors: %s\n", briefAnchors(m.Anchors))
		}
	}
	if len(b.Nuggets) > 0 {
		fmt.Fprintln(out, "nuggets:")
		for _, n := range b.Nuggets {
			fmt.Fprintf(out, "  %s = %s\n", n.Key, n.Value)
		}
	}
	if b.State != nil {
		fmt.Fprintln(out, "state:")
		var sb strings.Builder
		memPrintState(&sb, *b.State)
		for _, line := range strings.Split(strings.TrimRight(sb.String(), "\n"), "\n") {
			fmt.Fprintf(out, "  %s\n", line)
		}
	}
	fmt.Fprintf(out, "open conflicts: %d\n", b.OpenConflicts)
}

// briefing is served from the cache when one is configured (brought up to date
// first unless --offline), else by the core.
func briefing(cmd *cobra.Command, g *globals, opts memory.BriefingOptions) (memory.Briefing, error) {
	c, err := openCache(cmd, g, true)
	if err != nil {
		return memory.Briefing{}, err
	}
	if c != nil {
		defer c.close()
		c.refresh(cmd.Context(), cmd.ErrOrStderr())
		return c.cache.Briefing(cmd.Context(), opts)
	}
	s, err := memOpen(cmd, g, true, 0)
	if err != nil {
		return memory.Briefing{}, err
	}
	defer s.close()
	return s.store.Briefing(cmd.Context(), opts)
}
