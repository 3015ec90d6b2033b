package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
)

// newMemoryCmds returns the agent-memory commands (issue 5): memory, nugget, state,
// briefing and conflicts. All work on the project of --repo (registered on first
// use, indexed or not) within --tenant.
func newMemoryCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{newMemoryCmd(g), newNuggetCmd(g), newStateCmd(g), newBriefingCmd(g), newConflictsCmd(g)}
}

// memSession is an open memory store for one command.
type memSession struct {
	db    *pg.DB
	store *memory.Store
}

func (s *memSession) close() { s.db.Close() }

// memShow opens the project's store, fetches one value and prints it with
// printOne: as JSON with --json, else with text.
func memShow[T any](cmd *cobra.Command, g *globals, get func(context.Context, *memory.Store) (T, error), text func(io.Writer, T)) error {
	s, err := memOpen(cmd, g, false, 0)
	if err != nil {
		return err
	}
	defer s.close()
	v, err := get(cmd.Context(), s.store)
	if err != nil {
		return err
	}
	return printOne(cmd, g, v, text)
}

// memList opens the project's store, fetches a list and prints it with
// printEach.
func memList[T any](cmd *cobra.Command, g *globals, get func(context.Context, *memory.Store) ([]T, error), line func(T) string, empty string) error {
	s, err := memOpen(cmd, g, false, 0)
	if err != nil {
		return err
	}
	defer s.close()
	vs, err := get(cmd.Context(), s.store)
	if err != nil {
		return err
	}
	return printEach(cmd, g, vs, line, empty)
}

// memOpen opens the database and the project's memory store. With embedder set it
// builds the configured embedder (a fallback note goes to stderr) and embeds the
// memories left pending by an earlier outage, so they are checked for conflicts.
func memOpen(cmd *cobra.Command, g *globals, embedder bool, threshold float64) (*memSession, error) {
	ctx := cmd.Context()
	root, err := repoRoot(ctx, g)
	if err != nil {
		return nil, err
	}
	opts := g.memOptions(nil)
	opts.Threshold = threshold
	if embedder {
		e, note, err := g.embed.embedder()
		if err != nil {
			return nil, err
		}
		if note != "" && !g.json {
			fmt.Fprintln(cmd.ErrOrStderr(), note)
		}
		opts.Embedder = e
	}
	db, err := openDB(ctx, g)
	if err != nil {
		return nil, err
	}
	repo, err := db.EnsureRepository(ctx, root)
	if err != nil {
		db.Close()
		return nil, err
	}
	s := &memSession{db: db, store: memory.New(db, repo.ID, opts)}
	if embedder {
		rep, err := s.store.EmbedPending(ctx)
		switch {
		case errors.Is(err, embed.ErrUnavailable):
			fmt.Fprintln(cmd.ErrOrStderr(), "note: memories stored while the embedder was down are still PENDING_EMBEDDING (the embedder is unavailable)")
		case err != nil:
			fmt.Fprintln(cmd.ErrOrStderr(), "warning:", err)
		case rep.Embedded > 0:
			fmt.Fprintf(cmd.ErrOrStderr(), "note: embedded %d pending memories; conflicts opened: %d\n", rep.Embedded, len(rep.Conflicts))
		}
	}
	return s, nil
}

// memAuthor is the --author flag, else $SPELUNK_AUTHOR, else the login name.
func memAuthor(flag string) string {
	for _, v := range []string{flag, os.Getenv("SPELUNK_AUTHOR"), os.Getenv("USER"), os.Getenv("LOGNAME")} {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return "unknown"
}

func memJSON(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// memLine is a one-line summary of a memory.
func memLine(m memory.Memory) string {
	return fmt.Sprintf("%s  %-17s %-8s %-12s %s", memShortID(m.ID), m.Status, m.Kind, memClip(m.Author, 12), memClip(m.Content, 80))
}

func memShortID(id string) string {
	if len(id) >= 8 {
		return id[:8]
	}
	return id
}

// memClip shortens s to n runes on one line.
func memClip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func memTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

func newMemoryCmd(g *globals) *cobra.Command {
	return cmdGroup(&cobra.Command{
		Use:   "memory",
		Short: "Record, list, show, search, supersede and invalidate agent memories",
	}, newMemoryAddCmd(g), newMemoryListCmd(g), newMemoryShowCmd(g), newMemorySearchCmd(g),
		newMemorySupersedeCmd(g), newMemoryInvalidateCmd(g), newMemoryReviewCmd(g))
}

// memoryAddLong is memory add's help.
const memoryAddLong = "Record a memory. It is compared with the project's live memories: one it contradicts is\n" +
	"DISPUTED with it in a conflict for a person to resolve (spelunk conflicts). A memory naming a\n" +
	"parent it contradicts is a correction: the parent is SUPERSEDED. When the embedder is down\n" +
	"the memory is stored as PENDING_EMBEDDING and checked by the next memory command.\n" +
	"Definitions and files the text names (Engine.ServeHTTP, lib/router.js, billing/refund.go:40)\n" +
	"and those given with --anchor are anchored: when an index run changes them, the memory goes\n" +
	"to review (spelunk memory review)."

func newMemoryAddCmd(g *globals) *cobra.Command {
	var kind, author string
	var parents, anchors []string
	var threshold float64
	cmd := &cobra.Command{
		Use:   `add --kind fact|decision|rule|episode --author AGENT [--parent ID] "text"`,
		Short: "Record a memory; prints its id, and DISPUTED with the conflict id if it contradicts another",
		Long:  memoryAddLong,
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !memory.Kind(kind).Valid() {
				return usagef("--kind must be fact, decision, rule or episode (got %q)", kind)
			}
			if strings.TrimSpace(author) == "" {
				return usagef("--author is required: the agent or person recording the memory")
			}
			if threshold < 0 || threshold > 1 {
				return usagef("--threshold must be between 0 and 1")
			}
			in := memory.NewMemory{Kind: memory.Kind(kind), Author: author, Text: args[0], Parents: parents, Anchors: anchors}
			if used, err := cacheAdd(cmd, g, in); used || err != nil {
				return err
			}
			s, err := memOpen(cmd, g, true, threshold)
			if err != nil {
				return err
			}
			defer s.close()
			a, err := s.store.Add(cmd.Context(), in)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if g.json {
				var cid *string
				if a.ConflictID != "" {
					cid = &a.ConflictID
				}
				return memJSON(out, struct {
					ID         string          `json:"id"`
					Status     memory.Status   `json:"status"`
					ConflictID *string         `json:"conflict_id"`
					Corrected  []string        `json:"corrected,omitempty"`
					Anchors    []memory.Anchor `json:"anchors,omitempty"`
				}{a.Memory.ID, a.Memory.Status, cid, a.Corrected, a.Memory.Anchors})
			}
			fmt.Fprintln(out, a.Memory.ID)
			for _, an := range a.Memory.Anchors {
				fmt.Fprintf(out, "anchored to %s\n", anchorText(an))
			}
			for _, id := range a.Corrected {
				fmt.Fprintf(out, "corrects %s: it is now SUPERSEDED by this memory\n", id)
			}
			switch {
			case a.ConflictID != "":
				c, err := s.store.Conflict(cmd.Context(), a.ConflictID)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "DISPUTED: conflict %s (%d memories, similarity %.2f): %s\n", a.ConflictID, len(c.MemoryIDs), c.Similarity, c.Reason)
				fmt.Fprintf(out, "resolve with: spelunk conflicts show %s\n", memShortID(a.ConflictID))
			case a.Memory.Status == memory.StatusPendingEmbedding:
				fmt.Fprintln(out, "PENDING_EMBEDDING: the embedder is unavailable; conflicts are checked once it is back")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&kind, "kind", "", "fact, decision, rule or episode")
	f.StringVar(&author, "author", "", "the agent (or person) recording the memory")
	f.StringArrayVar(&parents, "parent", nil, "a memory this one corrects or refines (id or unique prefix; repeatable)")
	f.StringArrayVar(&anchors, "anchor", nil, "a definition or file the memory is about: Name, Type.Method, path or path:line (repeatable)")
	f.Float64Var(&threshold, "threshold", 0, "similarity from which memories are checked for contradiction (default by embedder: 0.60 GloVe, 0.37 the code model, 0.30 hashing, 0.85 any other)")
	return cmd
}

func newMemoryListCmd(g *globals) *cobra.Command {
	var status, author, kind string
	var limit int
	cmd := &cobra.Command{
		Use:   "list [--status S] [--author A] [--kind K]",
		Short: "List the project's memories, newest first",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st := memory.Status(strings.ToUpper(status))
			if status != "" && !st.Valid() {
				return usagef("--status must be one of %v (got %q)", memory.Statuses, status)
			}
			if kind != "" && !memory.Kind(kind).Valid() {
				return usagef("--kind must be fact, decision, rule or episode (got %q)", kind)
			}
			if err := intIn("limit", limit, 1, 100000); err != nil {
				return err
			}
			return memList(cmd, g, func(ctx context.Context, s *memory.Store) ([]memory.Memory, error) {
				return s.List(ctx, memory.Filter{Status: st, Author: author, Kind: memory.Kind(kind), Limit: limit})
			}, memLine, "no memories")
		},
	}
	f := cmd.Flags()
	f.StringVar(&status, "status", "", "ACTIVE, SUPERSEDED, DISPUTED, INVALIDATED, PENDING_EMBEDDING or NEEDS_REVIEW")
	f.StringVar(&author, "author", "", "only this author's memories")
	f.StringVar(&kind, "kind", "", "only this kind")
	f.IntVar(&limit, "limit", 100, "at most this many")
	return cmd
}

func newMemoryShowCmd(g *globals) *cobra.Command {
	return memLeaf(g, &cobra.Command{
		Use:   "show ID",
		Short: "Show a memory with its lineage (parents, successors, corrections) and audit trail",
		Args:  rangeArgs(1, 1),
	}, func(ctx context.Context, st *memory.Store, args []string) (memory.Lineage, error) {
		return st.Lineage(ctx, args[0])
	}, memPrintLineage)
}

func memPrintLineage(w io.Writer, l memory.Lineage) {
	m := l.Memory
	fmt.Fprintf(w, "id       %s\nkind     %s\nstatus   %s", m.ID, m.Kind, m.Status)
	if m.StatusAt != nil {
		fmt.Fprintf(w, " (by %s at %s", m.StatusBy, memTime(*m.StatusAt))
		if m.StatusReason != "" {
			fmt.Fprintf(w, ": %s", m.StatusReason)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintf(w, "\nauthor   %s\ncreated  %s\n", m.Author, memTime(m.CreatedAt))
	if m.SupersededBy != "" {
		fmt.Fprintf(w, "replaced %s\n", m.SupersededBy)
	}
	if m.TombstonedAt != nil {
		fmt.Fprintf(w, "tombstone %s: %s\n", memTime(*m.TombstonedAt), m.TombstoneReason)
	}
	fmt.Fprintf(w, "\n%s\n", m.Content)
	if len(m.Anchors) > 0 {
		fmt.Fprintln(w, "\nanchors:")
		for _, a := range m.Anchors {
			fmt.Fprintf(w, "  %-8s %s\n", a.State, anchorText(a))
		}
	}
	if len(l.Ancestors) > 0 {
		fmt.Fprintln(w, "\nlineage (parents first):")
		for _, a := range l.Ancestors {
			fmt.Fprintf(w, "  %s%s\n", strings.Repeat("  ", a.Depth-1), memLine(a.Memory))
		}
	}
	if len(l.Successors) > 0 {
		fmt.Fprintln(w, "\nsuperseded by:")
		for _, s := range l.Successors {
			fmt.Fprintf(w, "  -> %s\n", memLine(s))
		}
	}
	if len(l.Children) > 0 {
		fmt.Fprintln(w, "\ncorrections and refinements:")
		for _, c := range l.Children {
			fmt.Fprintf(w, "  %s\n", memLine(c))
		}
	}
	fmt.Fprintln(w, "\nhistory:")
	for _, e := range l.Events {
		from := string(e.FromStatus)
		if from == "" {
			from = "-"
		}
		fmt.Fprintf(w, "  %s  %-10s %s -> %s by %s", memTime(e.At), e.Action, from, e.ToStatus, e.Actor)
		if e.Reason != "" {
			fmt.Fprintf(w, ": %s", e.Reason)
		}
		if e.ConflictID != "" {
			fmt.Fprintf(w, " [conflict %s]", memShortID(e.ConflictID))
		}
		fmt.Fprintln(w)
	}
}

func newMemorySearchCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   `search "query"`,
		Short: "Search the project's live memories (dense similarity fused with full text)",
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := intIn("limit", limit, 1, 40); err != nil {
				return err
			}
			s, err := memOpen(cmd, g, true, 0)
			if err != nil {
				return err
			}
			defer s.close()
			res, err := s.store.Search(cmd.Context(), args[0], limit)
			if err != nil {
				return err
			}
			return printOne(cmd, g, res, func(out io.Writer, res memory.SearchResult) {
				if !res.Dense {
					fmt.Fprintln(cmd.ErrOrStderr(), "note: the embedder is unavailable; results are from full-text search only")
				}
				for i, h := range res.Hits {
					fmt.Fprintf(out, "%2d  %.4f  %s\n", i+1, h.Score, memLine(h.Memory))
				}
				if len(res.Hits) == 0 {
					fmt.Fprintln(cmd.ErrOrStderr(), "no matching memories")
				}
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "number of results (at most 40)")
	return cmd
}

func newMemorySupersedeCmd(g *globals) *cobra.Command {
	var author, reason string
	cmd := memLeaf(g, &cobra.Command{
		Use:   "supersede OLD NEW",
		Short: "Mark memory OLD as replaced by memory NEW",
		Args:  rangeArgs(2, 2),
	}, func(ctx context.Context, st *memory.Store, args []string) (memory.Memory, error) {
		return st.Supersede(ctx, args[0], args[1], memAuthor(author), reason)
	}, func(w io.Writer, m memory.Memory) {
		fmt.Fprintf(w, "%s SUPERSEDED by %s\n", m.ID, m.SupersededBy)
	})
	authorFlag(cmd, &author, "who decides; an agent (agent:NAME) may not supersede a DISPUTED memory")
	cmd.Flags().StringVar(&reason, "reason", "", "why (recorded in the audit trail)")
	return cmd
}

func newMemoryInvalidateCmd(g *globals) *cobra.Command {
	var author, reason string
	cmd := &cobra.Command{
		Use:   `invalidate ID --reason "..."`,
		Short: "Tombstone a memory: kept for lineage and audit, no longer standing",
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(reason) == "" {
				return usagef("--reason is required: say why the memory is invalid")
			}
			return memShow(cmd, g, func(ctx context.Context, st *memory.Store) (memory.Memory, error) {
				return st.Invalidate(ctx, args[0], memAuthor(author), reason)
			}, func(w io.Writer, m memory.Memory) {
				fmt.Fprintf(w, "%s INVALIDATED: %s\n", m.ID, m.TombstoneReason)
			})
		},
	}
	authorFlag(cmd, &author, "who decides; an agent (agent:NAME) may not invalidate a DISPUTED memory")
	cmd.Flags().StringVar(&reason, "reason", "", "why the memory no longer holds (required)")
	return cmd
}

func newNuggetCmd(g *globals) *cobra.Command {
	var author string
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set a nugget",
		Args:  rangeArgs(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := memory.NuggetWrite{Key: args[0], Value: args[1], Author: memAuthor(author)}
			return cacheShow(cmd, g, true, func(ctx context.Context, c *memcache.Cache) (memory.NuggetSet, error) {
				return c.SetNugget(ctx, w)
			}, func(ctx context.Context, st *memory.Store) (memory.NuggetSet, error) {
				return st.SetNugget(ctx, w)
			}, func(w io.Writer, r memory.NuggetSet) {
				fmt.Fprintf(w, "%s = %s\n", r.Nugget.Key, r.Nugget.Value)
				if !r.Applied {
					fmt.Fprintln(cmd.ErrOrStderr(), "note: a later write is current; this one is kept in the history")
				}
			})
		},
	}
	authorFlag(set, &author, "who writes")
	get := &cobra.Command{
		Use:   "get KEY",
		Short: "Print a nugget's current value",
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cacheShow(cmd, g, false, func(ctx context.Context, c *memcache.Cache) (memory.Nugget, error) {
				return c.Nugget(ctx, args[0])
			}, func(ctx context.Context, st *memory.Store) (memory.Nugget, error) {
				return st.Nugget(ctx, args[0])
			}, func(w io.Writer, n memory.Nugget) {
				fmt.Fprintln(w, n.Value)
			})
		},
	}
	return cmdGroup(&cobra.Command{
		Use:   "nugget",
		Short: "Project-wide key/value facts: last write wins, every write kept",
	}, set, get, newNuggetListCmd(g), newNuggetHistoryCmd(g))
}

func newNuggetListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the current nuggets",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ns []memory.Nugget
			used, err := withCache(cmd, g, false, func(ctx context.Context, c *memcache.Cache) error {
				var err error
				ns, err = c.Nuggets(ctx)
				return err
			})
			if err != nil {
				return err
			}
			if !used {
				s, err := memOpen(cmd, g, false, 0)
				if err != nil {
					return err
				}
				defer s.close()
				if ns, err = s.store.Nuggets(cmd.Context()); err != nil {
					return err
				}
			}
			return printEach(cmd, g, ns, func(n memory.Nugget) string {
				return fmt.Sprintf("%s = %s  (%s, %s)", n.Key, n.Value, n.Author, memTime(n.UpdatedAt))
			}, "")
		},
	}
}

func newNuggetHistoryCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "history KEY",
		Short: "Every write of a nugget, oldest first; the last is current",
		Args:  rangeArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return memList(cmd, g, func(ctx context.Context, s *memory.Store) ([]memory.NuggetVersion, error) {
				return s.NuggetHistory(ctx, args[0])
			}, func(v memory.NuggetVersion) string {
				return fmt.Sprintf("%s  %-12s %s", memTime(v.WrittenAt), memClip(v.Author, 12), v.Value)
			}, "")
		},
	}
}
