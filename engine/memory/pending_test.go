package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/spelunkhq/spelunk/engine/embed"
	"github.com/spelunkhq/spelunk/engine/memory"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

func TestEmbedderDownStoresPending(t *testing.T) {
	emb := &flakyEmbedder{Embedder: embed.NewHashing(0)}
	s := newProject(t, pgtest.Open(t), memory.Options{Embedder: emb})
	ctx := context.Background()
	a := mustAdd(t, s, memory.KindFact, "agent-a", "The worker pool size is 8 by default.")

	emb.down.Store(true)
	b := mustAdd(t, s, memory.KindFact, "agent-b", "The worker pool size defaults to 32.")
	if b.Memory.Status != memory.StatusPendingEmbedding || b.ConflictID != "" {
		t.Fatalf("while down: got %s conflict %q, want PENDING_EMBEDDING and no conflict yet", b.Memory.Status, b.ConflictID)
	}
	wantStatus(t, s, a.Memory.ID, memory.StatusActive)
	// Search still answers, lexically.
	res, err := s.Search(ctx, "worker pool size", 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dense || len(res.Hits) != 2 {
		t.Fatalf("search while down: dense %v, %d hits, want lexical only with 2", res.Dense, len(res.Hits))
	}
	if _, err := s.EmbedPending(ctx); !errors.Is(err, embed.ErrUnavailable) {
		t.Fatalf("EmbedPending while down: got %v, want ErrUnavailable", err)
	}
	wantStatus(t, s, b.Memory.ID, memory.StatusPendingEmbedding)

	emb.down.Store(false)
	rep, err := s.EmbedPending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded != 1 || len(rep.Conflicts) != 1 {
		t.Fatalf("EmbedPending: got %+v, want 1 embedded and 1 conflict", rep)
	}
	wantStatus(t, s, a.Memory.ID, memory.StatusDisputed)
	wantStatus(t, s, b.Memory.ID, memory.StatusDisputed)
	evs, _ := s.Events(ctx, b.Memory.ID)
	var actions []string
	for _, e := range evs {
		actions = append(actions, e.Action)
	}
	if want := []string{"add", "embedded", "dispute"}; len(actions) != 3 || actions[1] != want[1] || actions[2] != want[2] {
		t.Fatalf("events: got %v, want %v", actions, want)
	}
	if rep, err := s.EmbedPending(ctx); err != nil || rep.Embedded != 0 {
		t.Fatalf("second EmbedPending: got %+v, %v, want nothing to do", rep, err)
	}
}
