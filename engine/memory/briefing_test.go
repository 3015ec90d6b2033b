package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

// countingTracer counts the statements sent to the server.
type countingTracer struct{ n *atomic.Int64 }

func (c countingTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (countingTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// openCounted opens url as the application would (pg.Open's connection setup) with
// a tracer counting statements.
func openCounted(t *testing.T, url string, n *atomic.Int64) *pg.DB {
	t.Helper()
	return openTraced(t, url, countingTracer{n})
}

// openTraced opens url as the application would, with tracer on its connections.
func openTraced(t *testing.T, url string, tracer pgx.QueryTracer) *pg.DB {
	t.Helper()
	base := pgtest.OpenTenant(t, url, pg.DefaultTenant)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = tracer
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if err := pgxvec.RegisterTypes(ctx, c); err != nil {
			return err
		}
		if base.AppRole {
			if _, err := c.Exec(ctx, "SET ROLE "+pg.AppRole); err != nil {
				return err
			}
		}
		_, err := c.Exec(ctx, `SELECT set_config('spelunk.tenant', $1, false)`, pg.DefaultTenant)
		return err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return &pg.DB{Pool: pool, URL: url, Tenant: pg.DefaultTenant, AppRole: base.AppRole}
}

func TestBriefing(t *testing.T) {
	var statements atomic.Int64
	db := openCounted(t, pgtest.URL(t), &statements)
	s := newProject(t, db, memory.Options{})
	ctx := context.Background()

	empty, err := s.Briefing(ctx, memory.BriefingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(empty); string(raw) != `{"memories":[],"nuggets":[],"state":null,"open_conflicts":0,"ranking":"recent"}` {
		t.Fatalf("empty briefing: got %s", raw)
	}

	old := mustAdd(t, s, memory.KindFact, "a", "The API server listens on port 8080.").Memory.ID
	mustAdd(t, s, memory.KindRule, "a", "Always squash commits when merging a pull request.")
	fresh := mustAdd(t, s, memory.KindFact, "b", "The API server listens on port 8080 behind the nginx proxy.").Memory.ID
	mustAdd(t, s, memory.KindDecision, "c", "Session tokens expire after 15 minutes.")
	mustAdd(t, s, memory.KindFact, "a", "Query result caching is enabled in production.")
	if mustAdd(t, s, memory.KindFact, "b", "Query result caching is disabled in production.").ConflictID == "" {
		t.Fatal("setup: no conflict")
	}
	// Age the first memory by two half-lives.
	if _, err := db.Pool.Exec(ctx, `UPDATE memories SET created_at = now() - interval '60 days' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetNugget(ctx, memory.NuggetWrite{Key: "release", Value: "2.4.0", Author: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetState(ctx, memory.NewState{Summary: "shipping 2.4", Blockers: []string{"flaky e2e"}, Author: "lead"}); err != nil {
		t.Fatal(err)
	}

	q := "Which port does the API server listen on?"
	if _, err := s.Briefing(ctx, memory.BriefingOptions{Query: q}); err != nil { // warm: model lookup, connections
		t.Fatal(err)
	}
	statements.Store(0)
	b, err := s.Briefing(ctx, memory.BriefingOptions{Query: q, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if n := statements.Load(); n != 1 {
		t.Fatalf("briefing sent %d statements, want 1 round trip", n)
	}
	if b.Ranking != "similarity" || len(b.Memories) != 3 {
		t.Fatalf("briefing: ranking %s, %d memories", b.Ranking, len(b.Memories))
	}
	top := b.Memories[0]
	if top.ID != fresh || top.Similarity == nil || top.Score != *top.Similarity*top.Decay {
		t.Fatalf("top memory: got %+v, want the fresh port memory %s", top, fresh)
	}
	var oldHit *memory.BriefMemory
	for i := range b.Memories {
		if b.Memories[i].ID == old {
			oldHit = &b.Memories[i]
		}
	}
	if oldHit == nil || oldHit.Decay > 0.26 || oldHit.Decay < 0.24 {
		t.Fatalf("the 60-day-old memory: got %+v, want decay 0.25", oldHit)
	}
	if len(b.Nuggets) != 1 || b.Nuggets[0].Value != "2.4.0" || b.State == nil || b.State.Summary != "shipping 2.4" ||
		len(b.State.Blockers) != 1 || b.OpenConflicts != 1 {
		t.Fatalf("briefing: nuggets %+v state %+v open %d", b.Nuggets, b.State, b.OpenConflicts)
	}

	statements.Store(0)
	recent, err := s.Briefing(ctx, memory.BriefingOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := statements.Load(); n != 1 {
		t.Fatalf("briefing without query sent %d statements, want 1", n)
	}
	if len(recent.Memories) != 6 || recent.Memories[5].ID != old || recent.Memories[0].Similarity != nil {
		t.Fatalf("recent briefing: got %d memories, last %s", len(recent.Memories), recent.Memories[len(recent.Memories)-1].ID)
	}
	raw, _ := json.Marshal(b)
	var shape map[string]json.RawMessage
	_ = json.Unmarshal(raw, &shape)
	var keys []string
	for k := range shape {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if fmt.Sprint(keys) != "[memories nuggets open_conflicts query ranking state]" {
		t.Fatalf("briefing JSON keys: %v", keys)
	}
}

func TestSearch(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	port := mustAdd(t, s, memory.KindFact, "a", "The API server listens on port 8080.").Memory.ID
	mustAdd(t, s, memory.KindRule, "a", "Always squash commits when merging a pull request.")
	gone := mustAdd(t, s, memory.KindFact, "a", "The API server used to listen on port 80.").Memory.ID
	if _, err := s.Invalidate(ctx, gone, "a", "old"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, "api server port", 5)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Dense || len(res.Hits) == 0 || res.Hits[0].ID != port || res.Hits[0].DenseRank != 1 || res.Hits[0].LexicalRank != 1 {
		t.Fatalf("search: got %+v", res)
	}
	for _, h := range res.Hits {
		if h.ID == gone {
			t.Fatal("search returned an invalidated memory")
		}
	}
	if _, err := s.Search(ctx, "  ", 5); err == nil {
		t.Fatal("empty query accepted")
	}
}
