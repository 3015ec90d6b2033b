package memory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestContradictionOpensOneConflict(t *testing.T) {
	s := newProject(t, pgtest.Open(t), memory.Options{})
	ctx := context.Background()
	a := mustAdd(t, s, memory.KindFact, "agent-a", "The API server listens on port 8080.")
	para := mustAdd(t, s, memory.KindFact, "agent-p", "Port 8080 is where the API server listens.")
	if para.ConflictID != "" {
		t.Fatalf("a paraphrase opened conflict %s", para.ConflictID)
	}
	b := mustAdd(t, s, memory.KindFact, "agent-b", "The API server listens on port 9090.")
	if b.ConflictID == "" || b.Memory.Status != memory.StatusDisputed {
		t.Fatalf("contradiction: got conflict %q status %s, want a conflict and DISPUTED", b.ConflictID, b.Memory.Status)
	}
	wantStatus(t, s, a.Memory.ID, memory.StatusDisputed)
	wantStatus(t, s, para.Memory.ID, memory.StatusDisputed) // the paraphrase says 8080 too
	c := mustAdd(t, s, memory.KindFact, "agent-c", "The API server listens on port 7070.")
	if c.ConflictID != b.ConflictID {
		t.Fatalf("third contradicting memory: got conflict %s, want it to join %s", c.ConflictID, b.ConflictID)
	}
	open, err := s.Conflicts(ctx, memory.ConflictOpen)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 {
		t.Fatalf("got %d open conflicts, want 1", len(open))
	}
	got := open[0]
	for _, id := range []string{a.Memory.ID, para.Memory.ID, b.Memory.ID, c.Memory.ID} {
		if !slices.Contains(got.MemoryIDs, id) {
			t.Fatalf("conflict members %v lack %s", got.MemoryIDs, id)
		}
	}
	if got.Similarity < s.Threshold() || !strings.Contains(got.Reason, "8080") || !strings.Contains(got.Reason, "7070") {
		t.Fatalf("conflict: similarity %.3f reason %q", got.Similarity, got.Reason)
	}
	d, err := s.Conflict(ctx, got.ID[:8])
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Memories) != 4 || d.Memories[0].ID != a.Memory.ID {
		t.Fatalf("conflict detail: got %d memories starting with %s, want 4 starting with side a %s", len(d.Memories), d.Memories[0].ID, a.Memory.ID)
	}
	evs, err := s.Events(ctx, a.Memory.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Action != memory.ActionDispute || last.ConflictID != got.ID || last.Actor != "agent-b" {
		t.Fatalf("dispute event: got %+v", last)
	}
}

func TestBridgingMemoryMergesOpenConflicts(t *testing.T) {
	const (
		a = "alpha one"
		b = "alpha two"
		c = "alpha three"
		d = "alpha four"
		e = "alpha five"
	)
	judge := scriptJudge{pairs: [][2]string{{a, b}, {c, d}, {e, b}, {e, d}}}
	s := newProject(t, pgtest.Open(t), memory.Options{Judge: judge, Threshold: 0.01})
	ctx := context.Background()
	mustAdd(t, s, memory.KindFact, "x", a)
	c1 := mustAdd(t, s, memory.KindFact, "x", b).ConflictID
	mustAdd(t, s, memory.KindFact, "x", c)
	c2 := mustAdd(t, s, memory.KindFact, "x", d).ConflictID
	if c1 == "" || c2 == "" || c1 == c2 {
		t.Fatalf("setup: conflicts %q and %q, want two", c1, c2)
	}
	got := mustAdd(t, s, memory.KindFact, "x", e).ConflictID
	if got != c1 {
		t.Fatalf("bridging memory joined %s, want the older conflict %s", got, c1)
	}
	open, _ := s.Conflicts(ctx, memory.ConflictOpen)
	if len(open) != 1 || len(open[0].MemoryIDs) != 5 {
		t.Fatalf("got %d open conflicts (%v), want one with 5 members", len(open), open)
	}
	old, err := s.Conflict(ctx, c2)
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != memory.ConflictResolved || old.Resolution != "merged:"+c1 {
		t.Fatalf("absorbed conflict: got %s %q", old.Status, old.Resolution)
	}
	if _, err := s.Undo(ctx, c2, "alice"); err == nil {
		t.Fatal("undo of an absorbed conflict succeeded")
	}
}

// TestConcurrentContradictionsMeet writes two contradicting memories at the same
// time from two connection pools: the project lock makes the second writer see the
// first, so the pair is disputed in one conflict rather than both slipping in.
func TestConcurrentContradictionsMeet(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	dbs := []*pg.DB{pgtest.OpenTenant(t, url, pg.DefaultTenant), pgtest.OpenTenant(t, url, pg.DefaultTenant)}
	repo, err := dbs[0].EnsureRepository(ctx, "/projects/race")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"Autoscaling is turned on for the web tier.", "Autoscaling is turned off for the web tier."}
	for round := range 5 {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, db := range dbs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := memory.New(db, repo.ID, memory.Options{Embedder: newHashing()})
				_, errs[i] = s.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: fmt.Sprintf("agent-%d", i), Text: texts[i]})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		s := memory.New(dbs[0], repo.ID, memory.Options{Embedder: newHashing()})
		open, err := s.Conflicts(ctx, memory.ConflictOpen)
		if err != nil {
			t.Fatal(err)
		}
		if len(open) != 1 || len(open[0].MemoryIDs) != 2*(round+1) {
			t.Fatalf("round %d: got %d open conflicts (%v), want one with every memory", round, len(open), open)
		}
	}
}
