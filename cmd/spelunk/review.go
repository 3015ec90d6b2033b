package main

// `spelunk memory review`: the memories whose anchored code changed (issue 17),
// and what a person does about each: confirm, edit or invalidate.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/memory"
)

func newMemoryReviewCmd(g *globals) *cobra.Command {
	var diff bool
	c := &cobra.Command{
		Use:   "review [--json] [--diff]",
		Short: "List memories whose anchored code changed, was removed or renamed; confirm, edit or invalidate them",
		Long: "A memory that names a definition or file of the indexed repository (Engine.ServeHTTP,\n" +
			"lib/router.js, billing/refund.go:40, or --anchor on memory add) is anchored to it. When an\n" +
			"index run changes, removes or renames that definition, the memory goes to NEEDS_REVIEW and\n" +
			"is listed here, one JSON line per memory with --json: id, status, reason, anchors with their\n" +
			"state (current, changed, removed, renamed) and, for a changed one, the diff of the definition.\n" +
			"Then: `memory review confirm ID` (it still holds: re-pin, ACTIVE again), `memory review edit ID\n" +
			"\"new text\"` (a corrected memory supersedes it) or `memory review invalidate ID --reason ...`.",
		// Like a command group's: a word that is no sub-command is a usage error naming them.
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown review command %q (confirm, edit, invalidate)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return memList(cmd, g, func(ctx context.Context, s *memory.Store) ([]memory.ReviewItem, error) {
				return s.Review(ctx)
			}, func(it memory.ReviewItem) string { return reviewText(it, diff) }, "nothing to review")
		},
	}
	c.Flags().BoolVar(&diff, "diff", false, "print each changed definition's diff under its memory (JSON always has it)")
	c.AddCommand(newReviewConfirmCmd(g), newReviewEditCmd(g), newMemoryInvalidateCmd(g))
	return c
}

// reviewText is one queue item as text: the memory, then one line per anchor.
func reviewText(it memory.ReviewItem, diff bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-12s %s\n", memShortID(it.ID), it.Status, memClip(it.Content, 90))
	if it.Reason != "" {
		fmt.Fprintf(&b, "    reason: %s\n", it.Reason)
	}
	for _, a := range it.Anchors {
		fmt.Fprintf(&b, "    %-8s %s\n", a.State, anchorText(a.Anchor))
		if diff && a.Diff != "" {
			for _, l := range strings.Split(strings.TrimRight(a.Diff, "\n"), "\n") {
				fmt.Fprintf(&b, "      %s\n", l)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// anchorText names an anchor: "Name  path" (with where a rename came from).
func anchorText(a memory.Anchor) string {
	s := a.Path
	if a.Name != "" {
		s = a.Name + "  " + a.Path
	}
	if a.OldPath != "" {
		s += " (was " + a.OldPath + ")"
	}
	return s
}

func newReviewConfirmCmd(g *globals) *cobra.Command {
	var author, reason string
	cmd := memLeaf(g, &cobra.Command{
		Use:   "confirm ID",
		Short: "The memory still holds: re-pin its anchors to the current code (it is ACTIVE again)",
		Args:  rangeArgs(1, 1),
	}, func(ctx context.Context, st *memory.Store, args []string) (memory.Memory, error) {
		return st.Confirm(ctx, args[0], memAuthor(author), reason)
	}, func(w io.Writer, m memory.Memory) {
		fmt.Fprintf(w, "%s %s: anchors re-pinned\n", m.ID, m.Status)
	})
	authorFlag(cmd, &author, "who confirms")
	cmd.Flags().StringVar(&reason, "reason", "", "why it still holds (recorded in the audit trail)")
	return cmd
}

func newReviewEditCmd(g *globals) *cobra.Command {
	var author string
	cmd := memLeaf(g, &cobra.Command{
		Use:   `edit ID "corrected text"`,
		Short: "Replace the memory with a corrected one, anchored to the current code (the old one is SUPERSEDED)",
		Args:  rangeArgs(2, 2),
	}, func(ctx context.Context, st *memory.Store, args []string) (memory.Added, error) {
		return st.Edit(ctx, args[0], memAuthor(author), args[1])
	}, func(w io.Writer, a memory.Added) {
		fmt.Fprintf(w, "%s %s (supersedes the reviewed memory)\n", a.Memory.ID, a.Memory.Status)
	})
	authorFlag(cmd, &author, "who edits")
	return cmd
}

// briefAnchors is the briefing's line of a memory's anchors: each with whether
// it is still current.
func briefAnchors(as []memory.Anchor) string {
	parts := make([]string, len(as))
	for i, a := range as {
		name := a.Path
		if a.Name != "" {
			name = a.Name
		}
		parts[i] = name + " " + string(a.State)
	}
	return strings.Join(parts, ", ")
}
