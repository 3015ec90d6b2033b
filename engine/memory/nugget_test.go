package memory_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestNuggets(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	if _, err := s.Nugget(ctx, "deploy.freeze"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("missing nugget: got %v, want ErrNotFound", err)
	}
	for _, w := range []memory.NuggetWrite{
		{Key: "deploy.freeze", Value: "no", Author: "alice"},
		{Key: "deploy.freeze", Value: "yes", Author: "bob"},
		{Key: "on-call", Value: "carol", Author: "alice"},
	} {
		r, err := s.SetNugget(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Applied || r.Nugget.Value != w.Value {
			t.Fatalf("set %+v: got %+v", w, r)
		}
	}
	// An older timestamp loses: kept in the history, not current.
	r, err := s.SetNugget(ctx, memory.NuggetWrite{Key: "deploy.freeze", Value: "maybe", Author: "dave", At: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Applied || r.Nugget.Value != "yes" {
		t.Fatalf("stale write: got %+v, want not applied and value yes", r)
	}
	ns, err := s.Nuggets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 2 || ns[0].Key != "deploy.freeze" || ns[0].Value != "yes" || ns[0].Author != "bob" {
		t.Fatalf("list: got %+v", ns)
	}
	h, err := s.NuggetHistory(ctx, "deploy.freeze")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range h {
		got = append(got, v.Value)
	}
	if want := "[maybe no yes]"; fmt.Sprint(got) != want {
		t.Fatalf("history: got %v, want %s (by timestamp)", got, want)
	}
	tests := []struct {
		name string
		w    memory.NuggetWrite
		want error
	}{
		{"empty key", memory.NuggetWrite{Value: "x", Author: "a"}, memory.ErrInvalid},
		{"no author", memory.NuggetWrite{Key: "k", Value: "x"}, memory.ErrInvalid},
		{"huge value", memory.NuggetWrite{Key: "k", Value: string(make([]byte, 1<<20)), Author: "a"}, memory.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.SetNugget(ctx, tt.w); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// TestNuggetConcurrentWriters has two writers, each on its own connection pool, race
// on one key. Every write must be in the history and the current value must be the
// latest write by timestamp.
func TestNuggetConcurrentWriters(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	dbs := []*pg.DB{pgtest.OpenTenant(t, url, pg.DefaultTenant), pgtest.OpenTenant(t, url, pg.DefaultTenant)}
	repo, err := dbs[0].EnsureRepository(ctx, "/projects/nuggets")
	if err != nil {
		t.Fatal(err)
	}
	const writes = 100
	var wg sync.WaitGroup
	errs := make(chan error, len(dbs))
	for w, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := memory.New(db, repo.ID, memory.Options{})
			for i := range writes {
				if _, err := s.SetNugget(ctx, memory.NuggetWrite{Key: "build.status", Value: fmt.Sprintf("w%d-%d", w, i), Author: fmt.Sprintf("writer-%d", w)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := memory.New(dbs[0], repo.ID, memory.Options{})
	h, err := s.NuggetHistory(ctx, "build.status")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2*writes {
		t.Fatalf("history has %d writes, want %d: writes were lost", len(h), 2*writes)
	}
	cur, err := s.Nugget(ctx, "build.status")
	if err != nil {
		t.Fatal(err)
	}
	last := h[len(h)-1]
	if cur.Value != last.Value || !cur.UpdatedAt.Equal(last.WrittenAt) {
		t.Fatalf("current %q@%s, want the latest write %q@%s", cur.Value, cur.UpdatedAt, last.Value, last.WrittenAt)
	}
}

func TestState(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	if _, err := s.LatestState(ctx); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("no state: got %v, want ErrNotFound", err)
	}
	if _, err := s.SetState(ctx, memory.NewState{Summary: "first", Author: "a"}); err != nil {
		t.Fatal(err)
	}
	want := memory.NewState{Summary: "Indexer done; memory in review", Blockers: []string{"pgvector on CI"}, Priorities: []string{"briefing", "TUI"}, Author: "lead"}
	if _, err := s.SetState(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.LatestState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != want.Summary || fmt.Sprint(got.Blockers) != fmt.Sprint(want.Blockers) ||
		fmt.Sprint(got.Priorities) != fmt.Sprint(want.Priorities) || got.Author != "lead" {
		t.Fatalf("latest state: got %+v, want %+v", got, want)
	}
	if _, err := s.SetState(ctx, memory.NewState{Summary: " ", Author: "a"}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("empty summary: got %v, want ErrInvalid", err)
	}
}
