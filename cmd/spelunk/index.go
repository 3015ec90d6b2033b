package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/source"
	"github.com/spelunkhq/spelunk/internal/priority"
)

func newIndexCmd(g *globals) *cobra.Command {
	var opts index.Options
	var files []string
	cmd := &cobra.Command{
		Use:   "index [DIR]",
		Short: "Index a repository (default: the current one) at HEAD, incrementally",
		Long: "Index DIR (or --repo, or the current repository) at HEAD: symbols cut by tree-sitter, the call/import\n" +
			"graph and embeddings. Only files whose content changed since the last run are re-read; a re-run of the\n" +
			"same commit changes nothing. --working-tree also indexes uncommitted changes (revision working-tree).\n\n" +
			"Skipped files are those the index keeps no content for (larger than --max-file-bytes, binary, minified,\n" +
			"generated, a name that is not UTF-8). \"skipped\" (files_skipped in --json) is the repository's total, the\n" +
			"number status shows, whether this run or an earlier one skipped them; files_skipped_now counts those this\n" +
			"run read and skipped. With --file both count the given files only.",
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if g.repo != "" && g.repo != args[0] {
					return usagef("give the repository either as DIR or as --repo, not both")
				}
				g.repo = args[0]
			}
			if err := intIn("workers", opts.Workers, 0, 256); err != nil {
				return err
			}
			if opts.MaxFileBytes < 1 {
				return usagef("--max-file-bytes must be positive (got %d)", opts.MaxFileBytes)
			}
			ctx := cmd.Context()
			// A directory spelunk refuses (/proc) is refused before the database is
			// started or reached.
			if root, err := repoRoot(ctx, g); err == nil {
				repo, err := source.OpenWith(ctx, root, source.OpenOptions{AllowSystemDirs: opts.AllowSystemDirs})
				if errors.Is(err, source.ErrSystemDir) {
					return err
				}
				if err == nil {
					repo.Close()
				}
			}
			if len(files) > 0 && opts.Full {
				return usagef("--file indexes the named files as they are on disk; it cannot be combined with --full")
			}
			root, emb, db, err := openForIndexing(ctx, g)
			if err != nil {
				return err
			}
			defer db.Close()
			if opts.Paths, err = repoRelative(root, files); err != nil {
				return err
			}
			tty := isatty.IsTerminal(os.Stderr.Fd()) && !g.json
			if tty {
				opts.Progress = func(p index.Progress) { printProgress(p) }
				opts.ProgressEvery = 100 * time.Millisecond
			}
			// An index run gives way to the searches beside it; its large runs
			// lower their PostgreSQL backends too (pg.DB.Background).
			priority.LowerProcess(pg.BackgroundNice)
			sum, err := index.New(db, emb).Index(ctx, root, opts)
			if tty {
				statusLine("")
			}
			if err != nil {
				return err
			}
			if g.json {
				return json.NewEncoder(os.Stdout).Encode(sum)
			}
			printIndexSummary(sum, len(opts.Paths))
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Full, "full", false, "re-index and re-embed every file (the old rows serve searches until each file is replaced)")
	f.BoolVar(&opts.NoWait, "no-wait", false, "fail instead of waiting when another index of the repository is running")
	f.BoolVar(&opts.WorkingTree, "working-tree", false, "also index uncommitted changes (marked revision working-tree)")
	f.Int64Var(&opts.MaxFileBytes, "max-file-bytes", 1<<20, "skip files larger than this (counted under skipped, here and in status)")
	f.IntVar(&opts.Workers, "workers", 0, "parse workers (default: one per core)")
	f.StringArrayVar(&files, "file", nil, "index just this file as it is on disk (repeatable; a deleted file loses its rows); the rest stays as indexed")
	f.BoolVar(&opts.AllowSystemDirs, "force", false, "index /, /proc, /sys or /dev anyway (refused by default: device files and the kernel's own files)")
	return cmd
}

func printProgress(p index.Progress) {
	statusLine(progressLine(p, terminalWidth(os.Stderr)))
}

// progressLine is one snapshot of a run in at most width-1 columns (the last
// column left free, so a terminal never wraps the line and each redraw stays
// on it): the phase and the file counts first, then what fits of chunks,
// embeddings, skipped files, the rate and the estimate.
func progressLine(p index.Progress, width int) string {
	if width <= 0 {
		width = 80
	}
	room := width - 1
	if strings.HasPrefix(p.Phase, "waiting") {
		return clipColumns(p.Phase, room) // no counts yet: the run has not started
	}
	line := clipColumns(fmt.Sprintf("%s  files %d/%d", p.Phase, p.FilesDone, p.FilesTotal), room)
	parts := []string{fmt.Sprintf("chunks %d", p.Chunks)}
	if p.EmbedQueued > 0 {
		parts = append(parts, fmt.Sprintf("embedded %d/%d", p.Embedded, p.EmbedQueued))
	}
	if p.FilesSkipped > 0 {
		parts = append(parts, fmt.Sprintf("skipped %d", p.FilesSkipped))
	}
	if r := p.Rate(); r > 0 {
		parts = append(parts, fmt.Sprintf("%.0f files/s", r))
	}
	if eta := p.ETA(); eta > 0 {
		parts = append(parts, "ETA "+eta.Round(time.Second).String())
	}
	for _, part := range parts {
		if utf8.RuneCountInString(line)+2+utf8.RuneCountInString(part) > room {
			break
		}
		line += "  " + part
	}
	return line
}

// clipColumns cuts s to n runes, an ellipsis marking the cut.
func clipColumns(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-1]) + "…"
}

// terminalWidth is f's width in columns, 80 when it is not a terminal.
func terminalWidth(f *os.File) int {
	if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
		return w
	}
	return 80
}

// etaSuffix is "  ETA 1m5s", or "" when the time left is unknown.
func etaSuffix(eta time.Duration) string {
	if eta <= 0 {
		return ""
	}
	return "  ETA " + eta.Round(time.Second).String()
}

// statusLine rewrites the terminal's progress line on stderr ("" clears it).
func statusLine(line string) { fmt.Fprint(os.Stderr, "\r\033[K"+line) }

func shortRev(rev string) string {
	if len(rev) > 12 && !strings.Contains(rev, "-") {
		return rev[:12]
	}
	return rev
}

// repoRelative turns paths given on the command line (relative to the current
// directory, or absolute) into paths relative to the repository root.
func repoRelative(root string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("--file %s: %w", p, err)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
			return nil, usagef("--file %s is not a file inside the repository %s", p, root)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// printIndexSummary is index's text output: what the run changed, or that
// nothing did.
func printIndexSummary(sum index.Summary, paths int) {
	for _, n := range sum.Notes {
		fmt.Fprintln(os.Stderr, "note:", n)
	}
	if sum.FilesIndexed == 0 && sum.FilesDeleted == 0 && sum.SkippedNow == 0 && sum.Embedded == 0 && paths > 0 {
		fmt.Printf("%s: nothing changed in the %d files given\n", sum.Repository, paths)
		return
	}
	if sum.FilesIndexed == 0 && sum.FilesDeleted == 0 && sum.SkippedNow == 0 && sum.Embedded == 0 {
		fmt.Printf("%s: nothing changed at %s (%d files, %d skipped; %d symbols, %d edges)\n",
			sum.Repository, shortRev(sum.Revision), sum.FilesUnchanged, sum.FilesSkipped, sum.Symbols, sum.Edges)
		return
	}
	if paths > 0 {
		fmt.Printf("%s: %d of %d files indexed, %d unchanged, %d deleted, %d skipped, %d embedded in %s\n",
			sum.Repository, sum.FilesIndexed, paths, sum.FilesUnchanged, sum.FilesDeleted, sum.FilesSkipped,
			sum.Embedded, (time.Duration(sum.DurationMS) * time.Millisecond).String())
		return
	}
	fmt.Printf("%s at %s: %d files indexed, %d unchanged, %d deleted, %d skipped; %d symbols, %d edges, %d embedded (%s) in %s\n",
		sum.Repository, shortRev(sum.Revision), sum.FilesIndexed, sum.FilesUnchanged, sum.FilesDeleted,
		sum.FilesSkipped, sum.Symbols, sum.Edges, sum.Embedded, sum.EmbeddingModel,
		(time.Duration(sum.DurationMS) * time.Millisecond).String())
}
