package main

// spelunk conflicts: the review queue of contradicting memories.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
)

func newConflictsCmd(g *globals) *cobra.Command {
	var status string
	list := &cobra.Command{
		Use:   "list [--status open|resolved|all]",
		Short: "List conflicts (open ones by default, oldest first)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st := memory.ConflictStatus(status)
			switch status {
			case "all":
				st = ""
			case "open", "resolved":
			default:
				return usagef("--status must be open, resolved or all (got %q)", status)
			}
			cs, err := listConflicts(cmd, g, st)
			if err != nil {
				return err
			}
			return printEach(cmd, g, cs, func(c memory.Conflict) string {
				return fmt.Sprintf("%s  %-8s %.2f  %d memories  %s", memShortID(c.ID), c.Status, c.Similarity, len(c.MemoryIDs), memClip(c.Reason, 90))
			}, "no conflicts")
		},
	}
	list.Flags().StringVar(&status, "status", "open", "open, resolved or all")
	show := memLeaf(g, &cobra.Command{
		Use:   "show ID",
		Short: "Show a conflict with every side (a, b, ...)",
		Args:  rangeArgs(1, 1),
	}, func(ctx context.Context, st *memory.Store, args []string) (memory.ConflictDetail, error) {
		return st.Conflict(ctx, args[0])
	}, memPrintConflict)
	return cmdGroup(&cobra.Command{
		Use:   "conflicts",
		Short: "Review and resolve contradicting memories",
	}, list, show, newConflictsResolveCmd(g), newConflictsUndoCmd(g))
}

func memPrintConflict(w io.Writer, d memory.ConflictDetail) {
	fmt.Fprintf(w, "conflict   %s\nstatus     %s\nsimilarity %.3f\nreason     %s\nopened     %s\n",
		d.ID, d.Status, d.Similarity, d.Reason, memTime(d.CreatedAt))
	if d.ResolvedAt != nil {
		fmt.Fprintf(w, "resolved   %s by %s at %s", d.Resolution, d.Resolver, memTime(*d.ResolvedAt))
		if d.Note != "" {
			fmt.Fprintf(w, ": %s", d.Note)
		}
		fmt.Fprintln(w)
	}
	for i, m := range d.Memories {
		fmt.Fprintf(w, "\n[%c] %s  %s  %s by %s at %s\n    %s\n", 'a'+i, m.ID, m.Status, m.Kind, m.Author, memTime(m.CreatedAt),
			strings.ReplaceAll(strings.TrimSpace(m.Content), "\n", "\n    "))
	}
	if d.Status == memory.ConflictOpen {
		fmt.Fprintf(w, "\nresolve: spelunk conflicts resolve %s --keep a|b|both | --merge \"text\" | --invalidate a|ID [--note ...]\n", memShortID(d.ID))
	}
}

func newConflictsResolveCmd(g *globals) *cobra.Command {
	var keep, merge, invalidate, note, author, kind string
	cmd := &cobra.Command{
		Use:   `resolve ID --keep a|b|both | --merge "text" | --invalidate ID [--note ...]`,
		Short: "Settle a conflict: keep one side (the others SUPERSEDED), keep both, merge, or invalidate one",
		Long: "Settle an open conflict. --keep a (or b, c, ..., or a memory id) keeps that memory and supersedes\n" +
			"the others; --keep both keeps all and never flags the pair again; --merge records a new memory,\n" +
			"authored by you with the sides as parents, that supersedes them; --invalidate tombstones one side.\n" +
			"Every change is audited; `spelunk conflicts undo ID` reverts it.",
		Args: rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, v := range []string{keep, merge, invalidate} {
				if v != "" {
					n++
				}
			}
			if n != 1 {
				return usagef("give exactly one of --keep a|b|both, --merge \"text\" or --invalidate ID")
			}
			if kind != "" && !memory.Kind(kind).Valid() {
				return usagef("--kind must be fact, decision, rule or episode (got %q)", kind)
			}
			r := memory.Resolution{Resolver: memAuthor(author), Note: note, Kind: memory.Kind(kind)}
			switch {
			case strings.EqualFold(keep, "both"):
				r.Action = memory.ResolveKeepAll
			case keep != "":
				r.Action, r.Memory = memory.ResolveKeep, keep
			case merge != "":
				r.Action, r.Text = memory.ResolveMerge, merge
			default:
				r.Action, r.Memory = memory.ResolveInvalidate, invalidate
			}
			s, err := memOpen(cmd, g, r.Action == memory.ResolveMerge, 0)
			if err != nil {
				return err
			}
			defer s.close()
			res, err := s.store.Resolve(cmd.Context(), args[0], r)
			if err != nil {
				return err
			}
			return printOne(cmd, g, res, memPrintResolved)
		},
	}
	f := cmd.Flags()
	f.StringVar(&keep, "keep", "", "a, b, ... (the side), a memory id, or both")
	f.StringVar(&merge, "merge", "", "the statement that replaces all sides")
	f.StringVar(&invalidate, "invalidate", "", "the side (a, b, ...) or memory id to tombstone")
	f.StringVar(&note, "note", "", "why (recorded with the resolution)")
	authorFlag(cmd, &author, "who resolves")
	f.StringVar(&kind, "kind", "", "kind of the merged memory (default: side a's)")
	return cmd
}

func newConflictsUndoCmd(g *globals) *cobra.Command {
	var author string
	cmd := memLeaf(g, &cobra.Command{
		Use:   "undo ID",
		Short: "Revert a conflict's resolution: statuses restored, the conflict reopened",
		Args:  rangeArgs(1, 1),
	}, func(ctx context.Context, st *memory.Store, args []string) (memory.Conflict, error) {
		return st.Undo(ctx, args[0], memAuthor(author))
	}, func(w io.Writer, c memory.Conflict) {
		fmt.Fprintf(w, "conflict %s reopened; its memories have their statuses from before the resolution\n", c.ID)
	})
	authorFlag(cmd, &author, "who undoes")
	return cmd
}

func memPrintResolved(out io.Writer, res memory.Resolved) {
	fmt.Fprintf(out, "conflict %s resolved: %s\n", res.Conflict.ID, res.Conflict.Resolution)
	if res.Merged != nil {
		fmt.Fprintf(out, "merged memory %s (%s)\n", res.Merged.ID, res.Merged.Status)
	}
	if res.MergedConflictID != "" {
		fmt.Fprintf(out, "note: the merged memory contradicts another memory: conflict %s\n", res.MergedConflictID)
	}
}

// listConflicts reads the conflicts from the cache when one is configured
// (brought up to date first), else from the core.
func listConflicts(cmd *cobra.Command, g *globals, st memory.ConflictStatus) ([]memory.Conflict, error) {
	var cs []memory.Conflict
	used, err := withCache(cmd, g, false, func(ctx context.Context, c *memcache.Cache) error {
		var err error
		cs, err = c.Conflicts(ctx, st)
		return err
	})
	if used || err != nil {
		return cs, err
	}
	s, err := memOpen(cmd, g, true, 0)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.store.Conflicts(cmd.Context(), st)
}
