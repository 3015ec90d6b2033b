package main

// The one builder for the CLI's command groups and their common leaf path (issue
// 19): a group lists its sub-commands and refuses an unknown one the same way
// everywhere; a leaf prints its result as JSON with --json, else as text.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/memory"
)

// cmdGroup completes the group command c, whose declaration (Use, Short, Long,
// flags) the caller gives, with its sub-commands. Run bare, the group prints its
// help; given a word that is no sub-command, it is a usage error (exit 2) that
// names the visible sub-commands in the order given here, so that the message
// reads as the help does.
func cmdGroup(c *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	var names []string
	for _, s := range subs {
		if !s.Hidden {
			names = append(names, s.Name())
		}
	}
	c.Args = func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown %s command %q (%s)", c.Name(), args[0], strings.Join(names, ", "))
		}
		return nil
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	c.AddCommand(subs...)
	return c
}

// printOne writes v to the command's output: one JSON document with --json,
// else what text writes.
func printOne[T any](cmd *cobra.Command, g *globals, v T, text func(io.Writer, T)) error {
	if g.json {
		return memJSON(cmd.OutOrStdout(), v)
	}
	text(cmd.OutOrStdout(), v)
	return nil
}

// printEach writes items to the command's output: one JSON document a line with
// --json, else the line that line gives for each. When there are none and the
// output is text, empty (unless "") goes to stderr, so scripts reading stdout see
// nothing.
func printEach[T any](cmd *cobra.Command, g *globals, items []T, line func(T) string, empty string) error {
	out := cmd.OutOrStdout()
	for _, it := range items {
		if g.json {
			if err := memJSON(out, it); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(out, line(it))
	}
	if len(items) == 0 && !g.json && empty != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), empty)
	}
	return nil
}

// memLeaf completes the leaf command c, whose declaration the caller gives: it
// opens the project's memory store, runs do with the arguments and prints what
// do returns with printOne.
func memLeaf[T any](g *globals, c *cobra.Command, do func(context.Context, *memory.Store, []string) (T, error), text func(io.Writer, T)) *cobra.Command {
	c.RunE = func(cmd *cobra.Command, args []string) error {
		return memShow(cmd, g, func(ctx context.Context, st *memory.Store) (T, error) { return do(ctx, st, args) }, text)
	}
	return c
}

// authorFlag declares --author, read with memAuthor; who says what the author does.
func authorFlag(c *cobra.Command, author *string, who string) {
	c.Flags().StringVar(author, "author", "", who+" (default $SPELUNK_AUTHOR, else $USER)")
}
