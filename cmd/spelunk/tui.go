package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/watch"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/backend"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// errNoTTY is returned when spelunk is started without a subcommand and without a
// terminal: the UI needs one, scripts want the subcommands.
var errNoTTY = errors.New("the interactive UI needs a terminal (stdin and stdout must be a TTY).\n" +
	"Use a subcommand instead, e.g. `spelunk index`, `spelunk search QUERY`, `spelunk symbols`,\n" +
	"`spelunk callers NAME`, `spelunk status` (add --json for machine-readable output); `spelunk --help` lists them all")

// addTUIFlags registers the flags of the UI on the root command.
func addTUIFlags(root *cobra.Command) {
	root.Flags().String("eval-file", "", "where w saves judged queries (default: $SPELUNK_EVAL_FILE, else $XDG_STATE_HOME/spelunk/eval/REPO-HASH.jsonl, never inside the repository)")
	root.Flags().String("query", "", "open the UI with this search")
	root.Flags().Bool("no-watch", false, "do not follow the working tree (spelunk watch) while the UI is open")
	root.Flags().Bool("all", false, "search every indexed repository of the tenant (or give --repo several times); @ filters by repository")
}

// runTUI opens the terminal UI on the repository: it registers the repository (the
// UI starts indexing it at once when it is new or stale) and runs the program in
// the alternate screen with mouse support until the user quits.
func runTUI(cmd *cobra.Command, g *globals) error {
	if !isatty.IsTerminal(os.Stdin.Fd()) || !isatty.IsTerminal(os.Stdout.Fd()) {
		return errNoTTY
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	// The first --repo is the UI's own (status, index, watcher, memory); the
	// others are searched beside it (tuiOthers).
	root, err := repoRoot(ctx, &globals{repo: g.repo})
	if err != nil {
		return err
	}
	emb, note, err := g.embed.embedder()
	if err != nil {
		return err
	}
	db, err := openDB(ctx, g)
	if err != nil {
		return err
	}
	defer db.Close()
	rec, err := db.EnsureRepository(ctx, root)
	if err != nil {
		return err
	}
	others, err := tuiOthers(ctx, cmd, g, db, root)
	if err != nil {
		return err
	}
	cfg := tui.Config{
		Theme:    theme.New(theme.Options{Output: os.Stdout}),
		EvalPath: evalPath(cmd, root),
		Editor:   firstNonEmpty(os.Getenv("VISUAL"), os.Getenv("EDITOR")),
		DBLabel:  dbLabel(g.db),
		Notice:   note,
	}
	if f := cmd.Flags().Lookup("query"); f != nil {
		cfg.Query = f.Value.String()
	}
	// Memory is served from the local cache when one is configured; its queue and
	// sync errors show in the status bar (io.Discard: the UI owns the screen).
	cl, stopCache, err := memoryClient(ctx, g, root, db, rec.ID, emb, io.Discard)
	if err != nil {
		return err
	}
	defer stopCache() // before the pool closes
	b := backend.New(db, rec, emb, backend.Options{Actor: actor(), Cache: cl, Judge: g.judge.judge})
	ui := tuiBackend(db, b, others, emb)
	if noWatch, _ := cmd.Flags().GetBool("no-watch"); !noWatch {
		wctx, stop := context.WithCancel(ctx)
		var wait func()
		// A repository never indexed is indexed by the UI first (it does so
		// at once, with a progress bar); then the watcher follows it.
		cfg.Watch, wait = b.Watch(wctx, watch.Options{}, rec.LastIndexedAt == nil)
		defer wait() // a run in progress ends before the pool closes
		defer stop()
	}
	p := tea.NewProgram(tui.New(ui, cfg), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx))
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("ui: %w", err)
	}
	return nil
}

// tuiOthers are the repositories the UI searches besides root: the other --repo
// values, or with --all every other indexed repository; none over one.
func tuiOthers(ctx context.Context, cmd *cobra.Command, g *globals, db *pg.DB, root string) ([]pg.Repository, error) {
	all, _ := cmd.Flags().GetBool("all")
	if !all && len(g.repos) < 2 {
		return nil, nil
	}
	recs, _, err := scopeRepos(ctx, g, db, all)
	if err != nil {
		return nil, err
	}
	var out []pg.Repository
	for _, r := range recs {
		if r.Root != root {
			out = append(out, r)
		}
	}
	return out, nil
}

// tuiBackend is b alone, or with other repositories b first among them: its
// status, index, watcher and memory stay the UI's, the search covers them all.
func tuiBackend(db *pg.DB, b *backend.Engine, others []pg.Repository, emb backend.Embedder) tui.Backend {
	if len(others) == 0 {
		return b
	}
	engines := []*backend.Engine{b}
	for _, r := range others {
		engines = append(engines, backend.New(db, r, emb, backend.Options{Actor: actor()}))
	}
	return backend.NewMulti(engines...)
}

// evalPath is --eval-file, else $SPELUNK_EVAL_FILE, else a file of the
// repository's own under the state directory (defaultEvalPath): the UI never
// writes into the repository it shows (the watcher would index the file).
func evalPath(cmd *cobra.Command, root string) string {
	p := ""
	if f := cmd.Flags().Lookup("eval-file"); f != nil {
		p = f.Value.String()
	}
	if p == "" {
		p = os.Getenv("SPELUNK_EVAL_FILE")
	}
	if p == "" {
		return defaultEvalPath(root)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// defaultEvalPath is $XDG_STATE_HOME/spelunk/eval/NAME-HASH.jsonl
// (~/.local/state/...): NAME the repository's directory, HASH a short hash of
// its root, so two checkouts named alike keep their judgements apart.
func defaultEvalPath(root string) string {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		state = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(root))
	name := fmt.Sprintf("%s-%s.jsonl", filepath.Base(root), hex.EncodeToString(sum[:4]))
	return filepath.Join(state, "spelunk", "eval", name)
}

// dbLabel names the database for the status bar without credentials.
func dbLabel(flag string) string {
	raw := firstNonEmpty(flag, os.Getenv("SPELUNK_DATABASE_URL"))
	if raw == "" {
		return "embedded"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "custom"
	}
	name := strings.TrimPrefix(u.Path, "/")
	host := u.Hostname()
	if host == "" {
		host = "local"
	}
	if name == "" {
		return host
	}
	return host + "/" + name
}

func actor() string {
	if u := firstNonEmpty(os.Getenv("USER"), os.Getenv("LOGNAME")); u != "" {
		return u + " (spelunk tui)"
	}
	return "spelunk tui"
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
