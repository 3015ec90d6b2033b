package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/hooks"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/watch"
)

func newHooksCmd(g *globals) *cobra.Command {
	group := &cobra.Command{
		Use:   "hooks",
		Short: "Keep the index fresh from git hooks (install, uninstall, status)",
		Long: "spelunk hooks install adds post-commit, post-merge, post-checkout and post-rewrite hooks that start\n" +
			"an incremental index in the background, so git returns at once. The hooks directory is the one git\n" +
			"uses (core.hooksPath honoured). A hook already there is kept: spelunk inserts a marked block after\n" +
			"its #! line, and the hook then runs as before, with the same input and exit status. uninstall deletes\n" +
			"exactly that block. Runs are coalesced: while one indexes, at most one more waits behind it.\n" +
			"They log to spelunk-hook.log in the git dir and use $SPELUNK_DATABASE_URL as git's environment has it.",
	}
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove spelunk's part of the hooks, leaving other hooks exactly as they were",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := hooksRepo(g)
			if err != nil {
				return err
			}
			rep, err := hooks.Uninstall(cmd.Context(), dir)
			if rep.Dir == "" {
				return err
			}
			if perr := printHooks(rep, g.json, true); perr != nil {
				return perr
			}
			return err
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "Show each hook: installed, not installed, or a foreign hook present",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := hooksRepo(g)
			if err != nil {
				return err
			}
			rep, err := hooks.Status(cmd.Context(), dir)
			if err != nil {
				return err
			}
			return printHooks(rep, g.json, false)
		},
	}
	return cmdGroup(group, newHooksInstallCmd(g), uninstall, status, newHookRunCmd(g))
}

func newHooksInstallCmd(g *globals) *cobra.Command {
	var binary string
	install := &cobra.Command{
		Use:   "install",
		Short: "Add the hooks to the repository (--repo, default the current one); installing twice is installing once",
		Long: "Add post-commit, post-merge, post-checkout and post-rewrite hooks to the repository (--repo, default the\n" +
			"current one). A hook that is not a shell script, a symlink or a hook that is not executable is left alone\n" +
			"(exit 1; the others are installed). --tenant and the --embedder flags given here are written into the\n" +
			"hooks and passed to every run, so the runs embed as yours do; --db is not (a URL may hold a password).",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bin, err := hookBinary(binary)
			if err != nil {
				return err
			}
			flags, err := recordedFlags(cmd)
			if err != nil {
				return err
			}
			dir, err := hooksRepo(g)
			if err != nil {
				return err
			}
			rep, err := hooks.Install(cmd.Context(), dir, hooks.Options{Binary: bin, Flags: flags})
			if rep.Dir == "" {
				return err
			}
			if perr := printHooks(rep, g.json, true); perr != nil {
				return perr
			}
			if !g.json {
				printInstallNotes(cmd, rep, bin, flags)
			}
			return err
		},
	}
	install.Flags().StringVar(&binary, "binary", "", "the spelunk binary the hooks run (default: this one)")
	return install
}

// hooksRepo is the directory whose repository the hooks command works on: one.
func hooksRepo(g *globals) (string, error) {
	if len(g.repos) > 1 {
		return "", usagef("--repo is given %d times; spelunk hooks works on one repository", len(g.repos))
	}
	if g.repo != "" {
		return g.repo, nil
	}
	return ".", nil
}

// hookBinary is the spelunk the hooks will run: --binary, else this binary.
func hookBinary(flag string) (string, error) {
	if flag != "" {
		abs, err := filepath.Abs(flag)
		if err != nil {
			return "", usagef("--binary %s: %v", flag, err)
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return "", usagef("--binary %s: not an executable file", flag)
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locate the spelunk binary: %w (give --binary)", err)
	}
	// The name the shell found is better when it is the same file: a package
	// manager's symlink survives an upgrade, the versioned file it points to not.
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil && sameFile(abs, exe) {
			return abs, nil
		}
	}
	return exe, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// recordedFlags are the global flags given to install that the hooks pass to
// every run, so that a run embeds as the manual runs do (another model would
// re-embed everything). Not --db: a URL may hold a password, and hook files
// are plain text.
func recordedFlags(cmd *cobra.Command) ([]string, error) {
	var out []string
	for _, name := range []string{"tenant", "embedder", "embed-model", "embed-url", "embed-dims"} {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if u, err := url.Parse(f.Value.String()); name == "embed-url" && err == nil && u.User != nil {
			return nil, usagef("--embed-url holds credentials, which the hook files would show: give them through the environment")
		}
		out = append(out, "--"+name+"="+f.Value.String())
	}
	return out, nil
}

// printHooks prints a report: one line per hook (with the action after install
// or uninstall), or the report as JSON.
func printHooks(rep hooks.Report, asJSON, actions bool) error {
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(rep)
	}
	fmt.Printf("hooks in %s\n", rep.Dir)
	for _, h := range rep.Hooks {
		line := describeHook(h)
		if actions {
			line = describeAction(h)
		}
		fmt.Printf("  %-14s %s\n", h.Name, line)
	}
	return nil
}

func describeHook(h hooks.Hook) string {
	switch h.State {
	case hooks.Installed:
		s := "installed"
		if h.Chained {
			s += ", chained into an existing hook (it runs after spelunk's block)"
		}
		if h.BinaryMissing {
			s += "; " + h.Binary + " is gone, so it does nothing (spelunk hooks install again)"
		}
		return s
	case hooks.Foreign:
		if h.Refused != "" {
			return "foreign hook present, " + h.Refused + ": spelunk cannot chain into it"
		}
		return "foreign hook present (install chains into it)"
	}
	return "not installed"
}

// describeAction says what install or uninstall did to h.
func describeAction(h hooks.Hook) string {
	switch h.Action {
	case "created", "updated":
		return h.Action
	case "chained":
		return "chained into the existing hook, which runs after spelunk's block"
	case "unchanged":
		return "already installed"
	case "refused":
		return "left alone: " + h.Refused
	case "removed":
		return "removed (spelunk had created it)"
	case "unchained":
		return "spelunk's block removed, the hook is as it was"
	}
	return describeHook(h)
}

// printInstallNotes says where the runs log, what to check in a shared or
// tracked hooks directory, and how to chain by hand into a refused hook.
func printInstallNotes(cmd *cobra.Command, rep hooks.Report, bin string, flags []string) {
	fmt.Printf("the hooks start %s in the background; log: %s\n", bin, filepath.Join(rep.GitDir, hooks.LogFile))
	if cmd.Flags().Changed("db") {
		fmt.Fprintln(os.Stderr, "note: --db is not written into the hooks (a URL may hold a password): their runs use $SPELUNK_DATABASE_URL as git sees it, else the embedded cluster")
	}
	if strings.HasPrefix(bin, filepath.Clean(os.TempDir())+string(filepath.Separator)) {
		fmt.Fprintf(os.Stderr, "note: %s is in a temporary directory (go run?): the hooks do nothing once it is gone; give --binary\n", bin)
	}
	if rep.InWorkTree {
		fmt.Fprintf(os.Stderr, "note: %s is inside the working tree: git status shows the hooks, which name this machine's spelunk; do not commit them\n", rep.Dir)
	}
	for _, h := range rep.Hooks {
		if h.Action == "refused" {
			fmt.Fprintf(os.Stderr, "to chain %s by hand, have it start in the background: %s hooks run --repo %s %s%s -- <its arguments> </dev/null >/dev/null 2>&1 &\n",
				h.Name, bin, rep.Root, strings.Join(append(flags, ""), " "), h.Name)
		}
	}
}

// detachHook is hooks.Detach; the in-process tests keep their session.
var detachHook = hooks.Detach

// newHookRunCmd is what an installed hook starts, in the background, in the
// working tree git ran it for; --repo is the repository the hooks were
// installed for.
func newHookRunCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:    "run HOOK [-- ARG...]",
		Short:  "Index after a git hook fired (started by the installed hooks)",
		Hidden: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes the hook's name (%s)", cmd.CommandPath(), strings.Join(hooks.Names, ", "))
			}
			for _, n := range hooks.Names {
				if args[0] == n {
					return nil
				}
			}
			return usagef("unknown hook %q (%s)", args[0], strings.Join(hooks.Names, ", "))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHook(cmd.Context(), g, args[0], args[1:])
		},
	}
}

// runHook indexes the working tree in the current directory (where git runs
// hooks) after hook fired, unless nothing moved or a run already queued will
// see the same commit. What happens goes to the hook log.
func runHook(ctx context.Context, g *globals, hook string, args []string) error {
	detachHook()
	if err := hooks.ClearGitEnv(ctx); err != nil {
		return err
	}
	loc, err := hooks.Locate(ctx, ".")
	if err != nil {
		return err
	}
	logf, err := hooks.OpenLog(loc.GitDir)
	if err != nil {
		return err
	}
	defer logf.Close()
	logLine := func(format string, a ...any) {
		fmt.Fprintf(logf, "%s %s %s: %s\n", time.Now().Format("2006-01-02 15:04:05"), hook, loc.Root, fmt.Sprintf(format, a...))
	}
	if why := hooks.Skip(loc, hook, args); why != "" {
		logLine("skipped: %s", why)
		return nil
	}
	ran, err := hooks.Coalesce(loc.GitDir, func() error { return indexForHook(ctx, g, loc, logLine) })
	switch {
	case err != nil:
		logLine("failed: %s", pg.RedactText(err.Error()))
		return err
	case !ran:
		logLine("skipped: the run queued behind the current one indexes this commit too")
	}
	return nil
}

// indexForHook runs the index. A working tree other than the one the hooks
// were installed for (a linked worktree, or another repository sharing a
// core.hooksPath) is indexed only when it is indexed already, so a shared
// hooks directory never starts a first, full index nobody asked for.
func indexForHook(ctx context.Context, g *globals, loc hooks.Location, logLine func(string, ...any)) error {
	emb, note, err := g.embed.embedder()
	if err != nil {
		return err
	}
	if note != "" {
		logLine("%s", note)
	}
	db, err := openDB(ctx, g)
	if err != nil {
		return err
	}
	defer db.Close()
	if !sameDir(loc.Root, g.repo) {
		_, err := db.RepositoryByRoot(ctx, loc.Root)
		if errors.Is(err, pg.ErrNotFound) {
			logLine("skipped: not indexed yet, and the hooks were installed for %s (spelunk index %s once, and the hooks keep it fresh)", g.repo, loc.Root)
			return nil
		}
		if err != nil {
			return err
		}
	}
	// A watcher follows HEAD and the uncommitted files too; a run at HEAD here
	// would put committed content back over files still being edited.
	if rec, err := db.RepositoryByRoot(ctx, loc.Root); err == nil {
		if on, err := watch.Leading(ctx, db, rec.ID); err == nil && on {
			logLine("skipped: spelunk watch follows this repository and indexes the commit itself")
			return nil
		}
	}
	logLine("indexing")
	sum, err := index.New(db, emb).Index(ctx, loc.Root, index.Options{})
	if err != nil {
		return err
	}
	for _, n := range sum.Notes {
		logLine("note: %s", n)
	}
	logLine("at %s: %d files indexed, %d unchanged, %d deleted, %d skipped; %d embedded in %s",
		shortRev(sum.Revision), sum.FilesIndexed, sum.FilesUnchanged, sum.FilesDeleted, sum.FilesSkipped,
		sum.Embedded, (time.Duration(sum.DurationMS) * time.Millisecond).String())
	return nil
}

// sameDir compares two directories with symlinks resolved.
func sameDir(a, b string) bool {
	if b == "" {
		return false
	}
	if r, err := filepath.EvalSymlinks(b); err == nil {
		b = r
	}
	return a == b
}
