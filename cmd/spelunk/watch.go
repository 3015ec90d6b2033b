package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/watch"
)

// newWatchCmd is `spelunk watch`: follow the working tree and HEAD, indexing
// each change as it lands, until interrupted.
func newWatchCmd(g *globals) *cobra.Command {
	var opts watch.Options
	cmd := &cobra.Command{
		Use:   "watch [--repo DIR] [--debounce 150ms] [--max-paths 500]",
		Short: "Keep the index up to date as files are saved and HEAD moves (runs until interrupted)",
		Long: "Watch the repository's working tree (the directories git would list; ignored ones, .git and nested\n" +
			"repositories are left out) and its HEAD. After a quiet time (--debounce) the files that changed are\n" +
			"re-indexed as working-tree revisions; more than --max-paths at once, and every move of HEAD (commit,\n" +
			"checkout, rebase, pull, reset), become one incremental run of the whole tree. One watcher per repository\n" +
			"and database leads; another one started meanwhile waits and takes over when the first stops.\n" +
			"One line per run on stdout; --json prints the events as JSON lines instead.\n" +
			"The TUI and spelunk mcp run the same watcher in-process unless given --no-watch.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Debounce < 10*time.Millisecond || opts.Debounce > time.Minute {
				return usagef("--debounce must be between 10ms and 1m (got %s)", opts.Debounce)
			}
			if err := intIn("max-paths", opts.MaxPaths, 1, 1_000_000); err != nil {
				return err
			}
			ctx := cmd.Context()
			root, emb, db, err := openForIndexing(ctx, g)
			if err != nil {
				return err
			}
			defer db.Close()
			out := cmd.OutOrStdout()
			opts.OnEvent = func(ev watch.Event) { printWatchEvent(out, ev, g.json) }
			return watch.New(db, emb, root, opts).Run(ctx)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&opts.Debounce, "debounce", watch.DefaultDebounce, "quiet time after the last change before a run")
	f.IntVar(&opts.MaxPaths, "max-paths", watch.DefaultMaxPaths, "changed files above which one incremental run of the whole tree replaces a run over the files")
	return cmd
}

// watchJSON is the --json shape of one event.
type watchJSON struct {
	Time       time.Time `json:"time"`
	Event      string    `json:"event"`
	Repository string    `json:"repository"`
	Reason     string    `json:"reason,omitempty"`
	Paths      []string  `json:"paths,omitempty"`
	Revision   string    `json:"revision,omitempty"`
	Indexed    *int      `json:"files_indexed,omitempty"`
	Deleted    *int      `json:"files_deleted,omitempty"`
	DurationMS *int64    `json:"duration_ms,omitempty"`
	Error      string    `json:"error,omitempty"`
}

func printWatchEvent(w io.Writer, ev watch.Event, asJSON bool) {
	if asJSON {
		j := watchJSON{Time: time.Now().UTC(), Event: ev.Kind.String(), Repository: ev.Root, Reason: ev.Reason, Paths: ev.Paths}
		if ev.Kind == watch.Indexed && ev.Err == nil {
			d := ev.Duration.Milliseconds()
			j.Revision, j.Indexed, j.Deleted, j.DurationMS = ev.Summary.Revision, &ev.Summary.FilesIndexed, &ev.Summary.FilesDeleted, &d
		}
		if ev.Err != nil {
			j.Error = ev.Err.Error()
		}
		_ = json.NewEncoder(w).Encode(j)
		return
	}
	if line := watchLine(ev); line != "" {
		fmt.Fprintf(w, "%s %s\n", time.Now().Format("15:04:05"), line)
	}
}

// watchLine is one event as a line for a person, "" for the events that
// need none (a run starting: its end says everything).
func watchLine(ev watch.Event) string {
	switch ev.Kind {
	case watch.Standby:
		return "standby: another process watches " + ev.Root + "; this one takes over when it stops"
	case watch.Watching:
		return "watching " + ev.Root
	case watch.Busy:
		return "waiting: another index of the repository is running (" + ev.Reason + ")"
	case watch.Warning:
		return "warning: " + ev.Err.Error()
	case watch.Indexed:
		if ev.Err != nil {
			return fmt.Sprintf("index failed (%s): %v; trying again", ev.Reason, ev.Err)
		}
		return indexedLine(ev)
	}
	return ""
}

func indexedLine(ev watch.Event) string {
	s := ev.Summary
	var parts []string
	if s.FilesIndexed > 0 {
		parts = append(parts, plural(s.FilesIndexed, "file")+" indexed")
	}
	if s.FilesDeleted > 0 {
		parts = append(parts, fmt.Sprintf("%d deleted", s.FilesDeleted))
	}
	if s.SkippedNow > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", s.SkippedNow))
	}
	if len(parts) == 0 {
		parts = append(parts, "no file changed")
	}
	for _, n := range s.Notes {
		parts = append(parts, "note: "+n)
	}
	return fmt.Sprintf("%s: %s at %s in %s", ev.Reason, strings.Join(parts, ", "), shortRev(s.Revision),
		ev.Duration.Round(time.Millisecond))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// watchInBackground runs a watcher of root beside another command (spelunk
// mcp, whose stdout is the protocol), logging runs and problems to stderr one
// line each. The function it returns stops the watcher and waits for it, so
// that a run in progress ends before the database closes.
func watchInBackground(ctx context.Context, db *pg.DB, emb index.Embedder, root, prefix string) func() {
	ctx, cancel := context.WithCancel(ctx)
	w := watch.New(db, emb, root, watch.Options{OnEvent: func(ev watch.Event) {
		if line := watchLine(ev); line != "" {
			fmt.Fprintf(os.Stderr, "%s%s\n", prefix, line)
		}
	}})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if err := w.Run(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "%sstopped: %v\n", prefix, err)
		}
	}()
	return func() { cancel(); <-stopped }
}
