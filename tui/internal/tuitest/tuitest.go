// Package tuitest builds what the TUI's tests run against: the fixture repository
// indexed into a fresh test database, memories with open conflicts, and a driver
// that runs a model's commands the way Bubble Tea would (concurrently, results fed
// back to Update) so state tests can wait for real database answers.
package tuitest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/index/indextest"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/backend"
	"github.com/spelunkhq/spelunk/tui/theme"
)

// Epoch is the fixed "now" of the tests; seeded rows are dated relative to it.
var Epoch = time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)

// Env is an indexed fixture with its backend.
type Env struct {
	DB      *pg.DB
	Root    string
	Repo    pg.Repository
	Emb     *embed.Hashing
	Backend *backend.Engine
	Memory  *memory.Store
}

// FixtureDir is the absolute path of testdata/fixture.
func FixtureDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "fixture")
}

// Repo is indextest.Repo: the fixture as a git repository with a fixed revision.
func Repo(t testing.TB) string { return indextest.Repo(t) }

// Git is indextest.Git.
func Git(t testing.TB, dir string, args ...string) string { return indextest.Git(t, dir, args...) }

// Open indexes a fresh copy of the fixture into a fresh database (unless
// unindexed) and returns the backend over it. Indexing uses one parse worker so
// that symbol ids, which break ties between equal scores, are the same on every
// run and the golden views are stable.
func Open(t testing.TB, indexed bool) *Env {
	t.Helper()
	ctx := context.Background()
	db := pgtest.Open(t)
	root := Repo(t)
	emb := embed.NewHashing(384)
	if indexed {
		if _, err := index.New(db, emb).Index(ctx, root, index.Options{Workers: 1}); err != nil {
			t.Fatalf("index fixture: %v", err)
		}
	}
	rec, err := db.EnsureRepository(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{DB: db, Root: root, Repo: rec, Emb: emb,
		Backend: backend.New(db, rec, emb, backend.Options{Actor: "tester"}),
		Memory:  memory.New(db, rec.ID, memory.Options{Embedder: emb})}
}

// Revision is the fixture repository's HEAD commit.
func (e *Env) Revision(t testing.TB) string {
	t.Helper()
	return Git(t, e.Root, "rev-parse", "HEAD")
}

// Memories are the seeded memories, by role.
type Memories struct {
	Conflicts []string // open conflict ids, oldest first
}

// SeedMemories records memories that contradict each other (two open conflicts,
// one side with a parent), nuggets and a state compilation, all dated relative
// to Epoch.
func (e *Env) SeedMemories(t testing.TB) Memories {
	t.Helper()
	ctx := context.Background()
	add := func(kind memory.Kind, author, text string, parents ...string) memory.Added {
		t.Helper()
		a, err := e.Memory.Add(ctx, memory.NewMemory{Kind: kind, Author: author, Text: text, Parents: parents})
		if err != nil {
			t.Fatalf("add memory %q: %v", text, err)
		}
		return a
	}
	old := add(memory.KindFact, "agent-claude", "The checkout API server listens on port 8080.")
	add(memory.KindFact, "agent-claude", "The checkout API server listens on port 8081 behind the **new proxy**.", old.Memory.ID)
	add(memory.KindDecision, "agent-gpt", "Refunds are allowed within 30 days of payment, 60 days for VIP customers.")
	c1 := add(memory.KindFact, "agent-gpt", "The checkout API server listens on port 9090.")
	add(memory.KindRule, "agent-claude", "The payments service retries failed webhooks up to five times.")
	c2 := add(memory.KindRule, "agent-gemini", "The payments service does not retry failed webhooks.")
	for _, n := range []memory.NuggetWrite{
		{Key: "deploy.region", Value: "eu-west-1", Author: "agent-claude", At: Epoch.Add(-3 * time.Hour)},
		{Key: "ratelimit.go", Value: "5 rps, burst 20", Author: "agent-gpt", At: Epoch.Add(-2 * time.Hour)},
		{Key: "release.next", Value: "v1.4.0", Author: "agent-gemini", At: Epoch.Add(-1 * time.Hour)},
	} {
		if _, err := e.Memory.SetNugget(ctx, n); err != nil {
			t.Fatalf("set nugget: %v", err)
		}
	}
	if _, err := e.Memory.SetState(ctx, memory.NewState{
		Summary:    "Checkout rewrite in progress; refunds moved to the billing service.",
		Blockers:   []string{"the TS checkout still calls the old refund endpoint"},
		Priorities: []string{"finish proration of partial refunds", "rate-limit the storefront"},
		Author:     "agent-claude",
	}); err != nil {
		t.Fatalf("set state: %v", err)
	}
	// Fixed dates, in insertion order, so views are the same on every run.
	mustExec(t, e.DB, `WITH o AS (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM memories WHERE repository_id = $1)
		UPDATE memories m SET created_at = $2::timestamptz + o.n * interval '1 hour' FROM o WHERE m.id = o.id AND m.repository_id = $1`,
		e.Repo.ID, Epoch.Add(-48*time.Hour))
	mustExec(t, e.DB, `WITH o AS (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM conflicts WHERE repository_id = $1)
		UPDATE conflicts c SET created_at = $2::timestamptz + o.n * interval '1 hour' FROM o WHERE c.id = o.id AND c.repository_id = $1`,
		e.Repo.ID, Epoch.Add(-24*time.Hour))
	mustExec(t, e.DB, `UPDATE state_compilations SET compiled_at = $2 WHERE repository_id = $1`, e.Repo.ID, Epoch.Add(-30*time.Minute))
	var out Memories
	for _, a := range []memory.Added{c1, c2} {
		if a.ConflictID == "" {
			t.Fatalf("memory %q opened no conflict: the seed expects the heuristic judge to flag it", a.Memory.Content)
		}
	}
	open, err := e.Memory.Conflicts(ctx, memory.ConflictOpen)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range open {
		out.Conflicts = append(out.Conflicts, c.ID)
	}
	return out
}

func mustExec(t testing.TB, db *pg.DB, sql string, args ...any) {
	t.Helper()
	if _, err := db.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Theme is the fixed theme of the tests: no colour (Ascii), dark background.
func Theme() *theme.Theme {
	p, dark := termenv.Ascii, true
	return theme.New(theme.Options{Output: os.Stdout, Profile: &p, Dark: &dark})
}

// Config is the configuration of test programs: fixed theme and clock, no
// background status refresh, no automatic indexing.
func Config(t testing.TB) tui.Config {
	return tui.Config{
		Theme:       Theme(),
		EvalPath:    filepath.Join(t.TempDir(), "eval", "saved.jsonl"),
		DBLabel:     "test",
		Debounce:    5 * time.Millisecond,
		StatusEvery: -1,
		NoAutoIndex: true,
		Now:         func() time.Time { return Epoch },
	}
}

// Driver runs a root model like the Bubble Tea runtime does, minus the terminal:
// commands run concurrently and their messages are fed back to Update on the
// test's goroutine, in arrival order.
type Driver struct {
	T    testing.TB
	M    *tui.Model
	msgs chan tea.Msg
	quit bool
}

// NewDriver starts m at w x h: Init's commands run and the window size is sent.
func NewDriver(t testing.TB, m *tui.Model, w, h int) *Driver {
	d := &Driver{T: t, M: m, msgs: make(chan tea.Msg, 256)}
	d.Send(tea.WindowSizeMsg{Width: w, Height: h})
	d.Exec(m.Init())
	return d
}

// Exec runs a command in the background.
func (d *Driver) Exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if msg != nil {
			d.msgs <- msg
		}
	}()
}

// Send delivers a message now and runs the command it returns.
func (d *Driver) Send(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.Exec(c)
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	}
	// Cursor blinks only animate the caret; dropping them keeps runs quiet.
	if strings.Contains(reflect.TypeOf(msg).PkgPath(), "bubbles/cursor") {
		return
	}
	_, cmd := d.M.Update(msg)
	d.Exec(cmd)
}

// Quit reports whether the program asked to quit.
func (d *Driver) Quit() bool { return d.quit }

// Keys sends keys: names like "enter", "esc", "tab", "shift+tab", "down", "up",
// "left", "right", "ctrl+c", "backspace", "space", "pgdown", or any text, which is
// typed rune by rune.
func (d *Driver) Keys(keys ...string) {
	for _, k := range keys {
		for _, msg := range KeyMsgs(k) {
			d.Send(msg)
		}
	}
}

// KeyMsgs converts a key name (or text to type) into key messages.
func KeyMsgs(k string) []tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"down": tea.KeyDown, "up": tea.KeyUp, "left": tea.KeyLeft, "right": tea.KeyRight,
		"ctrl+c": tea.KeyCtrlC, "backspace": tea.KeyBackspace, "space": tea.KeySpace,
		"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd,
		"ctrl+s": tea.KeyCtrlS, "ctrl+l": tea.KeyCtrlL, "ctrl+d": tea.KeyCtrlD, "ctrl+u": tea.KeyCtrlU,
	}
	if t, ok := named[k]; ok {
		if t == tea.KeySpace {
			return []tea.KeyMsg{{Type: tea.KeySpace, Runes: []rune{' '}}}
		}
		return []tea.KeyMsg{{Type: t}}
	}
	if rest, ok := strings.CutPrefix(k, "alt+"); ok && len(rest) == 1 {
		return []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune(rest), Alt: true}}
	}
	var out []tea.KeyMsg
	for _, r := range k {
		out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return out
}

// WaitFor applies messages as they arrive until cond holds, failing the test
// after timeout (default 20s).
func (d *Driver) WaitFor(what string, cond func() bool, timeout ...time.Duration) {
	d.T.Helper()
	limit := 20 * time.Second
	if len(timeout) > 0 {
		limit = timeout[0]
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.Send(msg)
		case <-deadline.C:
			d.T.Fatalf("timed out after %s waiting for %s\n%s", limit, what, d.M.View())
		}
	}
}

// Settle applies the messages that arrive within d (default 100ms) of each other:
// the program is then idle apart from timers.
func (d *Driver) Settle(quiet ...time.Duration) {
	q := 100 * time.Millisecond
	if len(quiet) > 0 {
		q = quiet[0]
	}
	for {
		select {
		case msg := <-d.msgs:
			d.Send(msg)
		case <-time.After(q):
			return
		}
	}
}
