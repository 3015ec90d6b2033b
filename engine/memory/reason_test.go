package memory_test

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"

	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

var uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestDisputeReasonNamesAnotherMemory writes contradicting memories from many
// goroutines over two connection pools (issue 11: 70 of 80 disputed memories
// said "contradicted by" their own id). No status reason may name its own
// memory, and every DISPUTED memory must name another memory that exists.
func TestDisputeReasonNamesAnotherMemory(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	dbs := []*pg.DB{pgtest.OpenTenant(t, url, pg.DefaultTenant), pgtest.OpenTenant(t, url, pg.DefaultTenant)}
	repo, err := dbs[0].EnsureRepository(ctx, "/projects/reasons")
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := memory.New(dbs[w%2], repo.ID, memory.Options{Embedder: newHashing()})
			for i := range each {
				text := fmt.Sprintf("The API server listens on port %d.", 8000+w*each+i)
				if _, err := s.Add(ctx, memory.NewMemory{Kind: memory.KindFact, Author: fmt.Sprintf("agent-%d", w), Text: text}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	s := memory.New(dbs[0], repo.ID, memory.Options{Embedder: newHashing()})
	if disputed := checkReasons(t, s); disputed < 2 {
		t.Fatalf("only %d memories disputed: the writers did not contradict each other", disputed)
	}

	// A resolution names its target, and an undo puts every member back to
	// DISPUTED: the target's reason must still name the others, not itself.
	open, err := s.Conflicts(ctx, memory.ConflictOpen)
	if err != nil || len(open) == 0 {
		t.Fatalf("open conflicts: %v %v", open, err)
	}
	for _, res := range []memory.Resolution{
		{Action: memory.ResolveKeep, Memory: "a", Resolver: "alice"},
		{Action: memory.ResolveInvalidate, Memory: "b", Resolver: "alice"},
	} {
		if _, err := s.Resolve(ctx, open[0].ID, res); err != nil {
			t.Fatal(err)
		}
		checkReasons(t, s)
		if _, err := s.Undo(ctx, open[0].ID, "bob"); err != nil {
			t.Fatal(err)
		}
		checkReasons(t, s)
	}
}

// checkReasons fails the test for a status reason naming its own memory, or a
// DISPUTED memory whose reason names no other existing memory. It returns how
// many memories are DISPUTED.
func checkReasons(t *testing.T, s *memory.Store) int {
	t.Helper()
	all, err := s.List(context.Background(), memory.Filter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, m := range all {
		exists[m.ID] = true
	}
	disputed := 0
	for _, m := range all {
		named := uuidRe.FindAllString(m.StatusReason, -1)
		for _, id := range named {
			if id == m.ID {
				t.Errorf("memory %s (%s): status reason %q names itself", m.ID, m.Status, m.StatusReason)
			}
		}
		if m.Status != memory.StatusDisputed {
			continue
		}
		disputed++
		other := false
		for _, id := range named {
			other = other || id != m.ID && exists[id]
		}
		if !other {
			t.Errorf("disputed memory %s: status reason %q names no other existing memory", m.ID, m.StatusReason)
		}
	}
	return disputed
}
