package tui_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/backend"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// ledgerTax is the second repository of the multi-repository test: its own
// compute_tax, called by invoice_total, so a search for the name finds one in
// each repository.
const ledgerTax = `def compute_tax(amount):
    """Ledger VAT: a flat rate of 0.21."""
    return amount * 0.21


def invoice_total(amount):
    return amount + compute_tax(amount)
`

// ledgerRepo makes and indexes the second repository, in env's database.
func ledgerRepo(t *testing.T, env *tuitest.Env) *backend.Engine {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ledger")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ledger.py"), []byte(ledgerTax), 0o644); err != nil {
		t.Fatal(err)
	}
	tuitest.Git(t, dir, "init", "-q", "-b", "main")
	tuitest.Git(t, dir, "add", "-A")
	tuitest.Git(t, dir, "commit", "-q", "-m", "ledger")
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := index.New(env.DB, env.Emb).Index(ctx, root, index.Options{Workers: 1}); err != nil {
		t.Fatalf("index ledger: %v", err)
	}
	rec, err := env.DB.EnsureRepository(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	return backend.New(env.DB, rec, env.Emb, backend.Options{Actor: "tester"})
}

// TestFlowSearchSeveralRepositories runs the real program over two indexed
// repositories: the search shows both, each row labelled; @ narrows it to shop,
// then to ledger; opening ledger's result and its callers reads ledger.
func TestFlowSearchSeveralRepositories(t *testing.T) {
	env := tuitest.Open(t, true)
	multi := backend.NewMulti(env.Backend, ledgerRepo(t, env))
	tm := teatest.NewTestModel(t, tui.New(multi, tuitest.Config(t)), teatest.WithInitialTermSize(140, 40))
	waitScreen(t, tm, "shop", "[repos: all 2]")

	tm.Type("compute_tax")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "compute_tax", "[shop] …op/billing/tax.py:19-22", "[ledger] ledger.py:1-3")
	tm.Send(key(tea.KeyEsc)) // out of the query box
	tm.Send(runes("f"))      // rank files: their rows name the repository too
	waitScreen(t, tm, "files · identifier", "[ledger] ledger.py  ")
	tm.Send(runes("f"))
	tm.Send(runes("?"))
	waitScreen(t, tm, "repository filter")
	tm.Send(runes("?"))
	tm.Send(runes("@"))
	waitScreen(t, tm, "[repo: shop]")
	tm.Send(runes("@"))
	waitScreen(t, tm, "[repo: ledger]", "3 definitions · identifier")
	tm.Send(key(tea.KeyEnter))
	waitScreen(t, tm, "[2 Symbol]", "flat rate of 0.21")
	tm.Send(runes("c"))
	waitScreen(t, tm, "[3 Graph]", "invoice_total")
	tm.Send(runes("q"))

	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	resp := m.Search().Response()
	if resp == nil || len(resp.Results) == 0 {
		t.Fatal("no results under the ledger filter")
	}
	for _, r := range resp.Results {
		if got := multi.RepoOf(r.ID); got != "ledger" {
			t.Errorf("under the ledger filter, result %s:%d is from %q", r.Path, r.StartLine, got)
		}
	}
	if f := multi.CycleFilter(); f != "" {
		t.Errorf("after ledger the filter is %q, want every repository again", f)
	}
}

// TestFlowIncompleteOtherRepository: with several repositories open, the
// status bar warns of an incomplete index in any of them, not only in the
// first (the primary, whose status the bar shows), naming it (issue 36, 5).
func TestFlowIncompleteOtherRepository(t *testing.T) {
	env := tuitest.Open(t, true)
	multi := backend.NewMulti(env.Backend, ledgerRepo(t, env))
	ctx := context.Background()
	if st, err := multi.Status(ctx); err != nil || st.Incomplete != "" {
		t.Fatalf("status of two complete indexes: incomplete %q, %v; want none", st.Incomplete, err)
	}
	if _, err := env.DB.Pool.Exec(ctx, `UPDATE repositories SET indexing_started = now() WHERE name = 'ledger'`); err != nil {
		t.Fatal(err)
	}
	cfg := tuitest.Config(t)
	cfg.StatusEvery = 20 * time.Millisecond
	tm := teatest.NewTestModel(t, tui.New(multi, cfg), teatest.WithInitialTermSize(160, 40))
	waitScreen(t, tm, "⚠ ledger: index incomplete: the last run, started")
	tm.Send(key(tea.KeyEsc))
	tm.Send(runes("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))

	if _, err := env.DB.Pool.Exec(ctx, `UPDATE repositories SET indexing_started = now()`); err != nil {
		t.Fatal(err)
	}
	st, err := multi.Status(ctx)
	if want := "index incomplete in shop, ledger: shop: index incomplete: the last run"; err != nil || !strings.HasPrefix(st.Incomplete, want) || !strings.Contains(st.Incomplete, "; ledger: index incomplete") {
		t.Errorf("status of two incomplete indexes: %q, %v; want it to start %q and name ledger's too", st.Incomplete, err, want)
	}
}
