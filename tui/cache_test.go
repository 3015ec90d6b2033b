package tui_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memcache"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
	"github.com/spelunkhq/spelunk/tui"
	"github.com/spelunkhq/spelunk/tui/backend"
	"github.com/spelunkhq/spelunk/tui/internal/tuitest"
)

// TestStatusBarShowsQueuedWrites runs the real program with memory served from
// the edge cache: the briefing comes from the cache pulled at start, and with the
// core stopped the writes an agent makes meanwhile show as "N writes queued" with
// the sync error, until the core is back and the background loop drains them.
func TestStatusBarShowsQueuedWrites(t *testing.T) {
	ctx := context.Background()
	cl := pgtest.Cluster(t) // the test's own cluster: it is stopped below
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cl.EnsureDatabase(ctx, "spelunk"); err != nil {
		t.Fatal(err)
	}
	db, err := pg.Open(ctx, pg.Options{URL: cl.URL("spelunk")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	rec, err := db.EnsureRepository(ctx, tuitest.Repo(t))
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewHashing(384)
	core := memcache.Core{DB: db, Store: memory.New(db, rec.ID, memory.Options{Embedder: emb})}
	if _, err := core.Store.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: "agent-claude", Text: "The staging database is db-stage-2"}); err != nil {
		t.Fatal(err)
	}
	cache, err := memcache.Open(ctx, memcache.Options{Path: filepath.Join(t.TempDir(), "cache.db"), Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	mc := memcache.NewClient(cache, &core)
	stop := mc.Start(ctx, 10*time.Second, 100*time.Millisecond)
	t.Cleanup(stop)

	b := backend.New(db, rec, emb, backend.Options{Actor: "tester", Cache: mc})
	cfg := tuitest.Config(t)
	cfg.StatusEvery = 100 * time.Millisecond
	tm := teatest.NewTestModel(t, tui.New(b, cfg), teatest.WithInitialTermSize(160, 40))
	waitScreen(t, tm, "never indexed")
	tm.Send(key(tea.KeyEsc)) // out of the query box
	tm.Send(runes("5"))
	waitScreen(t, tm, "db-stage-2")

	if err := cl.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Tried the flaky checkout test twice", "The checkout test passes with the fixed fixture"} {
		if _, err := mc.Add(ctx, memory.NewMemory{Kind: memory.KindEpisode, Author: "agent-claude", Text: text}); err != nil {
			t.Fatalf("add with the core down: %v", err)
		}
	}
	// The core's own error takes the right of the bar; the queue stays in sight.
	waitScreen(t, tm, "⇡ 2 writes queued")

	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for st, _ := cache.Status(ctx); st.Queued > 0 || st.LastError != ""; st, _ = cache.Status(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("queue not drained once the core is back: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // a few status refreshes
	tm.Send(runes("q"))
	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Model)
	if s := m.Sync(); !s.Cached || s.Queued != 0 || s.LastError != "" {
		t.Errorf("status bar's sync state after the drain = %+v, want cached, nothing queued, no error", s)
	}
	if n, err := core.Store.List(ctx, memory.Filter{}); err != nil || len(n) != 3 {
		t.Errorf("core memories = %d (%v), want 3", len(n), err)
	}
}

// syncDown is the real backend whose cache reports a failing sync while the
// index answers (a core reachable for code, say, and the queue still waiting).
type syncDown struct{ *backend.Engine }

func (syncDown) SyncStatus(context.Context) (tui.SyncStatus, error) {
	return tui.SyncStatus{Cached: true, Queued: 3, LastError: "push add 1f2e: dial tcp 10.0.0.7:5432: connect: connection refused"}, nil
}

// TestStatusBarShowsSyncError: the last sync error is in the status bar beside
// the queue.
func TestStatusBarShowsSyncError(t *testing.T) {
	env := tuitest.Open(t, true)
	cfg := tuitest.Config(t)
	tm := teatest.NewTestModel(t, tui.New(syncDown{env.Backend}, cfg), teatest.WithInitialTermSize(160, 40))
	waitScreen(t, tm, "✓ fresh", "⇡ 3 writes queued", "sync: push add 1f2e: dial tcp")
	tm.Send(key(tea.KeyEsc)) // out of the query box
	tm.Send(runes("q"))
	tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second))
}
