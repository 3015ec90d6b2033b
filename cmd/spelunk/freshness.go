package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spelunkhq/spelunk/engine/fresh"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/symbols"
)

// markStale sets Stale on the symbols whose files on disk differ from what was
// indexed (engine/fresh), so that both the text and the JSON output say so.
func markStale(ctx context.Context, db *pg.DB, rec pg.Repository, syms ...*symbols.Symbol) error {
	if err := fresh.New(db, rec.ID, rec.Root, fresh.Options{}).Mark(ctx, syms...); err != nil {
		return fmt.Errorf("check freshness: %w", err)
	}
	return nil
}

// revMark is the text output's tag of where a symbol was read from: the
// commit (short) or working-tree, then [stale] when its file has changed since.
func revMark(s symbols.Symbol) string {
	rev := s.Revision
	if len(rev) > 12 && !s.WorkingTree() {
		rev = rev[:12]
	}
	mark := "@" + rev
	if s.Stale {
		mark += " [stale]"
	}
	return mark
}

// printStaleNote says, once, that some results come from files changed since
// they were indexed, and how to bring them up to date.
func printStaleNote(w io.Writer, syms []*symbols.Symbol) {
	files := map[string]bool{}
	for _, s := range syms {
		if s.Stale {
			files[s.Path] = true
		}
	}
	if len(files) == 0 {
		return
	}
	noun := "files have"
	if len(files) == 1 {
		noun = "file has"
	}
	fmt.Fprintf(w, "  note: %d %s changed on disk since indexed: [stale] lines may have moved (spelunk index --working-tree)\n", len(files), noun)
}
